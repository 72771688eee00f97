// SPDX-License-Identifier: GPL-3.0-or-later
// The key inspector against real redis-servers: SCAN-paged browsing finds every bucket of a
// namespace once (and nothing else), a page at a time; each row is what sluice_inspect says;
// filters by policy and subject pattern, bad filters refused without a command sent; a reset is
// recorded in the audit log and leaves the bucket full; a Cluster is browsed on every primary.

#include "model/limiter/bucket_key.h"
#include "model/limiter/bucket_reset.h"
#include "model/limiter/limiter_library.h"
#include "model/policy/audit_log.h"
#include "model/tables/key_inspector_model.h"
#include "support/limiter_support.h"
#include "support/publish_support.h"
#include "support/redis_process.h"
#include "support/sync_command.h"
#include "support/test_services.h"
#include "support/traffic_support.h"

#include <QAbstractItemModelTester>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>

using namespace sluice;
using model::Algorithm;
using model::BucketFilter;
using model::KeyInspectorModel;
using redis::RedisClient;

class TestKeyInspector : public QObject {
    Q_OBJECT

    test::RedisProcess m_redis;
    std::unique_ptr<RedisClient> m_client;
    QString m_ns;
    model::LibraryOwner owner() const { return {m_ns, 0}; }

    void storeAndPublish(RedisClient &client, const QVector<model::Policy> &policies)
    {
        const QString error = test::storeAndPublish(client, m_ns, policies);
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    test::Fired fire(RedisClient &client, const QString &policy, int calls,
                     const std::function<QByteArray(int)> &subjectOf)
    {
        return test::fireAcquires(client, m_ns, policy, calls, subjectOf);
    }

    // (Generous: with QAbstractItemModelTester checking the model on every row read, rereading 3,040 rows
    // took 15 to 20 s on a loaded 2-core machine.)
    static bool pageLoaded(KeyInspectorModel &model)
    {
        return test::spinUntil([&] { return !model.isLoading(); }, 60000);
    }

    // Browses to the end, page by page as a view scrolling down would; the pages it took.
    static int loadAll(KeyInspectorModel &model)
    {
        int pages = 0;
        while (pageLoaded(model) && ++pages && model.canFetchMore({}))
            model.fetchMore({});
        return pages;
    }

    static QSet<QByteArray> shownKeys(const KeyInspectorModel &model)
    {
        QSet<QByteArray> keys;
        for (int row = 0; row < model.rowCount(); ++row)
            keys << model.bucket(row).bucket.key;
        return keys;
    }

    QVector<model::AuditEntry> audit(RedisClient &client)
    {
        const model::AuditLog log(&client, m_ns);
        return test::awaitCallback<model::AuditLog::ReadResult>(
                   [&](QObject *context, auto done) { log.read(QString(), 100, context, done); }, {})
            .entries;
    }

    QString reset(RedisClient &client, const QString &policy, const QByteArray &subject)
    {
        return sluice::model::messageOf(test::awaitCallback<std::optional<sluice::model::Failure>>(
            [&](QObject *context, auto done) {
            model::resetBucket(&client, owner(), policy, subject, QStringLiteral("tester@host (test)"), context, done);
            },
            sluice::model::Failure{sluice::model::Failure::Kind::TimedOut, QStringLiteral("no answer")}));
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_redis.start(), qPrintable(m_redis.errorString()));
        m_client = std::make_unique<RedisClient>(m_redis.options());
        QVERIFY(test::openAndWait(*m_client));
    }

    void init() { m_ns = test::uniqueNamespace("inspect-"); }

    void browsingFindsEveryBucketOnceAPageAtATime()
    {
        storeAndPublish(*m_client,
                        {test::makePolicy(QStringLiteral("api"), Algorithm::TokenBucket, 1, 3600000, 5),
                         test::makePolicy(QStringLiteral("login"), Algorithm::FixedWindow, 3, 3600000)});
        fire(*m_client, QStringLiteral("api"), 3000, [](int i) { return "user-" + QByteArray::number(i); });
        fire(*m_client, QStringLiteral("login"), 5 * 40, [](int i) { return "ip-" + QByteArray::number(i % 40); });
        // Keys that are not buckets of this namespace: admin keys (stored above), a plain key, another
        // namespace's bucket.
        QVERIFY(test::syncCommand(*m_client, {"SET", m_ns.toUtf8() + ":api:notabucket", "1"}).ok());
        QVERIFY(test::syncCommand(*m_client, {"SET", "other-" + m_ns.toUtf8() + ":api:{user-1}", "1"}).ok());

        KeyInspectorModel model(m_client.get(), owner());
        QCOMPARE(sluice::model::messageOf(model.browse({})), QString());
        QVERIFY(pageLoaded(model));
        QVERIFY2(model.rowCount() >= KeyInspectorModel::kPageSize, "the first page is full");
        QVERIFY2(model.rowCount() < 3040, "later pages wait until the view asks for them");
        QVERIFY(model.canFetchMore({}));

        const int pages = loadAll(model);
        QVERIFY2(pages > 1, "several pages");
        // The whole model checked (the tester would have fetched the pages itself above), then scanned again as far
        // as the rows shown went, every row read afresh.
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QElapsedTimer rescan;
        rescan.start();
        model.rescan();
        QVERIFY(pageLoaded(model));
        loadAll(model);
        qInfo("scanned and read again, under the model tester: %lld ms", rescan.elapsed());
        QCOMPARE(model.rowCount(), 3040);
        QCOMPARE(shownKeys(model).size(), 3040);
        QVERIFY(model.scanner().atEnd());
        QVERIFY(model.scanner().problems().isEmpty());
        for (int row = 0; row < model.rowCount(); ++row) {
            const model::InspectedBucket &bucket = model.bucket(row);
            QVERIFY2(bucket.state, qPrintable(bucket.problem));
            QCOMPARE(bucket.bucket.key, model::bucketKey(m_ns, bucket.bucket.policy, bucket.bucket.subject));
            QCOMPARE(bucket.bucket.node, m_client->primaries().first());
            if (bucket.bucket.policy == QLatin1String("login")) {
                QCOMPARE(bucket.state->algorithm, QStringLiteral("fixed_window"));
                QCOMPARE(bucket.state->available, 0);
                QCOMPARE(bucket.state->allowed, quint64(3));
                QCOMPARE(bucket.state->rejected, quint64(2));
            } else {
                QCOMPARE(bucket.state->available, 4);
                QCOMPARE(bucket.state->capacity, 5);
                QVERIFY(bucket.state->ttlMs > 0);
            }
        }
        // What a row shows is what the library says of the bucket now.
        const model::InspectedBucket &first = model.bucket(0);
        const redis::RedisReply peek = test::syncCommand(
            *m_client, {"FCALL_RO", owner().function("peek"), "1", first.bucket.key, first.bucket.policy.toUtf8()});
        QCOMPARE(peek.value.elements.value(1).integer, first.state->available);
        QCOMPARE(model.data(model.index(0, KeyInspectorModel::Available)).toString(),
                 QStringLiteral("%1 of %2").arg(first.state->available).arg(first.state->capacity));
    }

    void filtersNarrowByPolicyAndSubjectPattern()
    {
        storeAndPublish(*m_client,
                        {test::makePolicy(QStringLiteral("api"), Algorithm::TokenBucket, 1, 3600000, 5),
                         test::makePolicy(QStringLiteral("api.v2"), Algorithm::SlidingWindow, 5, 60000)});
        const QByteArrayList subjects{"alice", "alfred", "bob", "a*b", "a?b", "x:y"};
        for (const QString &policy : {QStringLiteral("api"), QStringLiteral("api.v2")})
            fire(*m_client, policy, int(subjects.size()), [&](int i) { return subjects.at(i); });

        const auto browse = [&](const QString &policy, const QString &pattern) {
            KeyInspectorModel model(m_client.get(), owner());
            [&] { QCOMPARE(sluice::model::messageOf(model.browse({policy, pattern})), QString()); }();
            loadAll(model);
            QStringList shown;
            for (int row = 0; row < model.rowCount(); ++row)
                shown << model.bucket(row).bucket.policy + QLatin1Char('/')
                        + QString::fromUtf8(model.bucket(row).bucket.subject);
            shown.sort();
            return shown.join(QLatin1Char(' '));
        };
        QCOMPARE(browse(QStringLiteral("api"), QStringLiteral("al*")), QStringLiteral("api/alfred api/alice"));
        QCOMPARE(browse(QString(), QStringLiteral("al*")),
                 QStringLiteral("api.v2/alfred api.v2/alice api/alfred api/alice"));
        // The policy name is matched as written ('.' is no wildcard), and glob characters in a
        // subject can be escaped.
        QCOMPARE(browse(QStringLiteral("api.v2"), QStringLiteral("a\\*b")), QStringLiteral("api.v2/a*b"));
        QCOMPARE(browse(QStringLiteral("api"), QStringLiteral("a?b")), QStringLiteral("api/a*b api/a?b"));
        QCOMPARE(browse(QStringLiteral("api"), QStringLiteral("x:*")), QStringLiteral("api/x:y"));
        QCOMPARE(browse(QStringLiteral("api"), QStringLiteral("nobody*")), QString());
        QCOMPARE(browse(QStringLiteral("api"), QString()).split(QLatin1Char(' ')).size(), subjects.size());
    }

    void aSubjectWithoutWildcardsIsLookedUpNotScanned()
    {
        storeAndPublish(*m_client, {test::makePolicy(QStringLiteral("api"), Algorithm::TokenBucket, 1, 3600000, 5)});
        fire(*m_client, QStringLiteral("api"), 50, [](int i) { return "user-" + QByteArray::number(i); });
        KeyInspectorModel model(m_client.get(), owner());
        QCOMPARE(sluice::model::messageOf(model.browse({QStringLiteral("api"), QStringLiteral("user-7")})), QString());
        QVERIFY(pageLoaded(model));
        QVERIFY(model.scanner().isExactLookup());
        QCOMPARE(model.scanner().steps(), 0);
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.bucket(0).bucket.subject, QByteArray("user-7"));
        QCOMPARE(model.bucket(0).bucket.node, m_client->primaries().first());
        QCOMPARE(model.bucket(0).state->available, 4);
        QVERIFY(!model.canFetchMore({}));

        QCOMPARE(sluice::model::messageOf(model.browse({QStringLiteral("api"), QStringLiteral("user-70")})), QString());
        QVERIFY(pageLoaded(model));
        QCOMPARE(model.rowCount(), 0);
        // An escaped wildcard is still a pattern: scanned.
        QCOMPARE(sluice::model::messageOf(model.browse({QStringLiteral("api"), QStringLiteral("user\\-7")})),
                 QString());
        QVERIFY(pageLoaded(model));
        QVERIFY(!model.scanner().isExactLookup());
        QCOMPARE(model.rowCount(), 1);
    }

    // A subject's override and block are shown with its bucket (the Rules column), and the available units
    // are counted against the override's capacity.
    void rulesAreShownWithTheBucket()
    {
        model::Policy login = test::makePolicy(QStringLiteral("login"), Algorithm::FixedWindow, 3, 3600000);
        login.blockMs = 600000;
        login.overrides = {{"partner-", true, model::SubjectOverride::Kind::Limits, 50, 0}};
        storeAndPublish(*m_client, {login});
        fire(*m_client, QStringLiteral("login"), 5, [](int) { return QByteArray("mallory"); });
        fire(*m_client, QStringLiteral("login"), 5, [](int) { return QByteArray("partner-9"); });
        KeyInspectorModel model(m_client.get(), owner());
        QCOMPARE(sluice::model::messageOf(model.browse({})), QString());
        QCOMPARE(loadAll(model), 1);
        QCOMPARE(model.rowCount(), 2);
        for (int row = 0; row < 2; ++row) {
            const auto text = [&](int column) { return model.index(row, column).data().toString(); };
            if (model.bucket(row).bucket.subject == "mallory") {
                QVERIFY2(text(KeyInspectorModel::Rules).startsWith(QLatin1String("blocked 9 min")),
                         qPrintable(text(KeyInspectorModel::Rules)));
                QCOMPARE(text(KeyInspectorModel::Available), QStringLiteral("0 of 3"));
            } else {
                QCOMPARE(text(KeyInspectorModel::Rules), QStringLiteral("override partner-*"));
                QCOMPARE(text(KeyInspectorModel::Available), QStringLiteral("45 of 50"));
            }
        }
    }

    void badFiltersAreRefusedAndSendNothing_data()
    {
        QTest::addColumn<QString>("policy");
        QTest::addColumn<QString>("pattern");
        QTest::addColumn<QString>("complaint");
        QTest::newRow("brace") << QString() << QStringLiteral("user{1}") << QStringLiteral("no { or }");
        QTest::newRow("lone escape") << QString() << QStringLiteral("user\\") << QStringLiteral("lone \\");
        QTest::newRow("policy name") << QStringLiteral("api v2") << QString() << QStringLiteral("not a policy name");
        QTest::newRow("glob in policy") << QStringLiteral("api*") << QString() << QStringLiteral("not a policy name");
        QTest::newRow("too long") << QString() << QString(300, QLatin1Char('x')) << QStringLiteral("at most 256 bytes");
    }

    void badFiltersAreRefusedAndSendNothing()
    {
        QFETCH(QString, policy);
        QFETCH(QString, pattern);
        QFETCH(QString, complaint);
        storeAndPublish(*m_client, {test::makePolicy(QStringLiteral("api"), Algorithm::TokenBucket, 1, 3600000, 5)});
        fire(*m_client, QStringLiteral("api"), 3, [](int i) { return "user-" + QByteArray::number(i); });
        KeyInspectorModel model(m_client.get(), owner());
        QCOMPARE(sluice::model::messageOf(model.browse({})), QString());
        loadAll(model);
        QCOMPARE(model.rowCount(), 3);
        const quint64 sent = m_client->commandsSent();
        const auto refused = model.browse({policy, pattern});
        QVERIFY(refused);
        QVERIFY2(refused->message.contains(complaint), qPrintable(refused->message));
        // Nothing sent, and none of the earlier filter's rows left to pass for the refused one's.
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(!model.canFetchMore({}));
        model.rescan();
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(m_client->commandsSent(), sent);
    }

    void aResetIsAuditedAndLeavesTheBucketFull()
    {
        storeAndPublish(*m_client, {test::makePolicy(QStringLiteral("login"), Algorithm::FixedWindow, 3, 3600000)});
        fire(*m_client, QStringLiteral("login"), 7, [](int) { return QByteArray("mallory"); });
        const QByteArray key = model::bucketKey(m_ns, QStringLiteral("login"), "mallory");

        // A read-only connection refuses, and nothing changes.
        RedisClient readOnly(m_redis.options());
        readOnly.setReadOnly(true);
        QVERIFY(test::openAndWait(readOnly));
        QVERIFY(!reset(readOnly, QStringLiteral("login"), "mallory").isEmpty());
        QCOMPARE(test::syncCommand(*m_client, {"EXISTS", key}).value.integer, 1);
        const int entriesBefore = int(audit(*m_client).size());

        QCOMPARE(reset(*m_client, QStringLiteral("login"), "mallory"), QString());
        QCOMPARE(test::syncCommand(*m_client, {"EXISTS", key}).value.integer, 0);
        const redis::RedisReply peek
            = test::syncCommand(*m_client, {"FCALL_RO", owner().function("peek"), "1", key, "login"});
        QCOMPARE(peek.value.elements.value(1).integer, 3); // full again

        const QVector<model::AuditEntry> entries = audit(*m_client);
        QCOMPARE(entries.size(), entriesBefore + 1);
        const model::AuditEntry &entry = entries.first();
        QCOMPARE(entry.action, QStringLiteral("reset"));
        QCOMPARE(entry.policy, QStringLiteral("login"));
        QCOMPARE(entry.subject, QByteArray("mallory"));
        QCOMPARE(entry.who, QStringLiteral("tester@host (test)"));
        QVERIFY(entry.atMs > 0);
        QCOMPARE(entry.bucketState.value(QLatin1String("rejected")).toInteger(), 4);
        QCOMPARE(entry.changeText(),
                 QStringLiteral("reset the bucket of \u201cmallory\u201d (0 of 3 available, 4 rejected)"));

        // A bucket the library cannot read (its policy is not published) is reset all the same, and the record says so.
        QVERIFY(
            test::syncCommand(*m_client, {"SET", model::bucketKey(m_ns, QStringLiteral("ghost"), "x"), "junk"}).ok());
        QCOMPARE(reset(*m_client, QStringLiteral("ghost"), "x"), QString());
        const model::AuditEntry ghost = audit(*m_client).first();
        QVERIFY2(ghost.changeText().contains(QLatin1String("unreadable")), qPrintable(ghost.changeText()));
        QCOMPARE(test::syncCommand(*m_client, {"EXISTS", model::bucketKey(m_ns, QStringLiteral("ghost"), "x")})
                     .value.integer,
                 0);

        // Not a bucket: refused before anything is sent.
        QVERIFY(reset(*m_client, QStringLiteral("login"), "a{b}").contains(QLatin1String("not a bucket")));
    }

    void aResetRowIsReadAgain()
    {
        storeAndPublish(*m_client, {test::makePolicy(QStringLiteral("login"), Algorithm::FixedWindow, 3, 3600000)});
        fire(*m_client, QStringLiteral("login"), 5, [](int) { return QByteArray("eve"); });
        KeyInspectorModel model(m_client.get(), owner());
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(sluice::model::messageOf(model.browse({QStringLiteral("login"), QStringLiteral("eve")})), QString());
        QVERIFY(pageLoaded(model));
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.bucket(0).state->available, 0);
        QCOMPARE(reset(*m_client, QStringLiteral("login"), "eve"), QString());
        model.reread(0);
        QVERIFY(pageLoaded(model));
        QCOMPARE(model.bucket(0).state->available, 3);
        QCOMPARE(model.data(model.index(0, KeyInspectorModel::ExpiresIn)).toString(), QStringLiteral("no key (full)"));
    }

    void aClusterIsBrowsedOnEveryPrimary()
    {
        SLUICE_REQUIRE_SERVICE(seeds, "SLUICE_TEST_CLUSTER_SEEDS", "Redis Cluster");
        RedisClient cluster(test::optionsFor(QStringLiteral("redis://") + seeds.section(QLatin1Char(','), 0, 0)));
        QVERIFY(test::openAndWait(cluster));
        storeAndPublish(cluster, {test::makePolicy(QStringLiteral("api"), Algorithm::TokenBucket, 1, 3600000, 5)});
        fire(cluster, QStringLiteral("api"), 600, [](int i) { return "user-" + QByteArray::number(i); });

        KeyInspectorModel model(&cluster, owner());
        QCOMPARE(sluice::model::messageOf(model.browse({})), QString());
        loadAll(model);
        QCOMPARE(model.scanner().primaries(), 3);
        QCOMPARE(model.rowCount(), 600);
        QCOMPARE(shownKeys(model).size(), 600);
        QSet<QString> nodes;
        for (int row = 0; row < model.rowCount(); ++row) {
            const model::InspectedBucket &bucket = model.bucket(row);
            QVERIFY2(bucket.state, qPrintable(bucket.problem));
            QCOMPARE(bucket.state->available, 4);
            nodes << bucket.bucket.node;
        }
        QCOMPARE(nodes.size(), 3);
        // A looked-up bucket names the primary of its slot, as the scan did.
        const int scanned = [&] {
            for (int row = 0; row < model.rowCount(); ++row)
                if (model.bucket(row).bucket.subject == "user-42")
                    return row;
            return -1;
        }();
        const QString owner = model.bucket(scanned).bucket.node;
        QCOMPARE(sluice::model::messageOf(model.browse({QStringLiteral("api"), QStringLiteral("user-42")})), QString());
        QVERIFY(pageLoaded(model));
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.bucket(0).bucket.node, owner);

        // The audit stream and the bucket are in different slots: the reset is still recorded.
        QCOMPARE(reset(cluster, QStringLiteral("api"), "user-7"), QString());
        QCOMPARE(test::syncCommand(cluster, {"EXISTS", model::bucketKey(m_ns, QStringLiteral("api"), "user-7")})
                     .value.integer,
                 0);
        QCOMPARE(audit(cluster).first().subject, QByteArray("user-7"));
    }

    // A spread policy's subject is one row whose figures sum its buckets, wherever their slots put them; looked
    // up by name too; its reset empties every bucket, each recorded.
    void aSpreadSubjectIsOneRowSummingItsBuckets()
    {
        SLUICE_REQUIRE_SERVICE(seeds, "SLUICE_TEST_CLUSTER_SEEDS", "Redis Cluster");
        RedisClient cluster(test::optionsFor(QStringLiteral("redis://") + seeds.section(QLatin1Char(','), 0, 0)));
        QVERIFY(test::openAndWait(cluster));
        model::Policy search = test::makePolicy(QStringLiteral("search"), Algorithm::FixedWindow, 40, 3600000);
        search.spread = 8;
        storeAndPublish(cluster, {search});
        fire(cluster, QStringLiteral("search"), 100, [](int i) { return model::spreadSubject("global", i % 8); });
        fire(cluster, QStringLiteral("search"), 16, [](int i) { return model::spreadSubject("alice", i % 8); });

        KeyInspectorModel model(&cluster, owner());
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSpreadPolicies({{QStringLiteral("search"), 8}});
        const auto rowsBySubject = [&] {
            loadAll(model);
            QHash<QByteArray, model::BucketState> rows;
            for (int row = 0; row < model.rowCount(); ++row) {
                const model::InspectedBucket &bucket = model.bucket(row);
                if (!bucket.state)
                    qWarning("%s", qPrintable(bucket.problem));
                else
                    rows.insert(bucket.bucket.subject, *bucket.state);
            }
            return rows;
        };
        QCOMPARE(sluice::model::messageOf(model.browse({})), QString());
        auto rows = rowsBySubject();
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(rows.size(), 2);
        QCOMPARE(rows.value("global").capacity, 40);
        QCOMPARE(rows.value("global").available, 0);
        QCOMPARE(rows.value("global").allowed, 40u);
        QCOMPARE(rows.value("global").rejected, 60u);
        QCOMPARE(rows.value("global").buckets, 8);
        QCOMPARE(rows.value("alice").available, 24);
        QCOMPARE(rows.value("alice").allowed, 16u);
        QCOMPARE(model.data(model.index(0, KeyInspectorModel::Node)).toString(), QStringLiteral("8 buckets (spread)"));

        QCOMPARE(sluice::model::messageOf(model.browse({QStringLiteral("search"), QStringLiteral("global")})),
                 QString());
        rows = rowsBySubject();
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(rows.value("global").rejected, 60u);
        // By its name alone, under any policy: the spread subject, not another that starts with it.
        fire(cluster, QStringLiteral("search"), 1, [](int) { return model::spreadSubject("global-2", 3); });
        QCOMPARE(sluice::model::messageOf(model.browse({QString(), QStringLiteral("global")})), QString());
        rows = rowsBySubject();
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(rows.value("global").allowed, 40u);

        const int entriesBefore = int(audit(cluster).size());
        QCOMPARE(reset(cluster, QStringLiteral("search"), "global"), QString());
        for (int bucket = 0; bucket < 8; ++bucket)
            QCOMPARE(test::syncCommand(
                         cluster,
                         {"EXISTS",
                          model::bucketKey(m_ns, QStringLiteral("search"), model::spreadSubject("global", bucket))})
                         .value.integer,
                     0);
        QCOMPARE(audit(cluster).size(), entriesBefore + 8);
        QCOMPARE(sluice::model::messageOf(model.browse({})), QString());
        rows = rowsBySubject();
        QCOMPARE(model.rowCount(), 2);
        QVERIFY(rows.contains("alice") && rows.contains("global-2"));
    }
};

QTEST_GUILESS_MAIN(TestKeyInspector)
#include "tst_key_inspector.moc"
