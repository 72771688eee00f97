// SPDX-License-Identifier: GPL-3.0-or-later
// The seed-compatible EVAL scripts against a real Redis: each reads and writes its layout the way
// the original systems do (values, key names, expiry), decides like them, and refuses bad arguments.

#include "model/limiter/reference_limiter.h"
#include "model/limiter/seed_layouts.h"
#include "support/redis_process.h"
#include "support/sync_command.h"

#include <QRandomGenerator>
#include <QTest>

#include <limits>

using namespace sluice;
using model::SeedLayout;
using redis::RedisConnection;
using redis::RedisReply;

class TestSeedScripts : public QObject {
    Q_OBJECT

    test::RedisProcess m_redis;
    std::unique_ptr<RedisConnection> m_connection;

    RedisReply call(const QByteArrayList &args) { return test::syncCommand(*m_connection, args); }

    RedisReply eval(SeedLayout layout, const QByteArray &id, const QByteArrayList &args)
    {
        const QByteArrayList keys = model::seedKeys(layout, id);
        return call(QByteArrayList{"EVAL", model::seedScript(layout), QByteArray::number(keys.size())} + keys + args);
    }

    // A token-bucket layout's script arguments for one call at `nowMs` on the caller's clock.
    static QByteArrayList trafficArgs(SeedLayout layout, const model::SeedParameters &bucket, qint64 nowMs, qint64 cost)
    {
        const QByteArray perWindow = QByteArray::number(bucket.limit), capacity = QByteArray::number(bucket.burst);
        const QByteArray seconds = QByteArray::number(nowMs / 1000), costText = QByteArray::number(cost);
        switch (layout) {
        case SeedLayout::ScgTokenBucket: return {perWindow, capacity, seconds, costText};
        case SeedLayout::MsTokenBucket: return {perWindow, capacity, costText, QByteArray::number(nowMs)};
        case SeedLayout::IntervalTokenBucket:
            return {capacity, perWindow, QByteArray::number(bucket.windowMs / 1000), seconds, costText};
        case SeedLayout::FixedWindowCounter: break;
        }
        return {};
    }

    // Whether a token-bucket layout's reply admitted the call, and the whole tokens left when it says.
    static std::pair<bool, std::optional<qint64>> verdict(SeedLayout layout, const redis::RespValue &reply)
    {
        switch (layout) {
        case SeedLayout::ScgTokenBucket: return {reply.elements.at(0).integer == 1, reply.elements.at(1).integer};
        case SeedLayout::MsTokenBucket: return {reply.integer == 1, std::nullopt};
        case SeedLayout::IntervalTokenBucket:
            if (reply.integer == -1)
                return {false, std::nullopt};
            return {true, reply.integer};
        case SeedLayout::FixedWindowCounter: break;
        }
        return {};
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_redis.start(), qPrintable(m_redis.errorString()));
        m_connection = std::make_unique<RedisConnection>(m_redis.options());
        QVERIFY(test::openAndWait(*m_connection));
    }

    void springCloudGatewayLayout()
    {
        // rate 1/s, capacity 3, the clock given in seconds as the gateway does.
        for (int i = 0; i < 3; ++i)
            QCOMPARE(eval(SeedLayout::ScgTokenBucket, "user1", {"1", "3", "1000", "1"}).value.elements.at(0).integer,
                     1);
        const RedisReply denied = eval(SeedLayout::ScgTokenBucket, "user1", {"1", "3", "1000", "1"});
        QCOMPARE(denied.value.elements.at(0).integer, 0);
        QCOMPARE(denied.value.elements.at(1).integer, 0);
        QCOMPARE(call({"GET", "request_rate_limiter.{user1}.tokens"}).value.bytes, QByteArray("0"));
        QCOMPARE(call({"GET", "request_rate_limiter.{user1}.timestamp"}).value.bytes, QByteArray("1000"));
        QCOMPARE(call({"TTL", "request_rate_limiter.{user1}.tokens"}).value.integer, 6); // capacity / rate * 2
        // Two seconds later two tokens are back.
        const RedisReply later = eval(SeedLayout::ScgTokenBucket, "user1", {"1", "3", "1002", "1"});
        QCOMPARE(later.value.elements.at(0).integer, 1);
        QCOMPARE(later.value.elements.at(1).integer, 1);
        // Without a client clock it reads the server's.
        QCOMPARE(eval(SeedLayout::ScgTokenBucket, "user2", {"1", "3", "", "1"}).value.elements.at(0).integer, 1);
        QVERIFY(call({"GET", "request_rate_limiter.{user2}.timestamp"}).value.bytes.toLongLong() > 1700000000);
        QVERIFY(eval(SeedLayout::ScgTokenBucket, "user3", {"0", "3", "1", "1"}).value.isError());
    }

    void incrementAndExpireCounter()
    {
        QCOMPARE(eval(SeedLayout::FixedWindowCounter, "api:seller7", {"2", "60"}).value.integer, 1);
        QCOMPARE(call({"TTL", "api:seller7"}).value.integer, 60);
        QCOMPARE(eval(SeedLayout::FixedWindowCounter, "api:seller7", {"2", "60"}).value.integer, 2);
        QCOMPARE(eval(SeedLayout::FixedWindowCounter, "api:seller7", {"2", "60"}).value.integer, -1);
        QCOMPARE(call({"GET", "api:seller7"}).value.bytes, QByteArray("3"));
        QVERIFY(eval(SeedLayout::FixedWindowCounter, "api:seller8", {"x", "60"}).value.isError());
        QCOMPARE(call({"EXISTS", "api:seller8"}).value.integer, 0);
    }

    void millisecondBucketLayout()
    {
        // 10 per second, capacity 2, clocks in ms from the caller.
        QCOMPARE(eval(SeedLayout::MsTokenBucket, "bucket:a", {"10", "2", "1", "5000"}).value.integer, 1);
        QCOMPARE(eval(SeedLayout::MsTokenBucket, "bucket:a", {"10", "2", "1", "5000"}).value.integer, 1);
        QCOMPARE(eval(SeedLayout::MsTokenBucket, "bucket:a", {"10", "2", "1", "5050"}).value.integer, 0);
        QCOMPARE(call({"GET", "bucket:a:last"}).value.bytes, QByteArray("5050"));
        QCOMPARE(eval(SeedLayout::MsTokenBucket, "bucket:a", {"10", "2", "1", "5100"}).value.integer, 1);
        QCOMPARE(call({"GET", "bucket:a"}).value.bytes, QByteArray("0"));
        QVERIFY(call({"PTTL", "bucket:a"}).value.integer > 0);
        // A client whose clock runs behind refills nothing: the lesson of seed 004.
        QCOMPARE(eval(SeedLayout::MsTokenBucket, "bucket:a", {"10", "2", "1", "4000"}).value.integer, 0);
    }

    void intervalBucketLayout()
    {
        // Capacity 3, batches of 2 every 10 s, the caller's clock in seconds; one token a call unless asked.
        const auto take = [&](const QByteArray &now, const QByteArrayList &cost = {}) {
            return eval(SeedLayout::IntervalTokenBucket, "quota:u1", QByteArrayList{"3", "2", "10", now} + cost);
        };
        QCOMPARE(take("1000").value.integer, 2); // a new bucket is full
        QCOMPARE(call({"GET", "quota:u1"}).value.bytes, QByteArray("2"));
        QCOMPARE(call({"GET", "quota:u1_time"}).value.bytes, QByteArray("1000"));
        QCOMPARE(call({"TTL", "quota:u1"}).value.integer, 20); // ceil(3 / 2) intervals: an empty bucket fills
        QCOMPARE(call({"TTL", "quota:u1_time"}).value.integer, 21);
        QCOMPARE(take("1005", {"2"}).value.integer, 0);
        // Nothing before a whole interval has passed, and nothing borrowed ahead: the refusal writes nothing.
        QCOMPARE(take("1009").value.integer, -1);
        QCOMPARE(call({"GET", "quota:u1"}).value.bytes, QByteArray("0"));
        QCOMPARE(take("1010").value.integer, 1);
        QCOMPARE(call({"GET", "quota:u1_time"}).value.bytes, QByteArray("1010"));
        // Two whole batches in 25 s, capped at the capacity; the last refill stays on the interval's grid.
        QCOMPARE(take("1035").value.integer, 2);
        QCOMPARE(call({"GET", "quota:u1_time"}).value.bytes, QByteArray("1030"));
        QCOMPARE(take("1035", {"4"}).value.integer, -1);
        // A caller whose clock runs behind refills nothing, and takes nothing away.
        QCOMPARE(take("1000").value.integer, 1);
        QCOMPARE(call({"GET", "quota:u1_time"}).value.bytes, QByteArray("1030"));
        for (const QByteArrayList &bad :
             {QByteArrayList{"0", "2", "10", "1000"}, QByteArrayList{"3", "2", "1.5", "1000"},
              QByteArrayList{"3", "2", "10", "soon"}, QByteArrayList{"3", "2", "10", "inf"},
              QByteArrayList{"3", "2", "10", "1000", "-1"}}) {
            const RedisReply refused = eval(SeedLayout::IntervalTokenBucket, "quota:u2", bad);
            QVERIFY2(refused.value.isError() && refused.errorText().contains(QLatin1String("ERR sluice compat")),
                     bad.join(' ').constData());
        }
        QCOMPARE(call({"EXISTS", "quota:u2", "quota:u2_time"}).value.integer, 0);
    }

    // The token-bucket layouts take the caller's clock, so random traffic on a simulated clock
    // checks every decision against the reference model test-fire draws its expected curve from.
    void tokenBucketLayoutsDecideAsTheirReferenceModels_data()
    {
        QTest::addColumn<SeedLayout>("layout");
        QTest::newRow("scg") << SeedLayout::ScgTokenBucket;
        QTest::newRow("ms") << SeedLayout::MsTokenBucket;
        QTest::newRow("interval") << SeedLayout::IntervalTokenBucket;
    }

    void tokenBucketLayoutsDecideAsTheirReferenceModels()
    {
        QFETCH(SeedLayout, layout);
        const bool interval = layout == SeedLayout::IntervalTokenBucket;
        QRandomGenerator random(20261122);
        for (int round = 0; round < 20; ++round) {
            // A rate per second, or a batch every 2 to 6 s (a key outlives a stalled machine's real second).
            const model::SeedParameters bucket{random.bounded(1, interval ? 5 : 6),
                                               interval ? 1000 * random.bounded(2, 7) : 1000, random.bounded(3, 12)};
            model::ReferenceLimiter reference(layout, bucket.limit, bucket.windowMs, bucket.burst);
            const QByteArray id = model::seedLayoutName(layout).toUtf8() + QByteArray::number(round);
            qint64 now = 1'700'000'000'000 + random.bounded(1000);
            // The interval bucket's keys expire ceil(capacity / batch) intervals after an admitted call, on a
            // server clock that does not follow the simulated one: the test deletes them when that time has
            // passed. (The other buckets' keys expire only once they would be full again.)
            qint64 keysExpireAt = std::numeric_limits<qint64>::max();
            for (int step = 0; step < 150; ++step) {
                // Now and then an idle spell, long enough for a bucket to fill or its keys to expire.
                now += random.bounded(20) == 0 ? random.bounded(0, 40'000) : random.bounded(0, 700);
                const qint64 cost = random.bounded(1, 4);
                if (now > keysExpireAt)
                    QVERIFY(call(QByteArrayList{"DEL"} + model::seedKeys(layout, id)).ok());
                const model::Decision expected = reference.acquire(now, cost);
                const RedisReply reply = eval(layout, id, trafficArgs(layout, bucket, now, cost));
                QVERIFY2(reply.ok(), qPrintable(reply.errorText()));
                const auto [allowed, tokensLeft] = verdict(layout, reply.value);
                QVERIFY2(allowed == expected.allowed,
                         qPrintable(QStringLiteral("round %1 step %2 at %3 cost %4: script %5, model %6")
                                        .arg(round)
                                        .arg(step)
                                        .arg(now)
                                        .arg(cost)
                                        .arg(allowed)
                                        .arg(QString::fromLatin1(expected.toString()))));
                if (tokensLeft)
                    QCOMPARE(*tokensLeft, expected.remaining);
                if (interval && allowed)
                    keysExpireAt = now + (bucket.burst + bucket.limit - 1) / bucket.limit * bucket.windowMs;
            }
        }
    }

    // The counter's window follows the server's clock (EXPIRE), so it runs in real time: five quick
    // calls, then one after the window has gone.
    void counterDecidesAsItsReferenceModel()
    {
        model::ReferenceLimiter reference(SeedLayout::FixedWindowCounter, 3, 1000, 3);
        QElapsedTimer clock;
        clock.start();
        auto fire = [&](QVector<bool> *seen, QVector<bool> *expected) {
            *seen << (eval(SeedLayout::FixedWindowCounter, "model:counter", {"3", "1"}).value.integer != -1);
            *expected << reference.acquire(clock.elapsed(), 1).allowed;
        };
        QVector<bool> seen, expected;
        for (int i = 0; i < 5; ++i)
            fire(&seen, &expected);
        QCOMPARE(seen, (QVector<bool>{true, true, true, false, false}));
        QCOMPARE(seen, expected);
        QTRY_COMPARE_WITH_TIMEOUT(call({"EXISTS", "model:counter"}).value.integer, 0, 3000);
        QTRY_VERIFY(clock.elapsed() >= 1000);
        fire(&seen, &expected);
        QCOMPARE(seen.last(), true);
        QCOMPARE(seen, expected);
    }
};

QTEST_GUILESS_MAIN(TestSeedScripts)
#include "tst_seed_scripts.moc"
