// The seed-compatible EVAL scripts against a real Redis: each reads and writes its layout the way
// the original systems do (values, key names, expiry), decides like them, and refuses bad arguments.

#include "model/limiter/reference_limiter.h"
#include "model/limiter/seed_layouts.h"
#include "support/redis_process.h"
#include "support/sync_command.h"

#include <QRandomGenerator>
#include <QTest>

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

    // The token-bucket layouts take the caller's clock, so random traffic on a simulated clock
    // checks every decision against the reference model test-fire draws its expected curve from.
    void tokenBucketLayoutsDecideAsTheirReferenceModels_data()
    {
        QTest::addColumn<SeedLayout>("layout");
        QTest::newRow("scg") << SeedLayout::ScgTokenBucket;
        QTest::newRow("ms") << SeedLayout::MsTokenBucket;
    }

    void tokenBucketLayoutsDecideAsTheirReferenceModels()
    {
        QFETCH(SeedLayout, layout);
        QRandomGenerator random(20261122);
        for (int round = 0; round < 20; ++round) {
            const qint64 rate = random.bounded(1, 6), capacity = random.bounded(3, 12);
            model::ReferenceLimiter reference(layout, rate, 1000, capacity);
            const QByteArray id = "model" + QByteArray::number(round);
            qint64 now = 1'700'000'000'000 + random.bounded(1000);
            for (int step = 0; step < 150; ++step) {
                now += random.bounded(0, 700);
                const qint64 cost = random.bounded(1, 4);
                const model::Decision expected = reference.acquire(now, cost);
                const QByteArray clock = layout == SeedLayout::ScgTokenBucket ? QByteArray::number(now / 1000)
                                                                               : QByteArray::number(now);
                const QByteArrayList args = layout == SeedLayout::ScgTokenBucket
                    ? QByteArrayList{QByteArray::number(rate), QByteArray::number(capacity), clock,
                                     QByteArray::number(cost)}
                    : QByteArrayList{QByteArray::number(rate), QByteArray::number(capacity), QByteArray::number(cost),
                                     clock};
                const RedisReply reply = eval(layout, id, args);
                QVERIFY2(reply.ok(), qPrintable(reply.errorText()));
                const bool allowed
                    = (layout == SeedLayout::ScgTokenBucket ? reply.value.elements.at(0).integer : reply.value.integer)
                    == 1;
                QVERIFY2(allowed == expected.allowed,
                         qPrintable(QStringLiteral("round %1 step %2 at %3 cost %4: script %5, model %6")
                                        .arg(round)
                                        .arg(step)
                                        .arg(now)
                                        .arg(cost)
                                        .arg(allowed)
                                        .arg(QString::fromLatin1(expected.toString()))));
                if (layout == SeedLayout::ScgTokenBucket)
                    QCOMPARE(reply.value.elements.at(1).integer, expected.remaining);
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
