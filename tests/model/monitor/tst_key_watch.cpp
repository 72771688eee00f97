// SPDX-License-Identifier: GPL-3.0-or-later
// The per-key watch against real redis-servers: every algorithm's level read equals what
// sluice_peek says is available, the bucket's counters and rejections per second follow the
// traffic, the projected refill meets the next reading, a Cluster's keys are read from their
// primaries, the seed systems' keys can be watched, and bad entries are refused.

#include "model/limiter/bucket_key.h"
#include "model/limiter/limiter_library.h"
#include "model/monitor/key_watch.h"
#include "model/monitor/level_projection.h"
#include "support/limiter_support.h"
#include "support/publish_support.h"
#include "support/redis_process.h"
#include "support/sync_command.h"
#include "support/test_services.h"
#include "support/traffic_support.h"

#include <QDateTime>
#include <QTest>

using namespace sluice;
using model::Algorithm;
using model::KeySample;
using model::KeyWatch;
using model::messageOf;
using model::SeedLayout;
using redis::RedisClient;

namespace {

// The id of the key just added; a refusal ends the run with its reason (no id to go on with).
int added(const KeyWatch &watch, const std::optional<model::Failure> &refused)
{
    if (refused)
        qFatal("the watch refused a key: %s", qPrintable(refused->message));
    return watch.keys().last().id;
}

} // namespace

class TestKeyWatch : public QObject {
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

    // Acquires `calls` times, in order; returns how many were rejected.
    int fire(RedisClient &client, const QString &policy, const QByteArray &subject, int calls)
    {
        return int(test::fireAcquires(client, m_ns, policy, calls, [&](int) { return subject; }).rejected);
    }

    qint64 peekRemaining(RedisClient &client, const QString &policy, const QByteArray &subject)
    {
        const redis::RedisReply reply = test::syncCommand(
            client,
            {"FCALL_RO", owner().function("peek"), "1", model::bucketKey(m_ns, policy, subject), policy.toUtf8()});
        return reply.value.elements.value(1, redis::RespValue{}).integer;
    }

    static bool round(KeyWatch &watch)
    {
        const int before = watch.rounds();
        watch.pollNow();
        return test::spinUntil([&] { return watch.rounds() > before; });
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_redis.start(), qPrintable(m_redis.errorString()));
        m_client = std::make_unique<RedisClient>(m_redis.options());
        QVERIFY(test::openAndWait(*m_client));
    }

    void init() { m_ns = test::uniqueNamespace("watch-"); }

    void everyAlgorithmsLevelIsWhatPeekSays()
    {
        // Slow refills: nothing changes between the reading and the peek.
        const QVector<model::Policy> policies{
            test::makePolicy(QStringLiteral("tb"), Algorithm::TokenBucket, 1, 3600000, 8),
            test::makePolicy(QStringLiteral("gc"), Algorithm::Gcra, 1, 3600000, 8),
            test::makePolicy(QStringLiteral("lb"), Algorithm::LeakyBucket, 1, 3600000, 8),
            test::makePolicy(QStringLiteral("fw"), Algorithm::FixedWindow, 8, 604800000),
            test::makePolicy(QStringLiteral("sw"), Algorithm::SlidingWindow, 8, 604800000),
            test::makePolicy(QStringLiteral("sl"), Algorithm::SlidingLog, 8, 3600000),
            test::makePolicy(QStringLiteral("cc"), Algorithm::Concurrency, 8, 3600000),
        };
        storeAndPublish(*m_client, policies);
        KeyWatch watch(m_client.get(), owner());
        for (const model::Policy &policy : policies)
            QCOMPARE(messageOf(watch.addSubject(policy.name, "carol")), QString());
        QVERIFY(round(watch)); // before any traffic: full
        for (const model::WatchedKey &key : watch.keys()) {
            QVERIFY2(key.problem.isEmpty(), qPrintable(key.problem));
            QCOMPARE(key.samples.last().level, 8.0);
            QCOMPARE(key.samples.last().capacity, 8.0);
        }
        for (const model::Policy &policy : policies)
            QCOMPARE(fire(*m_client, policy.name, "carol", 11), 3);
        QVERIFY(round(watch));
        for (const model::WatchedKey &key : watch.keys()) {
            const KeySample &sample = key.samples.last();
            QCOMPARE(sample.level, double(peekRemaining(*m_client, key.policy, "carol")));
            QCOMPARE(sample.allowed, quint64(8));
            QCOMPARE(sample.rejected, quint64(3));
            QVERIFY2(sample.rejectedPerSecond > 0, qPrintable(key.label()));
            QCOMPARE(key.algorithm,
                     model::algorithmName(std::find_if(policies.cbegin(), policies.cend(), [&](const model::Policy &p) {
                                              return p.name == key.policy;
                                          })->algorithm));
        }
    }

    void rejectionsPerSecondAndTheProjectedRefillFollowTheBucket()
    {
        storeAndPublish(*m_client,
                        {test::makePolicy(QStringLiteral("api"), Algorithm::TokenBucket, 10, 1000, 10),
                         test::makePolicy(QStringLiteral("fw"), Algorithm::FixedWindow, 5, 2000)});
        KeyWatch watch(m_client.get(), owner());
        const int api = added(watch, watch.addSubject(QStringLiteral("api"), "dave"));
        QVERIFY(round(watch));
        const int rejected = fire(*m_client, QStringLiteral("api"), "dave", 15);
        // Tokens come back every 100 ms while firing (more of them on a loaded machine): whatever the
        // count, the watch must show exactly it.
        QVERIFY2(rejected >= 1 && rejected <= 5, qPrintable(QString::number(rejected)));
        QVERIFY(round(watch));
        const KeySample drained = watch.key(api)->samples.last();
        const KeySample before = watch.key(api)->samples.at(0);
        QCOMPARE(drained.rejected, quint64(rejected));
        QCOMPARE(drained.rejectedPerSecond, rejected * 1000.0 / double(drained.timeMs - before.timeMs));
        QVERIFY(drained.level <= 1);
        QVERIFY(drained.resetAfterMs > 800 && drained.resetAfterMs <= 1000);

        // The projected line drawn from the drained reading meets the next reading (whole tokens).
        QTest::qWait(450);
        QVERIFY(round(watch));
        const KeySample next = watch.key(api)->samples.last();
        const QVector<QPointF> projected = model::projectedLevel(QStringLiteral("token_bucket"),
                                                                 watch.key(api)->samples, drained.timeMs, next.timeMs);
        const auto at = std::find_if(projected.cbegin(), projected.cend(),
                                     [&](const QPointF &p) { return qint64(p.x()) == next.timeMs; });
        QVERIFY(at != projected.cend());
        QVERIFY2(std::abs(at->y() - next.level) < 1.0,
                 qPrintable(QStringLiteral("projected %1, read %2").arg(at->y()).arg(next.level)));
        QCOMPARE(next.rejectedPerSecond, 0.0);
    }

    void projectionShapes()
    {
        model::BoundedRing<KeySample> samples(10);
        samples.append({1000, 2, 10, 800, 0, 0, 0});
        samples.append({2000, 4, 10, 600, 0, 0, 0});
        // Continuous: 2 -> 10 over 800 ms, flat at 10 until the next reading at 2000.
        QCOMPARE(model::projectedLevel(QStringLiteral("token_bucket"), samples, 0, 2500),
                 (QVector<QPointF>{{1000, 2}, {1800, 10}, {2000, 10}, {2000, 4}, {2500, 4 + 6 * (500.0 / 600)}}));
        // A fixed window stays until its end, then is whole again.
        QCOMPARE(model::projectedLevel(QStringLiteral("fixed_window"), samples, 0, 2500),
                 (QVector<QPointF>{{1000, 2}, {1800, 2}, {1800, 10}, {2000, 10}, {2000, 4}, {2500, 4}}));
        // Unknown capacity (a seed layout) stays flat.
        model::BoundedRing<KeySample> raw(4);
        raw.append({1000, 7, -1, -1, 0, 0, 0});
        QCOMPARE(model::projectedLevel(QStringLiteral("scg_token_bucket"), raw, 0, 1500),
                 (QVector<QPointF>{{1000, 7}, {1500, 7}}));
    }

    void clusterKeysAreReadFromTheirPrimaries()
    {
        SLUICE_REQUIRE_SERVICE(seeds, "SLUICE_TEST_CLUSTER_SEEDS", "Redis Cluster");
        RedisClient cluster(test::optionsFor(QStringLiteral("redis://") + seeds.section(QLatin1Char(','), 0, 0)));
        QVERIFY(test::openAndWait(cluster));
        storeAndPublish(cluster, {test::makePolicy(QStringLiteral("api"), Algorithm::TokenBucket, 1, 3600000, 20)});
        KeyWatch watch(&cluster, owner());
        for (int i = 0; i < 9; ++i) {
            const QByteArray subject = "user-" + QByteArray::number(i);
            QCOMPARE(messageOf(watch.addSubject(QStringLiteral("api"), subject)), QString());
            fire(cluster, QStringLiteral("api"), subject, i);
        }
        QVERIFY(round(watch));
        QSet<QString> owners;
        for (const model::WatchedKey &key : watch.keys()) {
            QVERIFY2(key.problem.isEmpty(), qPrintable(key.problem));
            QCOMPARE(key.samples.last().level, double(peekRemaining(cluster, QStringLiteral("api"), key.subject)));
            QCOMPARE(key.samples.last().allowed, quint64(key.subject.mid(5).toInt()));
            owners << test::syncCommand(cluster, {"CLUSTER", "KEYSLOT", key.key}).value.toString();
        }
        QVERIFY2(owners.size() >= 3, "keys in several slots");
    }

    void seedLayoutKeysAreWatched()
    {
        const auto eval = [&](SeedLayout layout, const QByteArray &id, const QByteArrayList &args) {
            const QByteArrayList keys = model::seedKeys(layout, id);
            return test::syncCommand(*m_client,
                                     QByteArrayList{"EVAL", model::seedScript(layout), QByteArray::number(keys.size())}
                                         + keys + args);
        };
        QVERIFY(eval(SeedLayout::ScgTokenBucket, "gw-user", {"1", "5", "", "1"}).ok());
        QVERIFY(eval(SeedLayout::FixedWindowCounter, "api:seller9", {"10", "60"}).ok());
        QVERIFY(eval(SeedLayout::FixedWindowCounter, "api:seller9", {"10", "60"}).ok());
        QVERIFY(eval(SeedLayout::MsTokenBucket, "bucket:b", {"10", "5", "1", "5000"}).ok());
        // An interval bucket (capacity 10, 2 every 60 s) emptied 130 s ago on the caller's clock.
        const qint64 nowSeconds = QDateTime::currentSecsSinceEpoch();
        QVERIFY(eval(SeedLayout::IntervalTokenBucket, "quota:b",
                     {"10", "2", "60", QByteArray::number(nowSeconds - 130), "10"})
                    .ok());
        KeyWatch watch(m_client.get(), owner());
        const int scg = added(watch, watch.addSeedKey(SeedLayout::ScgTokenBucket, "gw-user", std::nullopt));
        const int counter = added(watch, watch.addSeedKey(SeedLayout::FixedWindowCounter, "api:seller9", std::nullopt));
        const int ms = added(watch, watch.addSeedKey(SeedLayout::MsTokenBucket, "bucket:b", std::nullopt));
        const int missing = added(watch, watch.addSeedKey(SeedLayout::FixedWindowCounter, "api:nobody", std::nullopt));
        const int stored = added(watch, watch.addSeedKey(SeedLayout::IntervalTokenBucket, "quota:b", std::nullopt));
        // The same bucket refilled to now: two whole batches in 130 s, full after three more (at 300 s).
        KeyWatch refilling(m_client.get(), owner());
        const int refilled = added(
            refilling,
            refilling.addSeedKey(SeedLayout::IntervalTokenBucket, "quota:b", model::SeedParameters{2, 60000, 10}));
        QVERIFY(round(watch));
        QVERIFY(round(refilling));
        QCOMPARE(watch.key(scg)->samples.last().level, 4.0);
        QCOMPARE(watch.key(counter)->samples.last().level, 2.0);
        QVERIFY(watch.key(counter)->samples.last().resetAfterMs > 58000);
        QCOMPARE(watch.key(ms)->samples.last().level, 4.0);
        QCOMPARE(watch.key(stored)->samples.last().level, 0.0);
        QCOMPARE(watch.key(stored)->samples.last().capacity, -1.0);
        const KeySample now = refilling.key(refilled)->samples.last();
        QCOMPARE(now.capacity, 10.0);
        QVERIFY2(now.level == 4.0 && now.resetAfterMs > 120000 && now.resetAfterMs <= 170000,
                 qPrintable(QStringLiteral("%1 tokens, full in %2 ms").arg(now.level).arg(now.resetAfterMs)));
        QVERIFY(watch.key(missing)->samples.isEmpty());
        QVERIFY2(watch.key(missing)->problem.contains(QLatin1String("does not exist")),
                 qPrintable(watch.key(missing)->problem));
        QVERIFY(test::syncCommand(*m_client, {"SET", "api:text", "lots"}).ok());
        const int text = added(watch, watch.addSeedKey(SeedLayout::FixedWindowCounter, "api:text", std::nullopt));
        // An interval bucket's time key holds a whole number too, but it is not taken for a counter.
        const int time = added(watch, watch.addSeedKey(SeedLayout::FixedWindowCounter, "quota:b_time", std::nullopt));
        QVERIFY(round(watch));
        QVERIFY2(watch.key(text)->problem.contains(QLatin1String("does not hold a whole number")),
                 qPrintable(watch.key(text)->problem));
        QVERIFY2(watch.key(time)->problem.contains(QLatin1String("is a key of a bucket with quota:b,")),
                 qPrintable(watch.key(time)->problem));
    }

    void badEntriesAreRefused()
    {
        KeyWatch watch(m_client.get(), owner());
        QCOMPARE(messageOf(watch.addSubject(QString(), "x")), QStringLiteral("Choose a policy."));
        QVERIFY(watch.addSubject(QStringLiteral("api"), ""));
        QVERIFY(messageOf(watch.addSubject(QStringLiteral("api"), "a{b")).contains(QLatin1String("no { or }")));
        QVERIFY(watch.addSeedKey(SeedLayout::MsTokenBucket, "", std::nullopt));
        QCOMPARE(messageOf(watch.addSubject(QStringLiteral("api"), "x")), QString());
        QVERIFY(messageOf(watch.addSubject(QStringLiteral("api"), "x")).contains(QLatin1String("already watched")));
        for (int i = 1; i < KeyWatch::kMaxKeys; ++i)
            QCOMPARE(messageOf(watch.addSubject(QStringLiteral("api"), "s" + QByteArray::number(i))), QString());
        QVERIFY(
            messageOf(watch.addSubject(QStringLiteral("api"), "one-too-many")).contains(QLatin1String("At most 200")));
        QCOMPARE(watch.keys().size(), KeyWatch::kMaxKeys);
    }
};

QTEST_GUILESS_MAIN(TestKeyWatch)
#include "tst_key_watch.moc"
