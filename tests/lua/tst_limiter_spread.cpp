// SPDX-License-Identifier: GPL-3.0-or-later
// Spread policies (Policy::spread): a hot subject's calls go to N buckets in N slots, each holding its
// share of the limit. Every bucket against its exact model (model::spreadPart), the keys that name no
// bucket refused, the policy's counts and most rejected subjects kept as the policy's, the namespace's lists
// applied to the subject, bursts against the documented error bound (model/limiter/spread_bound.h), and a
// global policy's calls spread over the primaries of a 3-primary Cluster.

#include "model/limiter/bucket_key.h"
#include "model/limiter/spread_bound.h"
#include "model/policy/namespace_lists.h"
#include "support/bench_support.h"
#include "support/limiter_support.h"
#include "support/private_cluster.h"
#include "support/publish_support.h"
#include "support/redis_process.h"
#include "support/sync_command.h"
#include "support/test_services.h"
#include "support/traffic_support.h"

#include <QJsonObject>
#include <QRandomGenerator>
#include <QTest>

#include <map>

using namespace sluice;
using model::Algorithm;
using model::Decision;
using redis::RedisReply;

Q_DECLARE_METATYPE(sluice::model::Algorithm)

namespace {

model::Policy spreadPolicy(Algorithm algorithm, qint64 limit, qint64 windowMs, qint64 burst, int spread)
{
    model::Policy policy = test::makePolicy(QStringLiteral("p"), algorithm, limit, windowMs, burst);
    policy.spread = spread;
    return policy;
}

} // namespace

class TestLimiterSpread : public QObject {
    Q_OBJECT

    test::RedisProcess m_redis;
    std::unique_ptr<redis::RedisConnection> m_connection;

    void load(const QVector<model::Policy> &policies, const QVector<model::SubjectOverride> &lists = {})
    {
        QVERIFY(test::syncCommand(*m_connection, {"FLUSHALL"}).ok());
        const QString loaded
            = test::loadLibrary(*m_connection, test::testClockLibrary(policies, QStringLiteral("sluice"), lists));
        QVERIFY2(loaded.isEmpty(), qPrintable(loaded));
    }

    RedisReply call(const QByteArrayList &command) { return test::syncCommand(*m_connection, command); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_redis.start(), qPrintable(m_redis.errorString()));
        m_connection = std::make_unique<redis::RedisConnection>(m_redis.options());
        QVERIFY(test::openAndWait(*m_connection));
    }

    void everyBucketMatchesItsModel_data()
    {
        QTest::addColumn<Algorithm>("algorithm");
        QTest::addColumn<qint64>("limit");
        QTest::addColumn<qint64>("windowMs");
        QTest::addColumn<qint64>("burst");
        QTest::addColumn<int>("spread");
        QTest::addColumn<bool>("lean");
        QTest::addColumn<bool>("lists");
        for (const QString &name : model::algorithmNames()) {
            const Algorithm algorithm = *model::algorithmFromName(name);
            if (algorithm == Algorithm::Concurrency)
                continue; // refused: a lease is released in the bucket that granted it
            // Shares that differ (10 over 3: 4, 3, 3; burst 15: 5 each), and many buckets of a larger limit.
            QTest::addRow("%s: 10 per second, burst 15, over 3", qPrintable(name))
                << algorithm << qint64(10) << qint64(1000) << qint64(15) << 3 << false << false;
            QTest::addRow("%s: 10 per second, burst 15, over 3, sluice_allow", qPrintable(name))
                << algorithm << qint64(10) << qint64(1000) << qint64(15) << 3 << true << false;
            QTest::addRow("%s: 1000 per minute over 16", qPrintable(name))
                << algorithm << qint64(1000) << qint64(60000) << qint64(1000) << 16 << false << false;
            QTest::addRow("%s: 10 per second over 4, namespace lists", qPrintable(name))
                << algorithm << qint64(10) << qint64(1000) << qint64(10) << 4 << false << true;
        }
    }

    // Random traffic (bursts, gaps, costs, some above a bucket's share, peeks) over two subjects' buckets, each
    // picked at random as callers do; every reply against the model of its bucket, field by field.
    void everyBucketMatchesItsModel()
    {
        QFETCH(Algorithm, algorithm);
        QFETCH(qint64, limit);
        QFETCH(qint64, windowMs);
        QFETCH(qint64, burst);
        QFETCH(int, spread);
        QFETCH(bool, lean);
        QFETCH(bool, lists);
        const model::Policy policy = spreadPolicy(algorithm, limit, windowMs, burst, spread);
        const auto problems = model::validatePolicy(policy);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.value(0).toString()));
        QString problem;
        const auto listed
            = model::listEntriesFromJson(QJsonObject{{QStringLiteral("blocked-*"), QStringLiteral("deny")},
                                                     {QStringLiteral("vip"), QStringLiteral("allow")}},
                                         &problem);
        QVERIFY2(listed, qPrintable(problem));
        load({policy}, lists ? *listed : QVector<model::SubjectOverride>());
        const model::Policy decided = lists ? model::withNamespaceLists(policy, *listed) : policy;
        const QByteArrayList subjects
            = lists ? QByteArrayList{"global", "vip", "blocked-7"} : QByteArrayList{"global", "team#4"};

        const quint32 seed = static_cast<quint32>(qHash(QByteArray(QTest::currentDataTag())));
        QRandomGenerator random(seed);
        std::map<QByteArray, model::ReferenceLimiter> models;
        for (const QByteArray &subject : subjects) {
            for (int bucket = 0; bucket < spread; ++bucket)
                models.emplace(model::spreadSubject(subject, bucket),
                               model::ReferenceLimiter(model::spreadPart(decided, bucket), subject));
        }
        const qint64 share = (model::algorithmUsesBurst(algorithm) ? burst : limit) / spread;
        qint64 now = test::kTestClockStart + seed % 100000;
        QByteArray mismatch;
        int pending = 0;
        for (int step = 0; step < 4000 && mismatch.isEmpty(); ++step) {
            const int gap = random.bounded(100);
            if (gap >= 40)
                now += gap < 80 ? 1 + random.bounded(int(std::max<qint64>(1, 2 * windowMs / limit)))
                                : 1 + random.bounded(int(windowMs));
            const QByteArray subject
                = model::spreadSubject(subjects.at(random.bounded(int(subjects.size()))), random.bounded(spread));
            const int roll = random.bounded(100);
            const qint64 cost = roll < 75 ? 1
                : roll < 97               ? 1 + random.bounded(int(std::max<qint64>(1, share)))
                                          : share + 2;
            const bool peek = random.bounded(10) == 0;
            model::ReferenceLimiter &bucket = models.at(subject);
            const Decision expected = peek ? bucket.peek(now, cost) : bucket.acquire(now, cost);
            const QByteArray key = test::bucketKey(policy.name, subject);
            pending += 2;
            const auto counted = [&pending](const RedisReply &) { --pending; };
            m_connection->send({"FCALL", "sluice_test_set_clock", "0", QByteArray::number(now)}, this, counted);
            const QByteArray where = "step " + QByteArray::number(step) + " (" + subject + ", cost "
                + QByteArray::number(cost) + (peek ? ", peek" : "") + "): ";
            const auto check = [&, expected, where, peek](const RedisReply &reply) {
                --pending;
                if (!mismatch.isEmpty())
                    return;
                if (!reply.ok()) {
                    mismatch = where + reply.errorText().toUtf8();
                } else if (lean && !peek) {
                    const QByteArray actual = test::leanReplyText(reply.value);
                    if (actual != test::leanReplyExpected(expected))
                        mismatch = where + "library " + actual + ", model " + test::leanReplyExpected(expected);
                } else {
                    Decision actual;
                    QString why;
                    if (!test::decisionFromReply(reply.value, &actual, &why))
                        mismatch = where + why.toUtf8();
                    else if (!(actual == expected))
                        mismatch = where + "library " + actual.toString() + ", model " + expected.toString();
                }
            };
            const QByteArrayList command{peek ? "FCALL_RO" : "FCALL",
                                         peek ? "sluice_peek" : (lean ? "sluice_allow" : "sluice_acquire"),
                                         "1",
                                         key,
                                         policy.name.toUtf8(),
                                         QByteArray::number(cost)};
            if (peek)
                m_connection->send(command, this, check);
            else
                test::sendKeepingKeys(*m_connection, this, command, {key}, check);
            if (pending > 2000 && !test::spinUntil([&pending] { return pending < 200; }, 120000))
                QFAIL("replies stopped coming");
        }
        QVERIFY2(test::spinUntil([&pending] { return pending == 0; }, 120000), "replies stopped coming");
        QVERIFY2(mismatch.isEmpty(), mismatch.constData());
    }

    // A key that names no bucket of a spread policy, a multi-policy call and a reservation are refused with
    // what was expected, and change nothing.
    void keysThatNameNoBucketAreRefused()
    {
        load({spreadPolicy(Algorithm::FixedWindow, 80, 60000, 0, 8),
              test::makePolicy(QStringLiteral("other"), Algorithm::FixedWindow, 5, 60000)});
        struct Refused {
            QByteArray subject;
            const char *why;
        };
        const Refused refused[] = {
            {"global", "spread over 8 buckets"},
            {"global#8", "i from 0 to 7"},
            {"global#01", "i from 0 to 7"},
            {"#3", "i from 0 to 7"},
            {"global#-1", "i from 0 to 7"},
            {"global#x", "i from 0 to 7"},
            {"global#99999999999999999999", "i from 0 to 7"},
        };
        for (const Refused &bad : refused) {
            for (const char *function : {"sluice_acquire", "sluice_allow", "sluice_peek"}) {
                const RedisReply reply
                    = call({"FCALL", function, "1", test::bucketKey(QStringLiteral("p"), bad.subject), "p"});
                QVERIFY2(!reply.ok() && reply.errorText().contains(QLatin1String(bad.why)),
                         qPrintable(QString::fromUtf8(bad.subject) + QStringLiteral(": ") + reply.errorText()));
            }
        }
        const RedisReply together
            = call({"FCALL", "sluice_acquire", "2", test::bucketKey(QStringLiteral("p"), "global#1"),
                    test::bucketKey(QStringLiteral("other"), "global#1"), "p", "other"});
        QVERIFY2(!together.ok() && together.errorText().contains(QLatin1String("cannot join a multi-policy call")),
                 qPrintable(together.errorText()));
        const RedisReply reserved
            = call({"FCALL", "sluice_reserve", "1", test::bucketKey(QStringLiteral("p"), "global#1"), "p", "3"});
        QVERIFY2(!reserved.ok() && reserved.errorText().contains(QLatin1String("spread over 8 buckets")),
                 qPrintable(reserved.errorText()));
        QCOMPARE(call({"DBSIZE"}).value.integer, 0);
        // The highest bucket and a subject holding '#' of its own are buckets.
        QCOMPARE(call({"FCALL", "sluice_allow", "1", test::bucketKey(QStringLiteral("p"), "global#7"), "p"})
                     .value.elements.at(1)
                     .integer,
                 9);
        QCOMPARE(call({"FCALL", "sluice_allow", "1", test::bucketKey(QStringLiteral("p"), "a#b#0"), "p"})
                     .value.elements.at(1)
                     .integer,
                 9);
        // A subject at the 512-byte bound still has room for its bucket number.
        const QByteArray longest(512, 'x');
        QVERIFY(call({"FCALL", "sluice_allow", "1", test::bucketKey(QStringLiteral("p"), longest + "#7"), "p"}).ok());
        QVERIFY(!call({"FCALL", "sluice_allow", "1", test::bucketKey(QStringLiteral("p"), longest + "x#7"), "p"}).ok());

        // An algorithm without a burst ignores one smaller than the buckets: its buckets hold their limit.
        model::Policy window = spreadPolicy(Algorithm::FixedWindow, 80, 60000, 1, 8);
        QVERIFY(model::validatePolicy(window).isEmpty());
        load({window});
        QCOMPARE(call({"FCALL", "sluice_acquire", "1", test::bucketKey(QStringLiteral("p"), "global#7"), "p"})
                     .value.elements.at(1)
                     .integer,
                 9);
    }

    // The buckets count as one policy: its totals, and its most rejected subject named without a bucket.
    void countsAndMostRejectedAreThePolicys()
    {
        load({spreadPolicy(Algorithm::FixedWindow, 8, 3600000, 0, 4)});
        QVERIFY(call({"FCALL", "sluice_test_set_clock", "0", QByteArray::number(test::kTestClockStart)}).ok());
        for (int i = 0; i < 40; ++i)
            QVERIFY(call({"FCALL", "sluice_allow", "1",
                          test::bucketKey(QStringLiteral("p"), model::spreadSubject("global", i % 4)), "p"})
                        .ok());
        const RedisReply stats = call({"FCALL_RO", "sluice_stats", "0"});
        QVERIFY2(stats.ok() && stats.value.elements.size() >= 6, qPrintable(stats.value.toString()));
        QCOMPARE(stats.value.elements.at(2).bytes, QByteArray("p"));
        QCOMPARE(stats.value.elements.at(3).integer, 8); // two per bucket
        QCOMPARE(stats.value.elements.at(4).integer, 32);
        const RedisReply top = call({"FCALL_RO", "sluice_most_rejected", "0", "p"});
        QVERIFY2(top.ok() && top.value.elements.size() == 6, qPrintable(top.value.toString()));
        QCOMPARE(top.value.elements.at(3).bytes, QByteArray("global"));
        QCOMPARE(top.value.elements.at(4).integer, 32);
        const RedisReply policies = call({"FCALL_RO", "sluice_policies", "0"});
        QCOMPARE(policies.value.elements.at(0).elements.value(10).integer, 4);
    }

    // Bursts of uniformly random picks, as the snippets and sluicectl make them: never more than the limit,
    // the buckets' admissions exactly the model's, and the shortfall against one exact bucket within the
    // documented bound (its chance of being exceeded at most 1e-4 a burst) in every run.
    void burstsStayWithinTheErrorBound()
    {
        constexpr qint64 limit = 1000;
        constexpr int spread = 8;
        constexpr int runs = 100;
        load({spreadPolicy(Algorithm::FixedWindow, limit, 3600000, 0, spread)});
        QVERIFY(call({"FCALL", "sluice_test_set_clock", "0", QByteArray::number(test::kTestClockStart)}).ok());
        const model::Policy policy = spreadPolicy(Algorithm::FixedWindow, limit, 3600000, 0, spread);
        QRandomGenerator random(20261129);
        struct Row {
            qint64 worst = 0, total = 0, bound = 0;
            int runs = 0;
        };
        std::map<qint64, Row> rows;
        int withinBound = 0;
        for (int run = 0; run < runs; ++run) {
            const qint64 calls = QList<qint64>{limit / 2, limit * 9 / 10, limit, limit * 5 / 4, 2 * limit}.at(run % 5);
            const QByteArray subject = "burst-" + QByteArray::number(run);
            QVector<qint64> reached(spread, 0);
            qint64 admitted = 0;
            int pending = 0;
            QString failure;
            for (qint64 i = 0; i < calls; ++i) {
                const int bucket = random.bounded(spread);
                ++reached[bucket];
                ++pending;
                m_connection->send({"FCALL", "sluice_allow", "1",
                                    test::bucketKey(policy.name, model::spreadSubject(subject, bucket)), "p"},
                                   this, [&](const RedisReply &reply) {
                                       --pending;
                                       if (!reply.ok())
                                           failure = reply.errorText();
                                       else
                                           admitted += reply.value.elements.at(0).integer;
                                   });
            }
            QVERIFY2(test::spinUntil([&pending] { return pending == 0; }, 60000), "replies stopped coming");
            QVERIFY2(failure.isEmpty(), qPrintable(failure));
            qint64 modelled = 0;
            for (int bucket = 0; bucket < spread; ++bucket)
                modelled += std::min(reached[bucket], model::spreadPart(policy, bucket).limit);
            QCOMPARE(admitted, modelled);
            QVERIFY(admitted <= limit);
            const qint64 shortfall = std::min(calls, limit) - admitted;
            const qint64 bound
                = model::spreadShortfallBound(limit, spread, calls, model::spreadDeviationBound(calls, spread, 1e-4));
            withinBound += shortfall <= bound ? 1 : 0;
            Row &row = rows[calls];
            row.worst = std::max(row.worst, shortfall);
            row.total += shortfall;
            row.bound = bound;
            ++row.runs;
        }
        qInfo("Spread over %d buckets, limit %lld in one window, %d bursts of uniformly random picks:", spread, limit,
              runs);
        qInfo("| calls in the burst | runs | shortfall, mean | shortfall, worst | bound (chance 1e-4 a burst) |");
        for (const auto &[calls, row] : rows)
            qInfo("| %lld | %d | %.1f | %lld | %lld |", calls, row.runs, double(row.total) / row.runs, row.worst,
                  row.bound);
        qInfo("within the bound: %d of %d runs; more than the limit admitted: never", withinBound, runs);
        QCOMPARE(withinBound, runs);
    }

    // One global policy spread over 16 buckets on a 3-primary Cluster: its calls reach every primary (the
    // server µs each spent in FCALL printed), where the same policy unspread sends all to one.
    void aGlobalPolicySpreadsOverThePrimaries()
    {
        test::PrivateCluster cluster(3, test::RedisProcess::Patience::Quick);
        QVERIFY2(cluster.start(), qPrintable(cluster.errorString()));
        redis::RedisClient client(cluster.options());
        QVERIFY(test::openAndWait(client));
        QTRY_COMPARE_WITH_TIMEOUT(client.primaries().size(), 3, 10000);
        const QString ns = test::uniqueNamespace("spread");
        model::Policy spread = test::makePolicy(QStringLiteral("global"), Algorithm::TokenBucket, 100000, 1000);
        spread.spread = 16;
        const model::Policy single = test::makePolicy(QStringLiteral("single"), Algorithm::TokenBucket, 100000, 1000);
        const QString error = test::storeAndPublish(client, ns, {spread, single});
        QVERIFY2(error.isEmpty(), qPrintable(error));

        std::vector<std::unique_ptr<redis::RedisConnection>> nodes;
        for (int i = 0; i < cluster.size(); ++i) {
            nodes.push_back(std::make_unique<redis::RedisConnection>(cluster.node(i).options()));
            QVERIFY(test::openAndWait(*nodes.back()));
        }
        const auto fcallPerNode = [&]() {
            QVector<QPair<qint64, qint64>> callsAndMicros;
            for (auto &node : nodes) {
                const QByteArray stats = test::syncCommand(*node, {"INFO", "commandstats"}).value.bytes;
                callsAndMicros.append({test::commandStat(stats, "calls").value("fcall"),
                                       test::commandStat(stats, "usec").value("fcall")});
            }
            return callsAndMicros;
        };
        constexpr int calls = 6000;
        for (const model::Policy *policy : std::initializer_list<const model::Policy *>{&single, &spread}) {
            for (auto &node : nodes)
                QVERIFY(test::syncCommand(*node, {"CONFIG", "RESETSTAT"}).ok());
            QRandomGenerator random(7);
            const bool spreadOut = policy->spread > 0;
            const test::Fired fired = test::fireAcquires(client, ns, policy->name, calls, [&](int) {
                return spreadOut ? model::spreadSubject("global", random.bounded(policy->spread))
                                 : QByteArray("global");
            });
            QCOMPARE(fired.allowed + fired.rejected, quint32(calls));
            const auto perNode = fcallPerNode();
            qInfo("%s: %d calls", spreadOut ? "spread over 16 buckets" : "one bucket", calls);
            int reached = 0;
            qint64 total = 0;
            for (int i = 0; i < perNode.size(); ++i) {
                qInfo("  primary %d: %lld calls, %lld server us in FCALL", i + 1, perNode[i].first, perNode[i].second);
                reached += perNode[i].first > 0 ? 1 : 0;
                total += perNode[i].first;
            }
            QCOMPARE(total, qint64(calls));
            if (!spreadOut) {
                QCOMPARE(reached, 1);
                continue;
            }
            QCOMPARE(reached, 3);
            // The buckets' slots decide each primary's share: 16 keys over 3 primaries, each at least 2 buckets.
            for (const auto &[nodeCalls, micros] : perNode)
                QVERIFY2(nodeCalls >= calls / 16, qPrintable(QString::number(nodeCalls)));
        }
    }
};

QTEST_GUILESS_MAIN(TestLimiterSpread)
#include "tst_limiter_spread.moc"
