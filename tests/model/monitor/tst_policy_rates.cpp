// SPDX-License-Identifier: GPL-3.0-or-later
// Per-policy rates as the dashboard samples them, against real redis-servers: every sample holds
// exactly the decisions taken between two readings, a republished library starts the differences
// afresh, a Cluster's primaries are summed, a server that stops answering skips ticks, and the
// series stay within their bounds.

#include "model/monitor/policy_rate_sampler.h"
#include "model/monitor/rejected_tally.h"
#include "model/monitor/top_rejected.h"
#include "model/policy/policy_store.h"
#include "support/limiter_support.h"
#include "support/publish_support.h"
#include "support/redis_process.h"
#include "support/sync_command.h"
#include "support/test_services.h"
#include "support/traffic_support.h"

#include <QRandomGenerator>
#include <QTest>

using namespace sluice;
using model::Algorithm;
using model::PolicyRateSampler;
using model::RateHistory;
using model::RatePoint;
using model::RateSample;
using redis::RedisClient;

namespace {

using test::Fired;

// Pipelined acquires rotating over `subjects` subjects.
Fired fire(RedisClient &client, const QString &ns, const QString &policy, int calls, int subjects)
{
    return test::fireAcquires(client, ns, policy, calls,
                              [subjects](int i) { return "s" + QByteArray::number(i % subjects); });
}

const model::PolicyRate *rateOf(const RateSample &sample, const QString &policy)
{
    for (const model::PolicyRate &rate : sample.policies)
        if (rate.policy == policy)
            return &rate;
    return nullptr;
}

} // namespace

class TestPolicyRates : public QObject {
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

    // Takes one reading and returns the sample it produced (none for a baseline).
    std::optional<RateSample> readOnce(PolicyRateSampler &sampler)
    {
        std::optional<RateSample> produced;
        QMetaObject::Connection connection
            = connect(&sampler, &PolicyRateSampler::sampled, [&](const RateSample &sample) { produced = sample; });
        const int before = sampler.readings();
        sampler.sampleNow();
        test::spinUntil([&] { return sampler.readings() > before; });
        disconnect(connection);
        return produced;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_redis.start(), qPrintable(m_redis.errorString()));
        m_client = std::make_unique<RedisClient>(m_redis.options());
        QVERIFY(test::openAndWait(*m_client));
    }

    void init() { m_ns = test::uniqueNamespace("rates-"); }

    void everySampleHoldsExactlyTheDecisionsBetweenReadings()
    {
        storeAndPublish(*m_client,
                        {test::makePolicy(QStringLiteral("api"), Algorithm::FixedWindow, 20, 60000),
                         test::makePolicy(QStringLiteral("idle"), Algorithm::TokenBucket, 5, 1000)});
        RedisClient traffic(m_redis.options());
        QVERIFY(test::openAndWait(traffic));
        PolicyRateSampler sampler(m_client.get(), owner());
        QVERIFY(!readOnce(sampler)); // the baseline
        quint64 allowedTotal = 0;
        quint64 rejectedTotal = 0;
        for (int round = 1; round <= 6; ++round) {
            const Fired fired = fire(traffic, m_ns, QStringLiteral("api"), 37 * round, 3 + round);
            QVERIFY(fired.rejected > 0 || round == 1);
            const std::optional<RateSample> sample = readOnce(sampler);
            QVERIFY(sample);
            const model::PolicyRate *api = rateOf(*sample, QStringLiteral("api"));
            QVERIFY(api);
            QCOMPARE(api->point.allowed, fired.allowed);
            QCOMPARE(api->point.rejected, fired.rejected);
            allowedTotal += fired.allowed;
            rejectedTotal += fired.rejected;
            QCOMPARE(api->allowedTotal, allowedTotal);
            QCOMPARE(api->rejectedTotal, rejectedTotal);
            QVERIFY(api->point.spanMs > 0);
            QCOMPARE(api->point.endMs, sample->endMs);
            const model::PolicyRate *idle = rateOf(*sample, QStringLiteral("idle"));
            QVERIFY(idle);
            QCOMPARE(idle->point.allowed + idle->point.rejected, 0u);
            QVERIFY(sample->missingNodes.isEmpty());
            QVERIFY(sample->problems.isEmpty());
        }
        const RateHistory *history = sampler.history(QStringLiteral("api"));
        QVERIFY(history);
        const QVector<RatePoint> points = history->points(0, std::numeric_limits<qint64>::max());
        QCOMPARE(points.size(), 6);
        quint64 summed = 0;
        for (const RatePoint &point : points)
            summed += point.allowed + point.rejected;
        QCOMPARE(summed, allowedTotal + rejectedTotal);
    }

    void aRepublishStartsTheDifferencesAfresh()
    {
        storeAndPublish(*m_client, {test::makePolicy(QStringLiteral("api"), Algorithm::FixedWindow, 10, 60000)});
        PolicyRateSampler sampler(m_client.get(), owner());
        QVERIFY(!readOnce(sampler));
        QCOMPARE(fire(*m_client, m_ns, QStringLiteral("api"), 30, 1).rejected, 20u);
        QCOMPARE(rateOf(*readOnce(sampler), QStringLiteral("api"))->point.rejected, 20u);

        // A changed policy is a new library: its counts restart from zero, and what it decided
        // after the previous reading is this sample's, not a negative difference.
        storeAndPublish(*m_client,
                        {test::makePolicy(QStringLiteral("api"), Algorithm::FixedWindow, 11, 60000),
                         test::makePolicy(QStringLiteral("new"), Algorithm::FixedWindow, 1, 60000)});
        const Fired api = fire(*m_client, m_ns, QStringLiteral("api"), 5, 1);
        const Fired added = fire(*m_client, m_ns, QStringLiteral("new"), 3, 1);
        const std::optional<RateSample> sample = readOnce(sampler);
        QVERIFY(sample);
        QCOMPARE(rateOf(*sample, QStringLiteral("api"))->point.allowed, api.allowed);
        QCOMPARE(rateOf(*sample, QStringLiteral("api"))->point.rejected, api.rejected);
        QCOMPARE(rateOf(*sample, QStringLiteral("new"))->point.allowed, 1u);
        QCOMPARE(rateOf(*sample, QStringLiteral("new"))->point.rejected, 2u);
        QCOMPARE(added.rejected, 2u);
        QCOMPARE(rateOf(*sample, QStringLiteral("api"))->allowedTotal, quint64(api.allowed));
    }

    void aClusterIsSummedOverItsPrimaries()
    {
        SLUICE_REQUIRE_SERVICE(seeds, "SLUICE_TEST_CLUSTER_SEEDS", "Redis Cluster");
        RedisClient cluster(test::optionsFor(QStringLiteral("redis://") + seeds.section(QLatin1Char(','), 0, 0)));
        QVERIFY(test::openAndWait(cluster));
        QCOMPARE(cluster.primaries().size(), 3);
        storeAndPublish(cluster, {test::makePolicy(QStringLiteral("api"), Algorithm::SlidingWindow, 4, 60000)});
        RedisClient traffic(test::optionsFor(QStringLiteral("redis://") + seeds.section(QLatin1Char(','), 1, 1)));
        QVERIFY(test::openAndWait(traffic));
        PolicyRateSampler sampler(&cluster, owner());
        QVERIFY(!readOnce(sampler));

        // 40 subjects land on every primary; each primary counts its own.
        const quint64 sentBefore = cluster.commandsSent();
        const Fired fired = fire(traffic, m_ns, QStringLiteral("api"), 400, 40);
        QCOMPARE(fired.allowed, 160u);
        QCOMPARE(fired.rejected, 240u);
        const std::optional<RateSample> sample = readOnce(sampler);
        QVERIFY(sample);
        QCOMPARE(rateOf(*sample, QStringLiteral("api"))->point.allowed, 160u);
        QCOMPARE(rateOf(*sample, QStringLiteral("api"))->point.rejected, 240u);
        // One reading is one command per primary: the dashboard's load is what it says.
        QCOMPARE(cluster.commandsSent() - sentBefore, quint64(3));

        int perPrimary[3] = {0, 0, 0};
        for (int i = 0; i < 3; ++i) {
            const redis::RedisReply reply = [&] {
                redis::RedisReply result;
                bool done = false;
                QObject context;
                cluster.sendToNode(cluster.primaries().at(i),
                                   {"FCALL_RO", owner().function("stats"), "0", "9007199254740991"}, &context,
                                   [&](const redis::RedisReply &r) {
                    result = r;
                    done = true;
                });
                test::spinUntil([&] { return done; });
                return result;
            }();
            QString problem;
            const auto reading = model::StatsReading::parse(reply.value, &problem);
            QVERIFY2(reading, qPrintable(problem));
            perPrimary[i] = int(reading->totals.value(QStringLiteral("api")).allowed);
        }
        QVERIFY2(perPrimary[0] > 0 && perPrimary[1] > 0 && perPrimary[2] > 0, "every primary decided some");
        QCOMPARE(perPrimary[0] + perPrimary[1] + perPrimary[2], 160);
    }

    void mostRejectedSubjectsAreMergedOverTheClusterPrimaries()
    {
        SLUICE_REQUIRE_SERVICE(seeds, "SLUICE_TEST_CLUSTER_SEEDS", "Redis Cluster");
        RedisClient cluster(test::optionsFor(QStringLiteral("redis://") + seeds.section(QLatin1Char(','), 0, 0)));
        QVERIFY(test::openAndWait(cluster));
        storeAndPublish(cluster, {test::makePolicy(QStringLiteral("api"), Algorithm::TokenBucket, 1, 3600000, 2)});
        model::TopRejectedPoller poller(&cluster, owner());
        model::RejectedTally tally;
        const auto pollOnce = [&] {
            const qint64 before = poller.last().nowMs;
            poller.pollNow();
            return test::spinUntil([&] { return poller.last().nowMs > before; });
        };
        poller.setPolicy(QStringLiteral("api"));
        QVERIFY(pollOnce()); // the baseline the differences start from
        tally.add(poller.last());
        // Subject i is rejected i times: 2 admitted of i + 2 calls. Twelve subjects spread over
        // the three primaries.
        QVector<model::RejectedSubject> expected;
        for (int i = 1; i <= 12; ++i) {
            const QByteArray subject = "user-" + QByteArray::number(i);
            QCOMPARE(
                test::fireAcquires(cluster, m_ns, QStringLiteral("api"), i + 2, [&](int) { return subject; }).rejected,
                quint32(i));
            expected.prepend({subject, quint64(i), 0, {}});
        }
        test::fireAcquires(cluster, m_ns, QStringLiteral("api"), 2, [](int) { return QByteArray("never-rejected"); });
        QVERIFY(pollOnce());
        const model::TopRejected &top = poller.last();
        QVERIFY2(top.problems.isEmpty(), qPrintable(top.problems.join(QLatin1Char('\n'))));
        QCOMPARE(top.readings.size(), 3);
        tally.add(top);
        const model::RejectedTally::Result result = tally.over(model::RejectedTally::kLongestWindowMs);
        QCOMPARE(result.subjects.size(), expected.size());
        QSet<QString> nodes;
        for (int i = 0; i < expected.size(); ++i) {
            QCOMPARE(result.subjects.at(i).subject, expected.at(i).subject);
            QCOMPARE(result.subjects.at(i).rejections, expected.at(i).rejections);
            QCOMPARE(result.subjects.at(i).shortBy, quint64(0));
            nodes << result.subjects.at(i).node;
        }
        QCOMPARE(nodes.size(), 3); // every primary contributed
        QCOMPARE(result.unlistedAtMost, quint64(0));
    }

    void aSilentServerSkipsTicksAndIsCountedLater()
    {
        test::RedisProcess server(test::RedisProcess::Patience::Quick);
        QVERIFY(server.start());
        RedisClient client(server.options());
        QVERIFY(test::openAndWait(client));
        storeAndPublish(client, {test::makePolicy(QStringLiteral("api"), Algorithm::FixedWindow, 1, 60000)});
        PolicyRateSampler sampler(&client, owner());
        sampler.setIntervalMs(100); // below the range: clamped
        QCOMPARE(sampler.intervalMs(), PolicyRateSampler::kMinIntervalMs);
        QVERIFY(!readOnce(sampler));
        QCOMPARE(fire(client, m_ns, QStringLiteral("api"), 4, 1).rejected, 3u);
        server.freeze();
        sampler.start();
        QTest::qWait(1200);
        QVERIFY2(sampler.skippedTicks() >= 3, qPrintable(QString::number(sampler.skippedTicks())));
        server.thaw();
        // The reading that was waiting completes; the decisions taken before are in it.
        QVERIFY(test::spinUntil([&] { return sampler.lastSample().endMs > 0; }));
        quint32 rejected = 0;
        for (const RatePoint &point :
             sampler.history(QStringLiteral("api"))->points(0, std::numeric_limits<qint64>::max()))
            rejected += point.rejected;
        QCOMPARE(rejected, 3u);
    }

    void aServerWithoutTheLibraryIsAProblemNotASample()
    {
        test::RedisProcess server(test::RedisProcess::Patience::Quick);
        QVERIFY(server.start());
        RedisClient client(server.options());
        QVERIFY(test::openAndWait(client));
        PolicyRateSampler sampler(&client, owner());
        const std::optional<RateSample> sample = readOnce(sampler);
        QVERIFY(sample);
        QCOMPARE(sample->problems.size(), 1);
        QVERIFY2(sample->problems.first().contains(QLatin1String("no limiter library")),
                 qPrintable(sample->problems.first()));
        QVERIFY(sample->policies.isEmpty());
    }

    void malformedRepliesAreRefused_data()
    {
        QTest::addColumn<QByteArray>("script");
        QTest::newRow("not an array") << QByteArray("return 5");
        QTest::newRow("too short") << QByteArray("return {1}");
        QTest::newRow("time as text") << QByteArray("return {'x', 1}");
        QTest::newRow("cut policy") << QByteArray("return {1, 1, 'api', 1}");
        QTest::newRow("negative total") << QByteArray("return {1, 1, 'api', -1, 0, {}}");
        QTest::newRow("total as text") << QByteArray("return {1, 1, 'api', 'many', 0, {}}");
    }

    void malformedRepliesAreRefused()
    {
        QFETCH(QByteArray, script);
        const redis::RedisReply reply = test::syncCommand(*m_client, {"EVAL", script, "0"});
        QString problem;
        QVERIFY(!model::StatsReading::parse(reply.value, &problem));
        QVERIFY(!problem.isEmpty());
    }

    void historiesAreBoundedRings()
    {
        // An hour at 1 s fits as it came; a day at 250 ms keeps 3600 recent samples and steps of
        // 24 s behind them; the points reach back exactly the retention.
        RateHistory hour(60 * 60 * 1000, 1000);
        QCOMPARE(hour.consolidationStepMs(), 0);
        RateHistory day(24 * 60 * 60 * 1000, 250);
        QCOMPARE(day.consolidationStepMs(), 24000);
        const qint64 start = 1'700'000'000'000;
        quint64 fed = 0;
        for (int i = 1; i <= 2 * 24 * 60 * 60 * 4; ++i) { // two days at 250 ms
            const RatePoint point{start + i * 250, 250, quint32(i % 7), 1};
            day.append(point);
            hour.append(point);
            if (point.endMs > start + 2 * 24 * 3600 * 1000 - 24 * 3600 * 1000)
                fed += point.allowed;
        }
        const qint64 end = start + 2 * 24 * 3600 * 1000;
        QCOMPARE(hour.points(0, end).size(), 3600);
        QCOMPARE(hour.points(0, end).first().endMs, end - 3599 * 250);
        const QVector<RatePoint> kept = day.points(0, end);
        QVERIFY2(kept.size() <= 2 * RateHistory::kMaxPoints, qPrintable(QString::number(kept.size())));
        QCOMPARE(kept.last().endMs, end);
        QVERIFY(kept.first().endMs <= end - 24 * 3600 * 1000 + 24000);
        // Consolidation keeps every decision: the sums over the retained day match what was fed
        // (up to the one step the retention edge cuts).
        quint64 summed = 0;
        for (const RatePoint &point : kept)
            summed += point.allowed;
        QVERIFY2(summed <= fed && fed - summed <= 96 * 6, qPrintable(QStringLiteral("%1 of %2").arg(summed).arg(fed)));
        QVERIFY(day.bytes() <= 2 * RateHistory::kMaxPoints * qint64(sizeof(RatePoint)));
        // Points are time-ordered with no overlap between the two parts.
        for (int i = 1; i < kept.size(); ++i)
            QVERIFY(kept.at(i).endMs > kept.at(i - 1).endMs);
    }

    void changingIntervalOrRetentionKeepsTheSeries()
    {
        storeAndPublish(*m_client, {test::makePolicy(QStringLiteral("api"), Algorithm::FixedWindow, 2, 60000)});
        PolicyRateSampler sampler(m_client.get(), owner());
        QVERIFY(!readOnce(sampler));
        fire(*m_client, m_ns, QStringLiteral("api"), 5, 1);
        QVERIFY(readOnce(sampler));
        sampler.setRetentionMs(48LL * 3600 * 1000); // above the range: clamped
        QCOMPARE(sampler.retentionMs(), PolicyRateSampler::kMaxRetentionMs);
        sampler.setIntervalMs(5000);
        const QVector<RatePoint> kept
            = sampler.history(QStringLiteral("api"))->points(0, std::numeric_limits<qint64>::max());
        QCOMPARE(kept.size(), 1);
        QCOMPARE(kept.first().rejected, 3u);
    }
};

QTEST_GUILESS_MAIN(TestPolicyRates)
#include "tst_policy_rates.moc"
