// Publishing the limiter library against real redis-servers: what a publish records and loads,
// versions that move only when the library changes, drift (a flushed library, a restarted
// primary, a foreign library) and its repair, the persistence warning, and the dry-run preview.

#include "model/library_publisher.h"
#include "support/limiter_support.h"
#include "support/redis_process.h"
#include "support/sync_command.h"

#include <QFile>
#include <QTest>

using namespace sluice;
using model::LibraryPublisher;
using model::NodeLibrary;
using model::PolicyChange;
using redis::RedisConnection;
using test::syncCommand;

class TestLibraryPublisher : public QObject {
    Q_OBJECT

    // The admin server holds the policy store; a second primary stands for another Cluster node.
    test::RedisProcess m_adminServer, m_otherServer;
    std::unique_ptr<RedisConnection> m_admin, m_other;
    const QString m_ns = QStringLiteral("pub");

    LibraryPublisher publisher() const { return LibraryPublisher(m_admin.get(), {m_admin.get(), m_other.get()}, m_ns); }

    model::PublishResult publish()
    {
        model::PublishResult result;
        bool done = false;
        publisher().publish(QStringLiteral("carol"), this, [&](const model::PublishResult &r) { result = r; done = true; });
        if (!test::spinUntil([&] { return done; }))
            result.error = QStringLiteral("no answer");
        return result;
    }

    model::DeploymentStatus status()
    {
        model::DeploymentStatus result;
        bool done = false;
        publisher().status(this, [&](const model::DeploymentStatus &r) { result = r; done = true; });
        if (!test::spinUntil([&] { return done; }))
            result.error = QStringLiteral("no answer");
        return result;
    }

    void store(const model::Policy &policy)
    {
        bool done = false;
        model::PolicyStore(m_admin.get(), m_ns).commit({{PolicyChange::Kind::Put, policy, -1}}, QStringLiteral("carol"), this,
                                                      [&](const model::PolicyStore::CommitResult &r) {
                                                          QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
                                                          done = true;
                                                      });
        QVERIFY(test::spinUntil([&] { return done; }));
    }

    static QVector<NodeLibrary::State> states(const QVector<NodeLibrary> &nodes)
    {
        QVector<NodeLibrary::State> result;
        for (const NodeLibrary &node : nodes)
            result << node.state;
        return result;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_adminServer.start(), qPrintable(m_adminServer.errorString()));
        QVERIFY2(m_otherServer.start(), qPrintable(m_otherServer.errorString()));
        m_admin = std::make_unique<RedisConnection>(m_adminServer.options());
        m_other = std::make_unique<RedisConnection>(m_otherServer.options());
        QVERIFY(test::openAndWait(*m_admin));
        QVERIFY(test::openAndWait(*m_other));
    }

    void init()
    {
        for (RedisConnection *node : {m_admin.get(), m_other.get()}) {
            QVERIFY(syncCommand(*node, {"FLUSHALL"}).ok());
            QVERIFY(syncCommand(*node, {"FUNCTION", "FLUSH"}).ok());
        }
        store(test::makePolicy(QStringLiteral("api"), model::Algorithm::TokenBucket, 100, 60000, 150));
    }

    void publishLoadsRecordsAndVerifies()
    {
        const model::DeploymentStatus before = status();
        QCOMPARE(before.published.version, 0);
        QVERIFY(before.storedDiffers);
        QCOMPARE(states(before.nodes), (QVector<NodeLibrary::State>{NodeLibrary::State::Missing, NodeLibrary::State::Missing}));

        const model::PublishResult result = publish();
        QVERIFY2(result.ok(), qPrintable(result.error));
        QCOMPARE(result.library.version, 1);
        QCOMPARE(states(result.nodes), (QVector<NodeLibrary::State>{NodeLibrary::State::Current, NodeLibrary::State::Current}));
        for (const NodeLibrary &node : result.nodes)
            QCOMPARE(node.digest, result.library.digest);

        const redis::RedisReply record = syncCommand(*m_admin, {"HGETALL", "{pub}:library"});
        QCOMPARE(record.value.field("version")->bytes, QByteArray("1"));
        QCOMPARE(record.value.field("digest")->bytes, result.library.digest);
        QCOMPARE(record.value.field("source")->bytes, result.library.source);
        QCOMPARE(record.value.field("published_by")->bytes, QByteArray("carol"));
        const redis::RedisReply audit = syncCommand(*m_admin, {"XREVRANGE", "{pub}:audit", "+", "-", "COUNT", "1"});
        QCOMPARE(audit.value.elements.first().elements.at(1).field("action")->bytes, QByteArray("publish"));

        // The library answers on both primaries, for keys of the namespace.
        const redis::RedisReply decision = syncCommand(*m_other, {"FCALL", "sluice_acquire", "1", "pub:api:{u}", "api"});
        QCOMPARE(decision.value.elements.value(1).integer, 149);

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
        QVERIFY(syncCommand(*m_other, {"FUNCTION", "FLUSH"}).ok());
        const model::DeploymentStatus drifted = status();
        QVERIFY(drifted.drift());
        QCOMPARE(states(drifted.nodes), (QVector<NodeLibrary::State>{NodeLibrary::State::Current, NodeLibrary::State::Missing}));
        QVERIFY(publish().ok());
        QVERIFY(!status().drift());
    }

    void restartedPrimaryWithoutPersistenceLosesTheLibrary()
    {
        QVERIFY(publish().ok());
        QVERIFY(m_otherServer.restart());
        QVERIFY(test::spinUntil([&] { return m_other->state() == RedisConnection::State::Ready; }, 15000));
        const model::DeploymentStatus drifted = status();
        QCOMPARE(drifted.nodes.at(1).state, NodeLibrary::State::Missing);
        QCOMPARE(drifted.nodes.at(1).persistence, NodeLibrary::Persistence::None);
        QVERIFY(publish().ok());
        QCOMPARE(status().nodes.at(1).state, NodeLibrary::State::Current);
    }

    void olderLibraryIsStale()
    {
        QVERIFY(publish().ok());
        const QByteArray oldSource = syncCommand(*m_admin, {"HGET", "{pub}:library", "source"}).value.bytes;
        store(test::makePolicy(QStringLiteral("api"), model::Algorithm::TokenBucket, 300, 60000, 150));
        QVERIFY(publish().ok());
        QVERIFY(syncCommand(*m_other, {"FUNCTION", "LOAD", "REPLACE", oldSource}).ok());
        const model::DeploymentStatus drifted = status();
        QCOMPARE(drifted.nodes.at(1).state, NodeLibrary::State::Stale);
        QCOMPARE(drifted.nodes.at(1).version, 1);
        QCOMPARE(drifted.published.version, 2);
    }

    void foreignLibrariesAreReported()
    {
        // A library of the same name that is not ours: reported, then replaced by a publish.
        QVERIFY(syncCommand(*m_other, {"FUNCTION", "LOAD",
                                       "#!lua name=sluice\nredis.register_function('hello', function() return 1 end)"})
                    .ok());
        QCOMPARE(status().nodes.at(1).state, NodeLibrary::State::Foreign);
        QVERIFY(publish().ok());
        // Another library that holds our function names: the load fails and says why.
        QVERIFY(syncCommand(*m_other, {"FUNCTION", "FLUSH"}).ok());
        QVERIFY(syncCommand(*m_other, {"FUNCTION", "LOAD",
                                       "#!lua name=other\nredis.register_function('sluice_acquire', function() return 1 end)"})
                    .ok());
        const model::PublishResult blocked = publish();
        QVERIFY(!blocked.ok());
        QVERIFY(blocked.error.isEmpty());
        QCOMPARE(blocked.nodes.at(0).state, NodeLibrary::State::Current);
        QCOMPARE(blocked.nodes.at(1).state, NodeLibrary::State::Missing);
        QVERIFY2(blocked.nodes.at(1).detail.contains(QLatin1String("load failed")) &&
                     blocked.nodes.at(1).detail.contains(QLatin1String("sluice_acquire")),
                 qPrintable(blocked.nodes.at(1).detail));
    }

    void persistenceIsReported()
    {
        QVERIFY(syncCommand(*m_other, {"CONFIG", "SET", "appendonly", "yes"}).ok());
        const model::DeploymentStatus reported = status();
        QCOMPARE(reported.nodes.at(0).persistence, NodeLibrary::Persistence::None);
        QCOMPARE(reported.nodes.at(1).persistence, NodeLibrary::Persistence::Persisted);
        QVERIFY(syncCommand(*m_other, {"CONFIG", "SET", "appendonly", "no"}).ok());
    }

    void recordRefusesAStaleVersion()
    {
        QVERIFY(publish().ok());
        // What a publisher that read version 0 before this publish would send.
        QFile script(QStringLiteral(":/lua/library_record.lua"));
        QVERIFY(script.open(QIODevice::ReadOnly));
        const redis::RedisReply late = syncCommand(*m_admin, {"EVAL", script.readAll(), "2", "{pub}:library", "{pub}:audit",
                                                              "0", "1", "feed", "source", "dave", "1"});
        QVERIFY(late.value.isError());
        QCOMPARE(late.errorText(), QStringLiteral("CONFLICT 1"));
        QCOMPARE(syncCommand(*m_admin, {"HGET", "{pub}:library", "published_by"}).value.bytes, QByteArray("carol"));
    }

    void previewLoadsNothing()
    {
        model::LimiterLibrary preview;
        bool done = false;
        publisher().preview(this, [&](const model::LimiterLibrary &library, const QString &error) {
            QVERIFY(error.isEmpty());
            preview = library;
            done = true;
        });
        QVERIFY(test::spinUntil([&] { return done; }));
        QCOMPARE(preview.version, 1);
        QVERIFY(model::LimiterLibrary::policyTable({}).size() < preview.source.size());
        QVERIFY(preview.source.contains("[\"api\"] = {algorithm = \"token_bucket\", limit = 100"));
        QCOMPARE(syncCommand(*m_admin, {"FUNCTION", "LIST"}).value.elements.size(), 0);
        QCOMPARE(syncCommand(*m_admin, {"EXISTS", "{pub}:library"}).value.integer, 0);
    }
};

QTEST_GUILESS_MAIN(TestLibraryPublisher)
#include "tst_library_publisher.moc"
