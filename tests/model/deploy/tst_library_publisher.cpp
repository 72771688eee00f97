// SPDX-License-Identifier: GPL-3.0-or-later
// Publishing the limiter library against real redis-servers: what a publish records and loads on
// every primary of the test Cluster, versions that move only when the library changes, drift (a
// flushed library, an older one, a foreign one, a restarted server that lost it) and its repair,
// the persistence warning, and the dry-run preview.

#include "model/deploy/library_publisher.h"
#include "model/deploy/node_order.h"
#include "model/limiter/bucket_key.h"
#include "support/limiter_support.h"
#include "support/publish_support.h"
#include "support/redis_process.h"
#include "support/sync_command.h"
#include "support/test_services.h"

#include <QElapsedTimer>
#include <QFile>
#include <QTest>

using namespace sluice;
using model::LibraryPublisher;
using model::NodeLibrary;
using redis::RedisClient;
using redis::RedisReply;
using test::syncCommand;

namespace {

const auto Current = NodeLibrary::State::Current;
const auto Missing = NodeLibrary::State::Missing;

QVector<NodeLibrary::State> states(const QVector<NodeLibrary> &nodes)
{
    QVector<NodeLibrary::State> result;
    for (const NodeLibrary &node : nodes)
        result << node.state;
    return result;
}

// One command to one named node, waited for (tests only).
RedisReply onNode(RedisClient &client, const QString &node, const QByteArrayList &args)
{
    RedisReply result;
    bool done = false;
    QObject context;
    client.sendToNode(node, args, &context, [&](const RedisReply &reply) {
        result = reply;
        done = true;
    });
    test::spinUntil([&] { return done; });
    return result;
}

} // namespace

class TestLibraryPublisher : public QObject {
    Q_OBJECT

    // The test Cluster's three primaries; every test function gets a namespace of its own.
    std::unique_ptr<RedisClient> m_cluster;
    QString m_ns;

    model::PublishResult publish(RedisClient &client) { return test::publishLibrary(client, m_ns); }
    model::PublishResult publish() { return publish(*m_cluster); }
    model::DeploymentStatus status(RedisClient &client) { return test::libraryStatus(client, m_ns); }
    model::DeploymentStatus status() { return status(*m_cluster); }
    void store(RedisClient &client, const model::Policy &policy)
    {
        const QString error = test::storePolicy(client, m_ns, policy);
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }
    void store(const model::Policy &policy) { store(*m_cluster, policy); }

    // The primaries as a deployment's status and a publish list them: by address.
    QString primary(int index) const { return model::inAddressOrder(m_cluster->primaries()).value(index); }
    model::LibraryOwner owner() const { return {m_ns, 0}; }
    model::PublishResult publishTakingOver()
    {
        return test::awaitCallback<model::PublishResult>(
            [&](QObject *context, auto done) {
            LibraryPublisher(m_cluster.get(), owner(), {false, false, true})
                .publish(QStringLiteral("carol"), context, done);
            },
            {});
    }

private Q_SLOTS:
    void initTestCase()
    {
        SLUICE_REQUIRE_SERVICE(seeds, "SLUICE_TEST_CLUSTER_SEEDS", "Redis Cluster");
        m_cluster = std::make_unique<RedisClient>(
            test::optionsFor(QStringLiteral("redis://") + seeds.section(QLatin1Char(','), 0, 0)));
        QVERIFY2(test::openAndWait(*m_cluster), qPrintable(m_cluster->lastError()));
        QCOMPARE(m_cluster->primaries().size(), 3);
    }

    void init()
    {
        m_ns = test::uniqueNamespace("pub-");
        for (const QString &node : m_cluster->primaries())
            QVERIFY(onNode(*m_cluster, node, {"FUNCTION", "FLUSH"}).ok());
        store(test::makePolicy(QStringLiteral("api"), model::Algorithm::TokenBucket, 100, 60000, 150));
    }

    void publishLoadsRecordsAndVerifies()
    {
        const model::DeploymentStatus before = status();
        QCOMPARE(before.published.version, 0);
        QVERIFY(before.storedDiffers);
        QCOMPARE(states(before.nodes), (QVector<NodeLibrary::State>{Missing, Missing, Missing}));

        const model::PublishResult result = publish();
        QVERIFY2(result.ok(), qPrintable(sluice::model::messageOf(result.failure)));
        QCOMPARE(result.library.version, 1);
        QCOMPARE(states(result.nodes), (QVector<NodeLibrary::State>{Current, Current, Current}));
        for (const NodeLibrary &node : result.nodes)
            QCOMPARE(node.digest, result.library.digest);

        const model::AdminKeys keys(m_ns);
        const RedisReply record = syncCommand(*m_cluster, {"HGETALL", keys.library()});
        QCOMPARE(record.value.field("version")->bytes, QByteArray("1"));
        QCOMPARE(record.value.field("digest")->bytes, result.library.digest);
        QCOMPARE(record.value.field("source")->bytes, result.library.source);
        QCOMPARE(record.value.field("published_by")->bytes, QByteArray("carol"));
        const RedisReply audit = syncCommand(*m_cluster, {"XREVRANGE", keys.audit(), "+", "-", "COUNT", "1"});
        QCOMPARE(audit.value.elements.first().elements.at(1).field("action")->bytes, QByteArray("publish"));

        // The library answers on every primary, for keys of the namespace.
        for (const QByteArray subject : {"a", "b", "c", "d", "e", "f"}) {
            const RedisReply decision = syncCommand(*m_cluster,
                                                    {"FCALL", owner().function("acquire"), "1",
                                                     model::bucketKey(m_ns, QStringLiteral("api"), subject), "api"});
            QCOMPARE(decision.value.elements.value(1).integer, 149);
        }

        const model::DeploymentStatus after = status();
        QVERIFY(!after.drift());
        QVERIFY(!after.storedDiffers);
        QCOMPARE(after.published.publishedBy, QStringLiteral("carol"));
    }

    void versionMovesOnlyWhenTheLibraryChanges()
    {
        QCOMPARE(publish().library.version, 1);
        QCOMPARE(publish().library.version, 1); // same policies: same digest, same version
        store(test::makePolicy(QStringLiteral("api"), model::Algorithm::TokenBucket, 200, 60000, 150));
        QVERIFY(status().storedDiffers);
        const model::PublishResult second = publish();
        QCOMPARE(second.library.version, 2);
        QVERIFY(!status().storedDiffers);
    }

    void flushedLibraryIsDriftUntilRepublished()
    {
        QVERIFY(publish().ok());
        QVERIFY(onNode(*m_cluster, primary(1), {"FUNCTION", "FLUSH"}).ok());
        const model::DeploymentStatus drifted = status();
        QVERIFY(drifted.drift());
        QCOMPARE(states(drifted.nodes), (QVector<NodeLibrary::State>{Current, Missing, Current}));
        QVERIFY(publish().ok());
        QVERIFY(!status().drift());
    }

    void restartedServerWithoutPersistenceLosesTheLibrary()
    {
        test::RedisProcess server(test::RedisProcess::Patience::Quick);
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        RedisClient client(server.options());
        QVERIFY(test::openAndWait(client));
        store(client, test::makePolicy(QStringLiteral("api"), model::Algorithm::TokenBucket, 100, 60000, 150));
        QVERIFY(publish(client).ok());
        QVERIFY(syncCommand(client, {"CONFIG", "SET", "save", ""}).ok());
        QVERIFY(server.restart());
        QVERIFY(test::spinUntil([&] { return client.state() == RedisClient::State::Ready; }, 15000));
        const model::DeploymentStatus drifted = status(client);
        QCOMPARE(drifted.nodes.size(), 1);
        QCOMPARE(drifted.nodes.at(0).state, Missing);
        QCOMPARE(drifted.nodes.at(0).persistence, NodeLibrary::Persistence::None);
        // The policies went with it; stored again, a publish restores the library.
        store(client, test::makePolicy(QStringLiteral("api"), model::Algorithm::TokenBucket, 100, 60000, 150));
        QVERIFY(publish(client).ok());
        QCOMPARE(status(client).nodes.at(0).state, Current);
        QVERIFY(syncCommand(client, {"CONFIG", "SET", "appendonly", "yes"}).ok());
        QCOMPARE(status(client).nodes.at(0).persistence, NodeLibrary::Persistence::Persisted);
    }

    void olderLibraryIsStale()
    {
        QVERIFY(publish().ok());
        const QByteArray oldSource
            = syncCommand(*m_cluster, {"HGET", model::AdminKeys(m_ns).library(), "source"}).value.bytes;
        store(test::makePolicy(QStringLiteral("api"), model::Algorithm::TokenBucket, 300, 60000, 150));
        QVERIFY(publish().ok());
        QVERIFY(onNode(*m_cluster, primary(1), {"FUNCTION", "LOAD", "REPLACE", oldSource}).ok());
        const model::DeploymentStatus drifted = status();
        QCOMPARE(drifted.nodes.at(1).state, NodeLibrary::State::Stale);
        QCOMPARE(drifted.nodes.at(2).state, Current);
        QCOMPARE(drifted.nodes.at(1).version, 1);
        QCOMPARE(drifted.published.version, 2);
    }

    void foreignLibrariesAreRefusedUntilTakenOver()
    {
        // A library under this namespace's name that is not Sluice's: reported, and a publish refuses to
        // replace it, changing nothing, until told to take it over.
        const QByteArray foreign = "#!lua name=" + owner().libraryName() + "\nredis.register_function('hello_"
            + owner().libraryName() + "', function() return 1 end)";
        QVERIFY(onNode(*m_cluster, primary(1), {"FUNCTION", "LOAD", "REPLACE", foreign}).ok());
        const model::DeploymentStatus found = status();
        QCOMPARE(found.nodes.at(1).state, NodeLibrary::State::Foreign);
        QVERIFY2(found.nodes.at(1).detail.contains(QLatin1String("not a Sluice library")),
                 qPrintable(found.nodes.at(1).detail));
        QCOMPARE(found.nodes.at(1).libraries.size(), 1);
        QVERIFY(!found.nodes.at(1).libraries.first().owner);

        const model::PublishResult refused = publish();
        QVERIFY(refused.failure);
        QCOMPARE(int(refused.failure->kind), int(model::Failure::Kind::Refused));
        QVERIFY(refused.needs.takeOver);
        QVERIFY2(refused.failure->message.contains(primary(1)), qPrintable(refused.failure->message));
        QCOMPARE(syncCommand(*m_cluster, {"EXISTS", model::AdminKeys(m_ns).library()}).value.integer, 0);
        QCOMPARE(states(status().nodes), (QVector<NodeLibrary::State>{Missing, NodeLibrary::State::Foreign, Missing}));

        QVERIFY(publishTakingOver().ok());
        QCOMPARE(states(status().nodes), (QVector<NodeLibrary::State>{Current, Current, Current}));

        // Another library that holds our function names: the load fails and says why.
        QVERIFY(onNode(*m_cluster, primary(1), {"FUNCTION", "FLUSH"}).ok());
        const QByteArray squatter = "#!lua name=other\nredis.register_function('" + owner().function("acquire")
            + "', function() return 1 end)";
        QVERIFY(onNode(*m_cluster, primary(1), {"FUNCTION", "LOAD", squatter}).ok());
        const model::PublishResult blocked = publish();
        QVERIFY(!blocked.ok());
        QVERIFY(!blocked.failure);
        QCOMPARE(blocked.nodes.at(0).state, NodeLibrary::State::Current);
        QCOMPARE(blocked.nodes.at(1).state, Missing);
        QCOMPARE(blocked.nodes.at(2).state, Current);
        QVERIFY2(blocked.nodes.at(1).detail.contains(QLatin1String("load failed"))
                     && blocked.nodes.at(1).detail.contains(QString::fromLatin1(owner().function("acquire"))),
                 qPrintable(blocked.nodes.at(1).detail));
    }

    // An operator loads a copy of the library with a limit changed from 100 to 1,000,000 and the digest line
    // left as it was: the library still says it is current, but status hashes the code Redis runs, names the
    // change, counts it as drift, and a publish replaces it only when told to take it over.
    void aLibraryChangedAfterPublishingIsNotCurrent()
    {
        QVERIFY(publish().ok());
        const RedisReply listed
            = onNode(*m_cluster, primary(1), {"FUNCTION", "LIST", "LIBRARYNAME", owner().libraryName(), "WITHCODE"});
        QVERIFY(listed.ok() && listed.value.elements.size() == 1);
        QByteArray code = listed.value.elements.first().field("library_code")->bytes;
        QVERIFY(code.contains("limit = 100,"));
        code.replace("limit = 100,", "limit = 1000000,");
        QVERIFY(onNode(*m_cluster, primary(1), {"FUNCTION", "LOAD", "REPLACE", code}).ok());
        const RedisReply claimed = onNode(*m_cluster, primary(1), {"FCALL_RO", owner().function("version"), "0"});
        QCOMPARE(claimed.value.elements.value(1).bytes, status().nodes.at(0).digest); // it claims the same digest

        const model::DeploymentStatus found = status();
        QCOMPARE(states(found.nodes), (QVector<NodeLibrary::State>{Current, NodeLibrary::State::Foreign, Current}));
        QVERIFY2(found.nodes.at(1).detail.contains(QLatin1String("changed after it was published")),
                 qPrintable(found.nodes.at(1).detail));
        QVERIFY(found.drift());
        const model::PublishResult refused = publish();
        QVERIFY(refused.failure && refused.needs.takeOver);
        QVERIFY(publishTakingOver().ok());
        QCOMPARE(states(status().nodes), (QVector<NodeLibrary::State>{Current, Current, Current}));
    }

    // The exporter's status reads each primary's code at most once per interval: a copy edited by hand that
    // keeps its claim is caught when the interval is over, not at once; a publish (a new claim) is judged
    // on its code at once.
    void aRememberedReadingOfTheCodeLastsItsIntervalOnly()
    {
        QVERIFY(publish().ok());
        const auto memo = std::make_shared<model::RunningCodeMemo>(std::chrono::milliseconds(1500));
        const auto primaryStatus = [&] { return test::primaryStatus(*m_cluster, m_ns, memo); };
        QElapsedTimer clock;
        clock.start();
        QCOMPARE(states(primaryStatus().nodes), (QVector<NodeLibrary::State>{Current, Current, Current}));

        const RedisReply listed
            = onNode(*m_cluster, primary(1), {"FUNCTION", "LIST", "LIBRARYNAME", owner().libraryName(), "WITHCODE"});
        QByteArray code = listed.value.elements.value(0).field("library_code")->bytes;
        QVERIFY(code.contains("limit = 100,"));
        code.replace("limit = 100,", "limit = 1000000,");
        QVERIFY(onNode(*m_cluster, primary(1), {"FUNCTION", "LOAD", "REPLACE", code}).ok());
        const QVector<NodeLibrary::State> remembered = states(primaryStatus().nodes);
        const qint64 rememberedAtMs = clock.elapsed();
        QTest::qWait(int(std::max<qint64>(0, 1600 - clock.elapsed())));
        const model::DeploymentStatus reread = primaryStatus();
        if (rememberedAtMs < 1500) // (a stalled machine may have let the interval pass already)
            QCOMPARE(remembered, (QVector<NodeLibrary::State>{Current, Current, Current}));
        QCOMPARE(states(reread.nodes), (QVector<NodeLibrary::State>{Current, NodeLibrary::State::Foreign, Current}));
        QVERIFY2(reread.nodes.at(1).detail.contains(QLatin1String("changed after it was published")),
                 qPrintable(reread.nodes.at(1).detail));

        // A publish loads a library that claims a new digest: its code is read at once, within the interval.
        QVERIFY(publishTakingOver().ok());
        QCOMPARE(states(primaryStatus().nodes), (QVector<NodeLibrary::State>{Current, Current, Current}));
        code = onNode(*m_cluster, primary(2), {"FUNCTION", "LIST", "LIBRARYNAME", owner().libraryName(), "WITHCODE"})
                   .value.elements.value(0)
                   .field("library_code")
                   ->bytes;
        code.replace("limit = 100,", "limit = 7,");
        QVERIFY(onNode(*m_cluster, primary(2), {"FUNCTION", "LOAD", "REPLACE", code}).ok());
        QVERIFY(test::spinUntil([&] { return states(primaryStatus().nodes).value(2) == NodeLibrary::State::Foreign; },
                                5000));
    }

    void namespacesPublishLibrariesOfTheirOwn()
    {
        // Two namespaces on one Cluster, published in turn: each keeps its own library and decisions,
        // and each primary names both owners.
        const QString first = m_ns;
        QVERIFY(publish().ok());
        m_ns = test::uniqueNamespace("pub-");
        store(test::makePolicy(QStringLiteral("api"), model::Algorithm::TokenBucket, 5, 60000, 5));
        QVERIFY(publish().ok());
        for (const QString &ns : {first, m_ns}) {
            const model::LibraryOwner ownerOfNs{ns, 0};
            const RedisReply decision = syncCommand(
                *m_cluster,
                {"FCALL", ownerOfNs.function("acquire"), "1", model::bucketKey(ns, QStringLiteral("api"), "x"), "api"});
            QCOMPARE(decision.value.elements.value(1).integer, ns == first ? 149 : 4);
        }
        const model::DeploymentStatus both = status();
        QVERIFY(!both.drift());
        QCOMPARE(both.nodes.size(), 3);
        for (const NodeLibrary &node : both.nodes) {
            // (Other tests may run libraries of their own on the test Cluster meanwhile.)
            QStringList owners;
            for (const model::LoadedLibrary &library : node.libraries)
                if (library.owner && library.name == model::LibraryOwner{library.owner->ns, 0}.libraryName())
                    owners << library.owner->ns;
            QVERIFY2(owners.contains(first) && owners.contains(m_ns), qPrintable(owners.join(QLatin1Char(' '))));
        }
    }

    // Redis ignores case in function names (TeamB's and teamb's fought over sluice_teamb_*, teamb's services
    // running TeamB's code): a namespace that differs from a published one only in case is refused, taking over
    // or not, naming the library that holds its names; status says the same, and the first one keeps running.
    void aNamespaceThatDiffersOnlyInCaseIsRefused()
    {
        QVERIFY(publish().ok());
        const QString first = m_ns;
        m_ns = first.toUpper();
        store(test::makePolicy(QStringLiteral("api"), model::Algorithm::TokenBucket, 5, 60000, 5));
        const QByteArray holder = model::LibraryOwner{first, 0}.libraryName();
        for (const model::PublishResult &refused : {publish(), publishTakingOver()}) {
            QVERIFY(refused.failure);
            QVERIFY2(refused.failure->message.contains(QString::fromLatin1(holder))
                         && refused.failure->message.contains(QLatin1String("ignores case"))
                         && refused.failure->message.contains(first),
                     qPrintable(refused.failure->message));
        }
        const model::DeploymentStatus refusedStatus = status();
        QCOMPARE(refusedStatus.nodes.size(), 3);
        for (const NodeLibrary &node : refusedStatus.nodes) {
            QVERIFY(node.nameTakenInOtherCase);
            QVERIFY2(node.detail.contains(QString::fromLatin1(holder)), qPrintable(node.detail));
        }
        const RedisReply decision = syncCommand(*m_cluster,
                                                {"FCALL", model::LibraryOwner{first, 0}.function("acquire"), "1",
                                                 model::bucketKey(first, QStringLiteral("api"), "x"), "api"});
        QCOMPARE(decision.value.elements.value(1).integer, 149);
    }

    void persistenceIsReported()
    {
        // The test Cluster saves nothing: every node says so.
        const model::DeploymentStatus found = status();
        QCOMPARE(found.nodes.size(), 3);
        for (const NodeLibrary &node : found.nodes)
            QCOMPARE(node.persistence, NodeLibrary::Persistence::None);
    }

    void recordRefusesAStaleVersion()
    {
        QVERIFY(publish().ok());
        // What a publisher that read version 0 before this publish would send.
        QFile script(QStringLiteral(":/lua/library_record.lua"));
        QVERIFY(script.open(QIODevice::ReadOnly));
        const model::AdminKeys keys(m_ns);
        const RedisReply late = syncCommand(
            *m_cluster,
            {"EVAL", script.readAll(), "2", keys.library(), keys.audit(), "0", "1", "feed", "source", "dave", "1"});
        QVERIFY(late.value.isError());
        QCOMPARE(late.errorText(), QStringLiteral("CONFLICT 1"));
        QCOMPARE(syncCommand(*m_cluster, {"HGET", keys.library(), "published_by"}).value.bytes, QByteArray("carol"));
    }

    model::PublishPreview preview()
    {
        return test::awaitCallback<model::PublishPreview>(
            [&](QObject *context, auto done) { LibraryPublisher(m_cluster.get(), owner()).preview(context, done); },
            {});
    }

    void previewLoadsNothing()
    {
        const model::PublishPreview first = preview();
        QVERIFY(!first.failure);
        QCOMPARE(first.library.version, 1);
        QVERIFY(model::LimiterLibrary::policyTable({}).size() < first.library.source.size());
        QVERIFY(first.library.source.contains("[\"api\"] = {algorithm = \"token_bucket\", limit = 100"));
        for (const QString &node : m_cluster->primaries())
            QCOMPARE(onNode(*m_cluster, node, {"FUNCTION", "LIST"}).value.elements.size(), 0);
        QCOMPARE(syncCommand(*m_cluster, {"EXISTS", model::AdminKeys(m_ns).library()}).value.integer, 0);
        // Never published: the one stored policy is added, every field that applies listed (a token
        // bucket without a description has no window start, no live policy it shadows, no prediction, no
        // calendar, no overrides, no penalty, no debt or reservation wait, no spread and no description).
        QCOMPARE(first.changes.size(), 1);
        QCOMPARE(first.changes.first().kind, model::PolicyDelta::Kind::Added);
        QCOMPARE(first.changes.first().fields.size(), model::definitionFields(model::Policy{}).size() - 10);
    }

    // Against the published version: what changed, field by field, in the form's words; a policy
    // removed from the store is a removal.
    void previewListsTheChangesAgainstThePublishedVersion()
    {
        store(test::makePolicy(QStringLiteral("jobs"), model::Algorithm::Concurrency, 5, 30000));
        QVERIFY(publish().ok());
        QVERIFY(preview().changes.isEmpty());
        store(test::makePolicy(QStringLiteral("api"), model::Algorithm::TokenBucket, 2500, 60000, 150));
        model::Policy jobs;
        jobs.name = QStringLiteral("jobs");
        const auto deleted = test::awaitCallback<model::PolicyStore::CommitResult>(
            [&](QObject *context, auto done) {
            model::PolicyStore(m_cluster.get(), m_ns)
                .commit({{model::PolicyChange::Kind::Delete, jobs, -1}}, QStringLiteral("carol"), context, done);
            },
            {});
        QVERIFY(!deleted.failure);
        const model::PublishPreview next = preview();
        QVERIFY(!next.failure);
        QVERIFY(next.changesKnown());
        QCOMPARE(next.library.version, 2);
        QCOMPARE(next.published.version, 1);
        QCOMPARE(next.changes.size(), 2);
        const model::PolicyDelta &api = next.changes.at(0);
        QCOMPARE(api.name, QStringLiteral("api"));
        QCOMPARE(api.kind, model::PolicyDelta::Kind::Changed);
        QCOMPARE(api.fields.size(), 1);
        QCOMPARE(api.fields.first().label, QStringLiteral("Limit"));
        QCOMPARE(api.fields.first().field, QStringLiteral("limit"));
        QCOMPARE(api.fields.first().before, QLocale().toString(100));
        QCOMPARE(api.fields.first().after, QLocale().toString(2500));
        QCOMPARE(next.changes.at(1).name, QStringLiteral("jobs"));
        QCOMPARE(next.changes.at(1).kind, model::PolicyDelta::Kind::Removed);
    }

    // A publish bound to a review loads nothing when the stored policies changed after the review.
    void aReviewedPublishRefusesWhatWasNotReviewed()
    {
        const model::PublishPreview reviewed = preview();
        store(test::makePolicy(QStringLiteral("api"), model::Algorithm::TokenBucket, 7, 60000, 150));
        const auto result = test::awaitCallback<model::PublishResult>(
            [&](QObject *context, auto done) {
            LibraryPublisher publisher(m_cluster.get(), owner());
            publisher.requireReviewed(reviewed.library.digest);
            publisher.publish(QStringLiteral("erin"), context, done);
            },
            {});
        QVERIFY(result.failure);
        QCOMPARE(result.failure->kind, model::Failure::Kind::Conflict);
        for (const QString &node : m_cluster->primaries())
            QCOMPARE(onNode(*m_cluster, node, {"FUNCTION", "LIST"}).value.elements.size(), 0);
        // Reviewed again, it goes through.
        const auto again = test::awaitCallback<model::PublishResult>(
            [&](QObject *context, auto done) {
            LibraryPublisher publisher(m_cluster.get(), owner());
            publisher.requireReviewed(preview().library.digest);
            publisher.publish(QStringLiteral("erin"), context, done);
            },
            {});
        QVERIFY2(again.ok(), qPrintable(again.failure ? again.failure->message : QString()));
    }
};

QTEST_GUILESS_MAIN(TestLibraryPublisher)
#include "tst_library_publisher.moc"
