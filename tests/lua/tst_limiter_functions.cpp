// SPDX-License-Identifier: GPL-3.0-or-later
// The limiter library's contract against a real redis-server: error replies that name the problem
// and change nothing, all-or-nothing decisions over several policies, shadow mode, leases, the
// queue delay, expiry of idle buckets, exact per-policy counts, policy data that tries to become
// Lua code, quotas past 2^52 (a day, a week) with exact replies, and non-finite buckets as foreign
// data.

#include "model/limiter/bucket_key.h"
#include "model/limiter/limiter_library.h"
#include "model/limiter/lua_source.h"
#include "model/monitor/policy_rate_sampler.h"
#include "model/monitor/rejected_tally.h"
#include "support/limiter_support.h"
#include "support/limiter_test_case.h"
#include "support/redis_process.h"
#include "support/sync_command.h"

#include <QDateTime>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QTest>
#include <QThread>

#include <algorithm>
#include <limits>
#include <numeric>
#include <tuple>

using namespace sluice;
using model::Algorithm;
using redis::RedisConnection;
using redis::RedisReply;
using test::bucketKey;
using test::makePolicy;

namespace {

constexpr qint64 kStart = test::kTestClockStart;

// The same algorithms with capacity times window_ms past 2^52: levels kept in the wide form.
QVector<model::Policy> widePolicies()
{
    return {
        makePolicy(QStringLiteral("tbw"), Algorithm::TokenBucket, 100000000, 86400000),
        makePolicy(QStringLiteral("gcw"), Algorithm::Gcra, 100000000, 86400000),
        makePolicy(QStringLiteral("lbw"), Algorithm::LeakyBucket, 100000000, 86400000),
        makePolicy(QStringLiteral("sww"), Algorithm::SlidingWindow, 100000000, 86400000),
    };
}

} // namespace

class TestLimiterFunctions : public test::LimiterTestCase {
    Q_OBJECT

    QVector<qint64> acquire(const QByteArrayList &keysThenArgs, int keyCount = 1)
    {
        return integers(call(QByteArrayList{"FCALL", "sluice_acquire", QByteArray::number(keyCount)} + keysThenArgs));
    }

    // Field/value pairs of sluice_inspect as a map.
    QHash<QByteArray, QByteArray> inspect(const QString &policy, const QByteArray &subject)
    {
        const RedisReply reply = call({"FCALL_RO", "sluice_inspect", "1", bucketKey(policy, subject), policy.toUtf8()});
        QHash<QByteArray, QByteArray> fields;
        for (qsizetype i = 0; i + 1 < reply.value.elements.size(); i += 2) {
            const redis::RespValue &value = reply.value.elements.at(i + 1);
            fields.insert(reply.value.elements.at(i).bytes,
                          value.isInteger() ? QByteArray::number(value.integer) : value.bytes);
        }
        return fields;
    }

    // Every key and its serialized value: equal snapshots mean nothing changed.
    QMap<QByteArray, QByteArray> keyspace()
    {
        QMap<QByteArray, QByteArray> snapshot;
        for (const redis::RespValue &key : call({"KEYS", "*"}).value.elements)
            snapshot.insert(key.bytes, call({"DUMP", key.bytes}).value.bytes);
        return snapshot;
    }

    void loadTestLibrary(const QVector<model::Policy> &policies) { loadLibrary(test::testClockLibrary(policies)); }

private Q_SLOTS:
    void initTestCase() { startServer(); }

    void init()
    {
        QVERIFY(call({"FLUSHALL"}).ok());
        loadTestLibrary(test::contractPolicies());
        setClock(kStart);
    }

    void badInputIsRejectedAndChangesNothing_data()
    {
        QTest::addColumn<QByteArrayList>("command");
        QTest::addColumn<QString>("message");
        const QByteArray tb = bucketKey(QStringLiteral("tb"), "u");
        const QByteArray fw = bucketKey(QStringLiteral("fw"), "u");
        const QByteArray cc = bucketKey(QStringLiteral("cc"), "u");
        auto acquire = [](QByteArrayList rest) { return QByteArrayList{"FCALL", "sluice_acquire"} + rest; };
        QTest::newRow("no key") << acquire({"0"}) << "name at least one bucket key";
        QTest::newRow("no policy") << acquire({"1", tb}) << "expected 1 policy name(s) after 1 key(s)";
        QTest::newRow("too many arguments") << acquire({"1", tb, "tb", "1", "2"}) << "got 3 argument(s)";
        QTest::newRow("fewer policies than keys") << acquire({"2", tb, fw, "tb"}) << "expected 2 policy name(s)";
        QTest::newRow("unknown policy") << acquire({"1", tb, "nope"}) << "unknown policy \"nope\"";
        QTest::newRow("cost 0") << acquire({"1", tb, "tb", "0"}) << "cost must be a whole number";
        QTest::newRow("negative cost") << acquire({"1", tb, "tb", "-1"}) << "cost must be a whole number";
        QTest::newRow("text cost") << acquire({"1", tb, "tb", "abc"}) << "got \"abc\"";
        QTest::newRow("NaN cost") << acquire({"1", tb, "tb", "nan"}) << "got \"nan\"";
        QTest::newRow("infinite cost") << acquire({"1", tb, "tb", "inf"}) << "got \"inf\"";
        QTest::newRow("exponent cost") << acquire({"1", tb, "tb", "1e3"}) << "got \"1e3\"";
        QTest::newRow("fraction cost") << acquire({"1", tb, "tb", "1.5"}) << "got \"1.5\"";
        QTest::newRow("padded cost") << acquire({"1", tb, "tb", " 1"}) << "cost must be a whole number";
        QTest::newRow("huge cost") << acquire({"1", tb, "tb", "99999999999999999999"}) << "cost must be a whole number";
        QTest::newRow("key of another policy") << acquire({"1", fw, "tb"}) << "is not a bucket of policy \"tb\"";
        QTest::newRow("empty subject") << acquire({"1", "sluice:tb:{}", "tb"}) << "non-empty subject";
        QTest::newRow("brace in subject") << acquire({"1", "sluice:tb:{a}b}", "tb"}) << "without braces";
        QTest::newRow("opening brace in subject") << acquire({"1", "sluice:tb:{a{b}", "tb"}) << "without braces";
        QTest::newRow("allow: opening brace in subject")
            << QByteArrayList{"FCALL", "sluice_allow", "1", "sluice:fw:{{}", "fw"} << "without braces";
        QTest::newRow("no hash tag") << acquire({"1", "sluice:tb:u", "tb"}) << "is not a bucket";
        QTest::newRow("policy named twice") << acquire({"2", tb, tb, "tb", "tb"}) << "named twice";
        QTest::newRow("wrong type: list")
            << acquire({"1", bucketKey(QStringLiteral("tb"), "list"), "tb"}) << "does not hold a token_bucket bucket";
        QTest::newRow("foreign string") << acquire({"1", bucketKey(QStringLiteral("tb"), "text"), "tb"})
                                        << "does not hold a token_bucket bucket";
        QTest::newRow("foreign hash") << acquire({"1", bucketKey(QStringLiteral("fw"), "hash"), "fw"})
                                      << "does not hold a fixed_window bucket";
        QTest::newRow("foreign sorted set")
            << acquire({"1", bucketKey(QStringLiteral("sl"), "zset"), "sl"}) << "does not hold a sliding_log bucket";
        QTest::newRow("second key wrong type")
            << acquire({"2", bucketKey(QStringLiteral("fw"), "u"), bucketKey(QStringLiteral("tb"), "list"), "fw", "tb"})
            << "does not hold a token_bucket bucket";
        QTest::newRow("peek: unknown policy")
            << QByteArrayList{"FCALL_RO", "sluice_peek", "1", tb, "nope"} << "unknown policy";
        QTest::newRow("release: not a lease")
            << QByteArrayList{"FCALL", "sluice_release", "1", cc, "cc", "abc"} << "lease must be a lease id";
        QTest::newRow("release: wrong policy")
            << QByteArrayList{"FCALL", "sluice_release", "1", tb, "tb", "1-1:1"} << "is not a concurrency policy";
        auto reserve = [](QByteArrayList rest) { return QByteArrayList{"FCALL", "sluice_reserve", "1"} + rest; };
        auto settle = [](QByteArrayList rest) { return QByteArrayList{"FCALL", "sluice_settle", "1"} + rest; };
        // 'é' is two bytes: the key's quote, cut at 80 bytes, would end in half of one. (Written into the key
        // as a service may, not escaped as bucketKey() would.)
        QTest::newRow("acquire: a subject of 514 bytes, two a character")
            << acquire({"1", "sluice:tb:{" + QByteArray(257, 'x').replace("x", "\xc3\xa9") + '}', "tb"})
            << "bytes; the most is 512";
        QTest::newRow("reserve: sliding log")
            << reserve({bucketKey(QStringLiteral("sl"), "u"), "sl", "1"})
            << "reservations are settled by token_bucket, gcra, fixed_window and sliding_window policies";
        QTest::newRow("reserve: estimate 0") << reserve({tb, "tb", "0"}) << "estimate must be a whole number from 1";
        QTest::newRow("reserve: no estimate") << reserve({tb, "tb"}) << "expected 1 key, then <policy> <estimate>";
        QTest::newRow("settle: negative actual")
            << settle({tb, "tb", "0123456789abcdef:1", "-1"}) << "actual must be a whole number from 0";
        QTest::newRow("settle: not an id") << settle({tb, "tb", "lease", "1"}) << "reservation id must be one";
        QTest::newRow("settle: forged id") << settle({tb, "tb", "0123456789abcdef:1", "1"})
                                           << "no reservation \"0123456789abcdef:1\" for this subject";
        QTest::newRow("settle: concurrency")
            << settle({cc, "cc", "0123456789abcdef:1", "1"}) << "is a concurrency policy";
        auto top = [](QByteArrayList rest) { return QByteArrayList{"FCALL_RO", "sluice_most_rejected", "0"} + rest; };
        QTest::newRow("most_rejected: no policy") << top({}) << "expected <policy>";
        QTest::newRow("most_rejected: unknown policy") << top({"nope"}) << "unknown policy \"nope\"";
        QTest::newRow("most_rejected: too many arguments") << top({"fw", "1"}) << "expected <policy>";
        auto check = [](QByteArrayList rest) { return QByteArrayList{"FCALL", "sluice_check", "1", "k:{k}"} + rest; };
        QTest::newRow("check: unknown algorithm") << check({"bucket", "1", "1", "1"}) << "unknown algorithm";
        QTest::newRow("check: limit 0") << check({"token_bucket", "0", "1000", "1"}) << "limit must be a whole number";
        QTest::newRow("check: window too long")
            << check({"fixed_window", "1", "604800001", "1"}) << "window_ms must be";
        QTest::newRow("check: too long to refill")
            << check({"gcra", "1", "604800000", "1000000000"}) << "burst must be at most 7446427";
        QTest::newRow("check: too many entries") << check({"sliding_log", "100001", "1000", "1"}) << "at most 100000";
        QTest::newRow("check: missing burst") << check({"token_bucket", "1", "1000"}) << "expected <algorithm>";
        QTest::newRow("check: unknown window start")
            << check({"fixed_window", "5", "1000", "5", "1", "rolling"}) << "window_start must be aligned";
        QTest::newRow("check: first call for a token bucket")
            << check({"token_bucket", "5", "1000", "5", "1", "first_call"}) << "or first_call for a fixed window";
        QTest::newRow("check: too many arguments")
            << check({"fixed_window", "5", "1000", "5", "1", "aligned", "x"}) << "[cost [window_start]]; got 7";
    }

    void badInputIsRejectedAndChangesNothing()
    {
        QFETCH(QByteArrayList, command);
        QFETCH(QString, message);
        // Some state to leave alone: live buckets, and keys that are not buckets.
        QCOMPARE(acquire({bucketKey(QStringLiteral("tb"), "u"), "tb"}).value(0), 1);
        QCOMPARE(acquire({bucketKey(QStringLiteral("fw"), "u"), "fw"}).value(0), 1);
        QVERIFY(call({"RPUSH", bucketKey(QStringLiteral("tb"), "list"), "x"}).ok());
        QVERIFY(call({"RPUSH", bucketKey(QStringLiteral("fw"), "list"), "x"}).ok());
        QVERIFY(call({"SET", bucketKey(QStringLiteral("tb"), "text"), "hello"}).ok());
        QVERIFY(call({"HSET", bucketKey(QStringLiteral("fw"), "hash"), "1", "word"}).ok());
        QVERIFY(call({"ZADD", bucketKey(QStringLiteral("sl"), "zset"), "5", "member"}).ok());
        const auto before = keyspace();

        const RedisReply reply = call(command);
        QVERIFY2(reply.value.isError(), qPrintable(reply.value.toString()));
        QVERIFY2(reply.errorText().startsWith(QLatin1String("ERR sluice: ")), qPrintable(reply.errorText()));
        QVERIFY2(reply.errorText().contains(message), qPrintable(reply.errorText()));
        // Quoting what the caller sent never cuts a character: the message is valid UTF-8.
        QCOMPARE(QString::fromUtf8(reply.value.bytes).toUtf8(), reply.value.bytes);
        QCOMPARE(keyspace(), before);
    }

    // Settling changes the bucket once, for the reservation's own subject, before it expires; every other
    // settlement is refused with its reason and changes nothing.
    void reservationsSettleOnceForTheirOwnSubject()
    {
        const QByteArray alice = bucketKey(QStringLiteral("tb"), "alice");
        const QByteArray bob = bucketKey(QStringLiteral("tb"), "bob");
        const auto reserve = [&](const QByteArray &key, const char *estimate) {
            return call({"FCALL", "sluice_reserve", "1", key, "tb", estimate}).value.elements.value(6).bytes;
        };
        const auto refused = [&](const QByteArray &key, const QByteArray &id, const char *message) {
            const auto before = keyspace();
            const RedisReply reply = call({"FCALL", "sluice_settle", "1", key, "tb", id, "1"});
            if (!reply.errorText().contains(QLatin1String(message)))
                return "settling " + id + ": " + reply.value.toString().toUtf8() + reply.errorText().toUtf8();
            return keyspace() == before ? QByteArray() : "settling " + id + " changed the keyspace";
        };
        const QByteArray id = reserve(alice, "4");
        QVERIFY2(id.endsWith(":4"), id.constData());
        QCOMPARE(refused(bob, id, "no reservation"), QByteArray());
        // Used 1 of 4: 3 given back; the bucket of 5 holds 4.
        const RedisReply settled = call({"FCALL", "sluice_settle", "1", alice, "tb", id, "1"});
        QCOMPARE(settled.value.elements.size(), 3);
        QCOMPARE(settled.value.elements.at(0).integer, 1); // what it cost
        QCOMPARE(settled.value.elements.at(1).integer, 0); // nothing left uncharged
        QCOMPARE(settled.value.elements.at(2).integer, 4); // available after
        QCOMPARE(refused(alice, id, "is already settled"), QByteArray());
        const QByteArray late = reserve(alice, "2");
        setClock(kStart + 1000); // the policy's window: how long a reservation waits by default
        QCOMPARE(refused(alice, late, "expired 0 ms ago: its estimate stands"), QByteArray());
        setClock(kStart + 2000);
        QCOMPARE(refused(alice, late, "no reservation"), QByteArray()); // forgotten one timeout later
    }

    void multiplePoliciesAreAllOrNothing()
    {
        const QByteArray tb = bucketKey(QStringLiteral("tb"), "m"), fw = bucketKey(QStringLiteral("fw"), "m");
        // fw admits 3 per window, tb 5 at once: the first three calls pass both, fw is the tighter.
        for (int i = 0; i < 3; ++i)
            QCOMPARE(acquire({tb, fw, "tb", "fw"}, 2), (QVector<qint64>{1, 2 - i, -1, 1000, 3, -999}));
        // The fourth is rejected by fw: tb keeps its tokens.
        QCOMPARE(acquire({tb, fw, "tb", "fw"}, 2), (QVector<qint64>{0, 0, 1000, 1000, 3, -999}));
        QCOMPARE(inspect(QStringLiteral("tb"), "m").value("available"), QByteArray("2"));
        QCOMPARE(inspect(QStringLiteral("tb"), "m").value("rejected"), QByteArray("0"));
        QCOMPARE(inspect(QStringLiteral("fw"), "m").value("rejected"), QByteArray("1"));
        // The reply names the deciding policy.
        QCOMPARE(call({"FCALL", "sluice_acquire", "2", tb, fw, "tb", "fw"}).value.elements.at(5).bytes,
                 QByteArray("fw"));
        // When both reject, the one with the longer wait decides: tb needs 300 ms for 3 tokens.
        setClock(kStart + 900);
        const RedisReply both = call({"FCALL", "sluice_acquire", "2", tb, fw, "tb", "fw", "3"});
        QCOMPARE(both.value.elements.at(0).integer, 0);
        QCOMPARE(both.value.elements.at(5).bytes, QByteArray("fw"));
        QCOMPARE(both.value.elements.at(2).integer, 100);
    }

    void shadowPoliciesCountButNeverReject()
    {
        const QByteArray key = bucketKey(QStringLiteral("shadow"), "s");
        for (int i = 0; i < 4; ++i)
            QCOMPARE(acquire({key, "shadow"}).value(0), 1);
        const auto state = inspect(QStringLiteral("shadow"), "s");
        QCOMPARE(state.value("allowed"), QByteArray("1"));
        QCOMPARE(state.value("rejected"), QByteArray("3"));
        // Beside an enforcing policy the shadow one does not block, and the enforcing one decides.
        const QByteArray tb = bucketKey(QStringLiteral("tb"), "s");
        const RedisReply reply = call({"FCALL", "sluice_acquire", "2", key, tb, "shadow", "tb"});
        QCOMPARE(reply.value.elements.at(0).integer, 1);
        QCOMPARE(reply.value.elements.at(5).bytes, QByteArray("tb"));
        QCOMPARE(inspect(QStringLiteral("shadow"), "s").value("rejected"), QByteArray("4"));
    }

    void leasesAreGrantedAndReleased()
    {
        const QByteArray key = bucketKey(QStringLiteral("cc"), "l");
        const RedisReply first = call({"FCALL", "sluice_acquire", "1", key, "cc"});
        const RedisReply second = call({"FCALL", "sluice_acquire", "1", key, "cc"});
        QCOMPARE(first.value.elements.size(), 7);
        const QByteArray lease = first.value.elements.at(6).bytes;
        // 64 bits in hex, then the cost: nothing a caller who knows the time and the order can name.
        QVERIFY2(QRegularExpression(QStringLiteral("^[0-9a-f]{16}:1$")).match(QString::fromLatin1(lease)).hasMatch(),
                 lease.constData());
        QVERIFY(second.value.elements.at(6).bytes != lease);
        QCOMPARE(acquire({key, "cc"}).value(0), 0);
        for (const QByteArray &guess : {QByteArray::number(kStart) + "-1:1", QByteArray::number(kStart) + "-2:1"})
            QVERIFY(call({"FCALL", "sluice_release", "1", key, "cc", guess}).value.isError());
        QCOMPARE(inspect(QStringLiteral("cc"), "l").value("available"), QByteArray("0"));
        QCOMPARE(call({"FCALL", "sluice_release", "1", key, "cc", lease}).value.integer, 1);
        QCOMPARE(call({"FCALL", "sluice_release", "1", key, "cc", lease}).value.integer, 0); // once only
        QCOMPARE(acquire({key, "cc"}).value(0), 1);
        // Released, the newest lease no longer holds its bucket: it is full again when the older one ends.
        const QByteArray other = bucketKey(QStringLiteral("cc"), "m");
        QCOMPARE(acquire({other, "cc"}).value(0), 1);
        setClock(kStart + 400);
        const QByteArray newest = call({"FCALL", "sluice_acquire", "1", other, "cc"}).value.elements.value(6).bytes;
        QCOMPARE(inspect(QStringLiteral("cc"), "m").value("reset_after_ms"), QByteArray("1000"));
        QCOMPARE(call({"FCALL", "sluice_release", "1", other, "cc", newest}).value.integer, 1);
        QCOMPARE(inspect(QStringLiteral("cc"), "m").value("reset_after_ms"), QByteArray("600"));
        // A lease nobody releases ends after window_ms.
        setClock(kStart + 1000);
        QCOMPARE(inspect(QStringLiteral("cc"), "l").value("available"), QByteArray("2"));
    }

    void leakyBucketRepliesWithTheQueueDelay()
    {
        const QByteArray key = bucketKey(QStringLiteral("lb"), "q");
        // 1 per 100 ms, a queue of 3: the calls wait 0, 100 and 200 ms; the fourth does not fit.
        QCOMPARE(acquire({key, "lb"}), (QVector<qint64>{1, 2, -1, 100, 1, -999, 0}));
        QCOMPARE(acquire({key, "lb"}), (QVector<qint64>{1, 1, -1, 200, 1, -999, 100}));
        QCOMPARE(acquire({key, "lb"}), (QVector<qint64>{1, 0, -1, 300, 1, -999, 200}));
        QCOMPARE(acquire({key, "lb"}), (QVector<qint64>{0, 0, 100, 300, 1, -999}));
        setClock(kStart + 150);
        QCOMPARE(acquire({key, "lb"}), (QVector<qint64>{1, 0, -1, 250, 1, -999, 150}));
    }

    void leanLeakyBucketWaitsTheQueueDelay()
    {
        // sluice_allow's wait_ms after an admission is the queue delay; after a rejection, the retry.
        const QByteArray key = bucketKey(QStringLiteral("lb"), "lean");
        auto allow = [&] { return integers(call({"FCALL", "sluice_allow", "1", key, "lb"})); };
        QCOMPARE(allow(), (QVector<qint64>{1, 2, 0}));
        QCOMPARE(allow(), (QVector<qint64>{1, 1, 100}));
        QCOMPARE(allow(), (QVector<qint64>{1, 0, 200}));
        QCOMPARE(allow(), (QVector<qint64>{0, 0, 100}));
    }

    void fixedWindowCountsRejectionsPerKeyExactly()
    {
        // fw: 3 per second, windows aligned to the epoch (kStart is a whole second).
        const QByteArray key = bucketKey(QStringLiteral("fw"), "flood");
        const QByteArray window = QByteArray::number(kStart / 1000);
        for (int i = 0; i < 3; ++i)
            QCOMPARE(acquire({key, "fw"}).value(0), 1);
        // Calls of cost 1 on the full window stay in its count: one write each, the reply unchanged.
        setClock(kStart + 400);
        for (int i = 0; i < 4; ++i)
            QCOMPARE(acquire({key, "fw"}), (QVector<qint64>{0, 0, 600, 600, 3, -999}));
        QCOMPARE(call({"HGET", key, window}).value.bytes, QByteArray("7"));
        // A costlier call is taken back and counted in `r`.
        QCOMPARE(acquire({key, "fw", "2"}), (QVector<qint64>{0, 0, 600, 600, 3, -999}));
        QCOMPARE(call({"HGET", key, window}).value.bytes, QByteArray("7"));
        QCOMPARE(inspect(QStringLiteral("fw"), "flood").value("allowed"), QByteArray("3"));
        QCOMPARE(inspect(QStringLiteral("fw"), "flood").value("rejected"), QByteArray("5"));
        QCOMPARE(inspect(QStringLiteral("fw"), "flood").value("available"), QByteArray("0"));
        // The next window starts empty; the finished one is folded into `a` and `r`.
        setClock(kStart + 1000);
        QCOMPARE(acquire({key, "fw", "2"}), (QVector<qint64>{1, 1, -1, 1000, 3, -999}));
        QCOMPARE(acquire({key, "fw", "2"}), (QVector<qint64>{0, 1, 1000, 1000, 3, -999}));
        QCOMPARE(acquire({key, "fw"}), (QVector<qint64>{1, 0, -1, 1000, 3, -999}));
        QCOMPARE(acquire({key, "fw"}), (QVector<qint64>{0, 0, 1000, 1000, 3, -999}));
        QCOMPARE(call({"HGET", key, "a"}).value.bytes, QByteArray("3"));
        QCOMPARE(call({"HGET", key, "r"}).value.bytes, QByteArray("6"));
        QCOMPARE(call({"HEXISTS", key, window}).value.integer, 0);
        const auto counters = inspect(QStringLiteral("fw"), "flood");
        QCOMPARE(counters.value("allowed"), QByteArray("6"));
        QCOMPARE(counters.value("rejected"), QByteArray("7"));
        // A peek reads the same window: nothing left, back in 1000 ms.
        const RedisReply peek = call({"FCALL_RO", "sluice_peek", "1", key, "fw"});
        QCOMPARE(peek.value.elements.at(1).integer, 0);
        QCOMPARE(peek.value.elements.at(2).integer, 1000);
    }

    void peekConsumesNothing()
    {
        const QByteArray key = bucketKey(QStringLiteral("gc"), "p");
        QCOMPARE(acquire({key, "gc", "4"}).value(1), 1);
        const auto before = keyspace();
        const RedisReply peek = call({"FCALL_RO", "sluice_peek", "1", key, "gc", "2"});
        QCOMPARE(peek.value.elements.at(0).integer, 0);
        QCOMPARE(peek.value.elements.at(1).integer, 1);
        QCOMPARE(peek.value.elements.at(2).integer, 100);
        QCOMPARE(keyspace(), before);
    }

    void checkTakesExplicitParameters()
    {
        // The same decisions as a stored token bucket of 10 per second with a burst of 5.
        for (int i = 0; i < 6; ++i) {
            const QVector<qint64> viaPolicy = acquire({bucketKey(QStringLiteral("tb"), "c"), "tb"});
            const RedisReply viaCheck
                = call({"FCALL", "sluice_check", "1", "mine:{c}", "token_bucket", "10", "1000", "5"});
            QCOMPARE(viaCheck.value.elements.at(0).integer, viaPolicy.value(0));
            QCOMPARE(viaCheck.value.elements.at(1).integer, viaPolicy.value(1));
            QCOMPARE(viaCheck.value.elements.at(2).integer, viaPolicy.value(2));
        }
    }

    void checkOpensAWindowAtTheFirstCall()
    {
        // window_start first_call through sluice_check: a plain count living the window from its first call,
        // as a stored first-call policy keeps it; aligned (said or not) is the hash of epoch windows.
        const QByteArrayList firstCall{"FCALL", "sluice_check", "1", "mine:{w}", "fixed_window",
                                       "2",     "400",          "2", "1",        "first_call"};
        QCOMPARE(call(firstCall).value.elements.at(0).integer, 1);
        QCOMPARE(call(firstCall).value.elements.at(0).integer, 1);
        const RedisReply third = call(firstCall);
        QCOMPARE(third.value.elements.at(0).integer, 0);
        const qint64 retry = third.value.elements.at(2).integer;
        QVERIFY2(retry > 0 && retry <= 400, qPrintable(QString::number(retry)));
        QCOMPARE(call({"TYPE", "mine:{w}"}).value.bytes, QByteArray("string"));
        const qint64 ttl = call({"PTTL", "mine:{w}"}).value.integer;
        QVERIFY2(ttl > 0 && ttl < 400, qPrintable(QString::number(ttl)));
        for (const QByteArray &start : {QByteArray("aligned"), QByteArray()}) {
            QByteArrayList aligned{
                "FCALL", "sluice_check", "1", "mine:{" + start + "a}", "fixed_window", "2", "400", "2", "1"};
            if (!start.isEmpty())
                aligned << start;
            QCOMPARE(call(aligned).value.elements.at(0).integer, 1);
            QCOMPARE(call({"TYPE", "mine:{" + start + "a}"}).value.bytes, QByteArray("hash"));
        }
    }

    // Quotas of real APIs, 1e8 a day and 1e9 a week, for every algorithm (those keeping an entry per
    // call at their cap of 100000): valid policies, published and called, and the same through
    // sluice_check; the first call is admitted with all but one unit left.
    void wideQuotasAreAcceptedByEveryAlgorithm_data()
    {
        QTest::addColumn<QString>("algorithm");
        QTest::addColumn<qint64>("limit");
        QTest::addColumn<qint64>("windowMs");
        for (const QString &name : model::algorithmNames()) {
            const bool keepsEntries = name == QLatin1String("sliding_log") || name == QLatin1String("concurrency");
            QTest::addRow("%s: 1e8 per day", qPrintable(name))
                << name << qint64(keepsEntries ? 100000 : 100000000) << qint64(86400000);
            QTest::addRow("%s: 1e9 per week", qPrintable(name))
                << name << qint64(keepsEntries ? 100000 : 1000000000) << qint64(604800000);
        }
    }

    void wideQuotasAreAcceptedByEveryAlgorithm()
    {
        QFETCH(QString, algorithm);
        QFETCH(qint64, limit);
        QFETCH(qint64, windowMs);
        const model::Policy policy
            = makePolicy(QStringLiteral("quota"), *model::algorithmFromName(algorithm), limit, windowMs);
        QVERIFY(model::validatePolicy(policy).isEmpty());
        loadTestLibrary({policy});
        setClock(kStart);
        const QVector<qint64> reply = acquire({bucketKey(QStringLiteral("quota"), "q"), "quota"});
        QCOMPARE(reply.mid(0, 3), (QVector<qint64>{1, limit - 1, -1}));
        QCOMPARE(reply.value(4), limit);
        const QByteArray limitText = QByteArray::number(limit);
        const RedisReply checked = call({"FCALL", "sluice_check", "1", "mine:{q}", algorithm.toUtf8(), limitText,
                                         QByteArray::number(windowMs), limitText});
        QVERIFY2(checked.ok(), qPrintable(checked.errorText()));
        QCOMPARE(checked.value.elements.at(1).integer, limit - 1);
    }

    // A wide level is whole tokens and a remainder in 1/window_ms tokens: 1e8 a day refills 1e8 /
    // 86400000 tokens a ms, a prime near 1e9 a week 999999937 / 604800000, and every reply is exact.
    void wideTokenBucketRepliesAreExact()
    {
        loadTestLibrary({makePolicy(QStringLiteral("day"), Algorithm::TokenBucket, 100000000, 86400000),
                         makePolicy(QStringLiteral("week"), Algorithm::TokenBucket, 999999937, 604800000)});
        setClock(kStart);
        const QByteArray day = bucketKey(QStringLiteral("day"), "x"), week = bucketKey(QStringLiteral("week"), "x");
        QCOMPARE(acquire({day, "day", "100000000"}), (QVector<qint64>{1, 0, -1, 86400000, 100000000, -999}));
        QCOMPARE(acquire({week, "week", "999999937"}), (QVector<qint64>{1, 0, -1, 604800000, 999999937, -999}));
        setClock(kStart + 1); // 1.157 tokens: the second whole one comes 1 ms later
        QCOMPARE(acquire({day, "day", "2"}), (QVector<qint64>{0, 1, 1, 86399999, 100000000, -999}));
        setClock(kStart + 863); // 998.84 tokens
        QCOMPARE(acquire({day, "day", "999"}), (QVector<qint64>{0, 998, 1, 86399137, 100000000, -999}));
        setClock(kStart + 864); // 1000 tokens exactly
        QCOMPARE(acquire({day, "day", "1000"}), (QVector<qint64>{1, 0, -1, 86400000, 100000000, -999}));
        setClock(kStart + 1000); // 1653.44 tokens
        QCOMPARE(acquire({week, "week", "1654"}), (QVector<qint64>{0, 1653, 1, 604799000, 999999937, -999}));
        QCOMPARE(acquire({week, "week", "1653"}), (QVector<qint64>{1, 0, -1, 604800000, 999999937, -999}));
    }

    // What is still refused says what would be accepted.
    void tooLongToRefillIsRefusedWithTheLargestBurst()
    {
        const RedisReply reply
            = call({"FCALL", "sluice_check", "1", "mine:{r}", "token_bucket", "1", "604800000", "1000000000"});
        QCOMPARE(reply.errorText(),
                 QStringLiteral("ERR sluice: burst must be at most 7446427 with a limit of 1 per "
                                "604800000 ms: an empty bucket must refill within 2^52 ms "
                                "(burst / limit windows)"));
        model::Policy policy = makePolicy(QStringLiteral("slow"), Algorithm::Gcra, 7, 604800000, 52124996);
        const QVector<model::PolicyError> errors = model::validatePolicy(policy);
        QCOMPARE(errors.size(), 1);
        QCOMPARE(errors.first().field, QStringLiteral("burst"));
        QVERIFY2(errors.first().message.startsWith(QLatin1String("must be at most 52124995 with a limit of 7 per "
                                                                 "604800000 ms")),
                 qPrintable(errors.first().message));
        policy.burst = 52124995; // fills in 2^52 ms, to the ms
        QVERIFY(model::validatePolicy(policy).isEmpty());
        QVERIFY(call({"FCALL", "sluice_check", "1", "mine:{r}", "gcra", "7", "604800000", "52124995"}).ok());
    }

    // A policy republished across the 2^52 line keeps its buckets: each form reads the other's (the
    // level in the current window_ms), a rejection is counted in the form the bucket has, and an
    // admission writes the policy's own form. The clock stands still: nothing refills or drains.
    void bucketsCrossBetweenNarrowAndWidePolicies_data()
    {
        QTest::addColumn<QString>("algorithm");
        QTest::addColumn<qint64>("narrowLimit");
        QTest::addColumn<qint64>("narrowBurst");
        QTest::addColumn<qint64>("wideLimit");
        QTest::addColumn<qint64>("wideBurst");
        QTest::addColumn<int>("wideSize");       // the narrow form has 41 bytes
        QTest::addColumn<qint64>("leftForWide"); // units left, read by the wide policy after 3 calls
        // 10 a day, then 1e8 a day (burst 5); GCRA keeps time, so its rate stays and its burst grows.
        QTest::newRow("token_bucket") << QStringLiteral("token_bucket") << qint64(10) << qint64(5) << qint64(100000000)
                                      << qint64(5) << 49 << qint64(2);
        QTest::newRow("leaky_bucket") << QStringLiteral("leaky_bucket") << qint64(10) << qint64(5) << qint64(100000000)
                                      << qint64(5) << 49 << qint64(2);
        QTest::newRow("gcra") << QStringLiteral("gcra") << qint64(2) << qint64(10) << qint64(2) << qint64(60000000)
                              << 41 << qint64(59999997);
    }

    void bucketsCrossBetweenNarrowAndWidePolicies()
    {
        QFETCH(QString, algorithm);
        QFETCH(qint64, narrowLimit);
        QFETCH(qint64, narrowBurst);
        QFETCH(qint64, wideLimit);
        QFETCH(qint64, wideBurst);
        QFETCH(int, wideSize);
        QFETCH(qint64, leftForWide);
        const QByteArray key = bucketKey(QStringLiteral("cross"), "c");
        auto publish = [&](qint64 limit, qint64 burst) {
            const model::Policy policy
                = makePolicy(QStringLiteral("cross"), *model::algorithmFromName(algorithm), limit, 86400000, burst);
            QVERIFY(model::validatePolicy(policy).isEmpty());
            loadTestLibrary({policy});
            setClock(kStart);
        };
        auto size = [&] { return call({"STRLEN", key}).value.integer; };
        auto units = [](qint64 n) { return QByteArray::number(n); };
        publish(narrowLimit, narrowBurst);
        for (int i = 0; i < 3; ++i)
            QCOMPARE(acquire({key, "cross"}).value(0), 1);
        QCOMPARE(size(), 41);
        const qint64 leftForNarrow = narrowBurst - 4; // after one more call

        publish(wideLimit, wideBurst);
        QCOMPARE(acquire({key, "cross", units(leftForWide + 1)}).mid(0, 2), (QVector<qint64>{0, leftForWide}));
        QCOMPARE(size(), 41);
        QCOMPARE(acquire({key, "cross"}).mid(0, 2), (QVector<qint64>{1, leftForWide - 1}));
        QCOMPARE(size(), wideSize);

        publish(narrowLimit, narrowBurst);
        QCOMPARE(acquire({key, "cross", units(leftForNarrow + 1)}).mid(0, 2), (QVector<qint64>{0, leftForNarrow}));
        QCOMPARE(size(), wideSize);
        QCOMPARE(acquire({key, "cross"}).mid(0, 2), (QVector<qint64>{1, leftForNarrow - 1}));
        QCOMPARE(size(), 41);
        const auto counters = inspect(QStringLiteral("cross"), "c");
        QCOMPARE(counters.value("allowed"), QByteArray("5"));
        QCOMPARE(counters.value("rejected"), QByteArray("2"));
    }

    // A bucket of the right size and tag whose doubles are NaN or infinite is foreign data, in every
    // packed form and on every path (the token bucket's one-pass acquire, several policies, peek).
    void nonFiniteBucketsAreForeignData_data()
    {
        QTest::addColumn<QString>("policy");
        QTest::addColumn<QByteArray>("raw");
        QTest::addColumn<QString>("algorithm");
        const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
        const double expires = kStart + 1000, stamp = kStart;
        struct Row {
            const char *name, *policy, *algorithm;
            char tag;
            QVector<double> values;
        };
        const Row rows[] = {
            {"token bucket, NaN level", "tb", "token_bucket", 'T', {expires, nan, stamp, 0, 0}},
            {"token bucket, infinite stamp", "tb", "token_bucket", 'T', {expires, 1000, inf, 0, 0}},
            {"token bucket, -inf expiry", "tb", "token_bucket", 'T', {-inf, 1000, stamp, 0, 0}},
            {"token bucket, NaN counter", "tb", "token_bucket", 'T', {expires, 1000, stamp, nan, 0}},
            {"token bucket, wide form with NaN", "tb", "token_bucket", 't', {expires, 1, nan, stamp, 0, 0}},
            {"wide token bucket, NaN whole", "tbw", "token_bucket", 't', {expires, nan, 0, stamp, 0, 0}},
            {"wide token bucket, infinite rest", "tbw", "token_bucket", 't', {expires, 1, inf, stamp, 0, 0}},
            {"wide token bucket, narrow form with NaN", "tbw", "token_bucket", 'T', {expires, nan, stamp, 0, 0}},
            {"gcra, NaN arrival", "gc", "gcra", 'G', {expires, nan, 0, 0, 0}},
            {"wide gcra, infinite arrival", "gcw", "gcra", 'G', {expires, inf, 0, 0, 0}},
            {"leaky bucket, NaN water", "lb", "leaky_bucket", 'L', {expires, nan, stamp, 0, 0}},
            {"leaky bucket, wide form with inf", "lb", "leaky_bucket", 'l', {expires, inf, 0, stamp, 0, 0}},
            {"wide leaky bucket, NaN rest", "lbw", "leaky_bucket", 'l', {expires, 1, nan, stamp, 0, 0}},
            {"sliding window, NaN count", "sw", "sliding_window", 'S', {expires, 0, 0, nan, 0, 0}},
            {"wide sliding window, infinite window", "sww", "sliding_window", 'S', {expires, inf, 0, 1, 0, 0}},
        };
        for (const Row &row : rows) {
            QByteArray raw(1, row.tag);
            for (const double value : row.values)
                raw.append(reinterpret_cast<const char *>(&value), sizeof value); // struct.pack's native order
            QTest::newRow(row.name) << QString::fromLatin1(row.policy) << raw << QString::fromLatin1(row.algorithm);
        }
    }

    void nonFiniteBucketsAreForeignData()
    {
        QFETCH(QString, policy);
        QFETCH(QByteArray, raw);
        QFETCH(QString, algorithm);
        loadTestLibrary(test::contractPolicies() + widePolicies());
        setClock(kStart);
        const QByteArray key = bucketKey(policy, "odd"), other = bucketKey(QStringLiteral("fw"), "odd");
        QVERIFY(call({"SET", key, raw}).ok());
        const auto before = keyspace();
        const QByteArray name = policy.toUtf8();
        const QList<QByteArrayList> commands{
            {"FCALL", "sluice_acquire", "1", key, name},
            {"FCALL", "sluice_acquire", "2", key, other, name, "fw"},
            {"FCALL_RO", "sluice_peek", "1", key, name},
            {"FCALL_RO", "sluice_inspect", "1", key, name},
        };
        const QString expected = QStringLiteral("ERR sluice: key \"%1\" does not hold a %2 bucket")
                                     .arg(QString::fromLatin1(key), algorithm);
        for (const QByteArrayList &command : commands) {
            const RedisReply reply = call(command);
            QVERIFY2(reply.errorText().startsWith(expected),
                     qPrintable(QString::fromLatin1(command.at(1)) + QStringLiteral(" was not refused")));
            QCOMPARE(keyspace(), before);
        }
    }

    void perPolicyCountsAreExact()
    {
        // 50 subjects, 4 calls each inside one second: fw admits 3 per subject. Then a hot subject,
        // rejected again and again (the rejections of a key already counted take a shorter path).
        setClock(kStart + 5000);
        for (int subject = 0; subject < 50; ++subject)
            for (int i = 0; i < 4; ++i)
                acquire({bucketKey(QStringLiteral("fw"), QByteArray::number(subject)), "fw"});
        fire(QStringLiteral("fw"), "hot", 10);
        setClock(kStart + 6000);
        acquire({bucketKey(QStringLiteral("fw"), "late"), "fw"});
        setClock(kStart + 7000);
        const RedisReply stats = call({"FCALL_RO", "sluice_stats", "0"});
        const QVector<redis::RespValue> &fields = stats.value.elements;
        QCOMPARE(fields.at(0).integer, kStart + 7000);
        const qsizetype at = [&] {
            for (qsizetype i = 2; i < fields.size(); i += 4)
                if (fields.at(i).bytes == "fw")
                    return i;
            return qsizetype(-1);
        }();
        QVERIFY(at > 0);
        QCOMPARE(fields.at(at + 1).integer, 154); // allowed since the library was loaded
        QCOMPARE(fields.at(at + 2).integer, 57);  // rejected
        // Counted without the clock: the readings say when the totals moved. This one saw them move.
        QCOMPARE(fields.at(at + 3).elements.size(), 1);
        QCOMPARE(fields.at(at + 3).elements.at(0).integer, kStart + 7000);
        const auto movedOf = [&](const QByteArrayList &extra) {
            const QVector<redis::RespValue> reply
                = call(QByteArrayList{"FCALL_RO", "sluice_stats", "0"} + extra).value.elements;
            return reply.value(at + 3).elements;
        };
        QCOMPARE(movedOf({QByteArray::number((kStart + 5000) / 1000)}).size(), 1);
        // A reader of the per-second counts that came before asks for the totals alone: it gets no series.
        QCOMPARE(movedOf({model::StatsReading::totalsOnly}).size(), 0);
        // A minute of readings without a call: not moved lately. Then one call, seen by the next reading.
        setClock(kStart + 67001);
        QCOMPARE(movedOf({}).size(), 0);
        acquire({bucketKey(QStringLiteral("fw"), "later"), "fw"});
        setClock(kStart + 68000);
        QCOMPARE(movedOf({}).value(0).integer, kStart + 68000);
        setClock(kStart + 127999);
        QCOMPARE(movedOf({}).value(0).integer, kStart + 68000);
        const QVector<redis::RespValue> later = call({"FCALL_RO", "sluice_stats", "0"}).value.elements;
        QCOMPARE(later.at(1).integer, fields.at(1).integer); // the same copy's epoch
        QCOMPARE(later.at(at + 1).integer, 155);
    }

    // [subject, count, entered] triples of sluice_most_rejected, and the reply's least count.
    QVector<std::tuple<QByteArray, qint64, qint64>> mostRejected(const QByteArray &policy, qint64 *least = nullptr)
    {
        const RedisReply reply = call({"FCALL_RO", "sluice_most_rejected", "0", policy});
        const QVector<redis::RespValue> &fields = reply.value.elements;
        if (!reply.ok() || fields.size() < 3) {
            qWarning("sluice_most_rejected failed: %s", qPrintable(reply.errorText()));
            return {};
        }
        if (least)
            *least = fields.at(2).integer;
        QVector<std::tuple<QByteArray, qint64, qint64>> subjects;
        for (qsizetype i = 3; i + 2 < fields.size(); i += 3)
            subjects.append({fields.at(i).bytes, fields.at(i + 1).integer, fields.at(i + 2).integer});
        return subjects;
    }

    void fire(const QString &policy, const QByteArray &subject, int calls)
    {
        for (int i = 0; i < calls; ++i)
            acquire({bucketKey(policy, subject), policy.toUtf8()});
    }

    void mostRejectedSubjectsAreCountedSinceTheLibraryWasLoaded()
    {
        using Row = std::tuple<QByteArray, qint64, qint64>;
        setClock(kStart + 30000);
        fire(QStringLiteral("fw"), "a", 10); // fw admits 3 per second: 7 rejected
        fire(QStringLiteral("fw"), "b", 5);  // 2 rejected
        fire(QStringLiteral("fw"), "c", 3);  // none
        fire(QStringLiteral("tb"), "t", 7);  // tb holds 5: 2 rejected, listed under tb only
        // A multi-policy call rejected by fw counts for fw, not for the tb that would have admitted.
        acquire({bucketKey(QStringLiteral("tb"), "b"), bucketKey(QStringLiteral("fw"), "b"), "tb", "fw"}, 2);
        qint64 least = -1;
        QCOMPARE(mostRejected("fw", &least), (QVector<Row>{{"a", 7, 0}, {"b", 3, 0}}));
        QCOMPARE(least, 0); // room to spare: every count is exact
        QCOMPARE(mostRejected("tb"), (QVector<Row>{{"t", 2, 0}}));
        QCOMPARE(mostRejected("sw"), QVector<Row>{});

        // Whatever time passes, the counts add up: there are no periods to forget.
        setClock(kStart + 90000);
        fire(QStringLiteral("fw"), "b", 9); // 6 rejected
        QCOMPARE(mostRejected("fw"), (QVector<Row>{{"b", 9, 0}, {"a", 7, 0}}));

        // More subjects than the summary holds: it stays at 32, the hot subject stays on top, and a
        // subject that took another's place says what it inherited. The counts sum to every rejection.
        for (int subject = 0; subject < 40; ++subject)
            fire(QStringLiteral("fw"), "cold" + QByteArray::number(subject), 4);
        fire(QStringLiteral("fw"), "hot", 20);
        const auto crowded = mostRejected("fw", &least);
        QCOMPARE(crowded.size(), 32);
        QCOMPARE(std::get<0>(crowded.first()), QByteArray("hot"));
        QCOMPARE(std::get<1>(crowded.first()) - std::get<2>(crowded.first()), 17); // its exact part
        QVERIFY(std::get<2>(crowded.first()) >= 1);
        qint64 sum = 0;
        for (const Row &row : crowded) {
            sum += std::get<1>(row);
            QVERIFY(std::get<1>(row) >= least);
        }
        QCOMPARE(sum, 7 + 3 + 6 + 40 + 17);
        QVERIFY(least >= 1);

        // A reader of the 10-second summaries that came before is told why it gets no list.
        QVERIFY(
            call({"FCALL_RO", "sluice_top", "0", "fw"}).errorText().contains(QLatin1String("older than this library")));
    }

    // The most-rejected windows a reader makes from the library's summary, against the exact counts, on
    // skewed traffic: 10,000 subjects drawn by Zipf's law (s = 1), 10,000 calls a round on fw (3 per second
    // and subject), one reading after each round, the clock a second on. Every stated bound must hold for
    // every subject, listed or not; the error itself is printed.
    void mostRejectedErrorOnSkewedTraffic()
    {
        constexpr int subjects = 10000, rounds = 12, callsPerRound = 10000;
        QVector<double> cumulative(subjects);
        double sum = 0;
        for (int rank = 0; rank < subjects; ++rank)
            cumulative[rank] = sum += 1.0 / (rank + 1);
        QRandomGenerator random(20261129);
        model::RejectedTally tally;
        QVector<QHash<QByteArray, quint64>> exact(rounds); // per round, each subject's rejections
        for (int round = 0; round < rounds; ++round) {
            setClock(kStart + 1000 * (round + 1));
            int pending = callsPerRound, failed = 0;
            for (int i = 0; i < callsPerRound; ++i) {
                const double draw = random.generateDouble() * sum;
                const int rank
                    = int(std::lower_bound(cumulative.cbegin(), cumulative.cend(), draw) - cumulative.cbegin());
                const QByteArray subject = "z" + QByteArray::number(std::min(rank, subjects - 1));
                m_connection->send({"FCALL", "sluice_allow", "1", bucketKey(QStringLiteral("fw"), subject), "fw"}, this,
                                   [&, subject, round](const RedisReply &reply) {
                    --pending;
                    if (!reply.ok() || reply.value.elements.size() != 3)
                        ++failed;
                    else if (reply.value.elements.at(0).integer == 0)
                        ++exact[round][subject];
                });
            }
            QVERIFY(test::spinUntil([&pending] { return pending == 0; }, 120000));
            QCOMPARE(failed, 0);
            model::TopRejected poll{QStringLiteral("fw"), 0, {}, {}};
            poll.take(QStringLiteral("node"), call({"FCALL_RO", "sluice_most_rejected", "0", "fw"}));
            QVERIFY2(poll.problems.isEmpty(), qPrintable(poll.problems.join(QLatin1Char('\n'))));
            tally.add(poll);
        }
        for (const int window : {1, 5, rounds - 1}) {
            QHash<QByteArray, quint64> truth; // the last `window` rounds (the first reading is the baseline)
            for (int round = rounds - window; round < rounds; ++round)
                for (auto it = exact[round].cbegin(); it != exact[round].cend(); ++it)
                    truth[it.key()] += it.value();
            const model::RejectedTally::Result result = tally.over(window * 1000);
            QHash<QByteArray, const model::RejectedSubject *> listed;
            quint64 shortBy = 0, missed = 0;
            for (const model::RejectedSubject &subject : result.subjects) {
                listed.insert(subject.subject, &subject);
                const quint64 real = truth.value(subject.subject);
                QVERIFY2(subject.rejections <= real && real <= subject.rejections + subject.shortBy,
                         qPrintable(QStringLiteral("%1: %2 listed (up to %3 more), %4 in truth")
                                        .arg(QString::fromUtf8(subject.subject))
                                        .arg(subject.rejections)
                                        .arg(subject.shortBy)
                                        .arg(real)));
                shortBy = std::max(shortBy, real - subject.rejections);
            }
            QVector<std::pair<quint64, QByteArray>> ranked;
            for (auto it = truth.cbegin(); it != truth.cend(); ++it) {
                if (!listed.contains(it.key())) {
                    QVERIFY2(it.value() <= result.unlistedAtMost, it.key().constData());
                    missed = std::max(missed, it.value());
                }
                ranked.append({it.value(), it.key()});
            }
            std::sort(ranked.begin(), ranked.end(), std::greater<>());
            int topFound = 0, topExact = 0;
            for (int i = 0; i < 10 && i < ranked.size(); ++i) {
                const auto found = listed.constFind(ranked.at(i).second);
                topFound += found != listed.cend() ? 1 : 0;
                topExact += found != listed.cend() && (*found)->rejections == ranked.at(i).first ? 1 : 0;
            }
            qInfo("most rejected over the last %d s (%lld subjects rejected, %lld rejections): the true top 10 "
                  "listed %d of 10, %d of them exact; largest undercount of a listed subject %llu (bound %llu "
                  "for the worst); most rejections of an unlisted subject %llu (bound %llu)",
                  window, qint64(truth.size()), qint64(std::accumulate(truth.cbegin(), truth.cend(), quint64(0))),
                  topFound, topExact, shortBy,
                  result.subjects.isEmpty()
                      ? 0ULL
                      : std::max_element(result.subjects.cbegin(), result.subjects.cend(),
                                         [](const auto &a, const auto &b) { return a.shortBy < b.shortBy; })
                            ->shortBy,
                  missed, result.unlistedAtMost);
            QVERIFY2(topFound >= 5, "the summary lost most of the true top 10"); // Space-Saving keeps heavy hitters
        }
    }

    void idleBucketsExpireAndComeBackFull()
    {
        // The production library, on Redis TIME: every key it writes expires, and a bucket that
        // expired answers like a new one.
        QVector<model::Policy> policies;
        for (const QString &name : model::algorithmNames())
            policies << makePolicy(name, *model::algorithmFromName(name), 2, 300);
        const model::LimiterLibrary production = model::LimiterLibrary::build(policies, {}, model::LibraryOwner{}, 1);
        QVERIFY(!production.source.contains("sluice_test_set_clock"));
        QVERIFY(production.source.contains("redis.call('TIME')"));
        QCOMPARE(test::loadLibrary(*m_connection, production), QString());
        QVERIFY(call({"FLUSHALL"}).ok());
        QHash<QString, QVector<qint64>> first;
        for (const model::Policy &policy : policies) {
            const QByteArray key = bucketKey(policy.name, "idle");
            first.insert(policy.name, acquire({key, policy.name.toUtf8()}));
            QCOMPARE(first.value(policy.name).value(0), 1);
            const qint64 ttl = call({"PTTL", key}).value.integer;
            // At most two windows (a sliding window's reach), and an eighth more for string buckets.
            QVERIFY2(ttl > 0 && ttl <= 675, qPrintable(QStringLiteral("%1: PTTL %2").arg(policy.name).arg(ttl)));
        }
        QTRY_COMPARE_WITH_TIMEOUT(call({"DBSIZE"}).value.integer, 0, 5000);
        for (const model::Policy &policy : policies)
            QCOMPARE(acquire({bucketKey(policy.name, "idle"), policy.name.toUtf8()}).value(1),
                     first.value(policy.name).value(1));
    }

    void theClockIsTimeInWholeMilliseconds()
    {
        // lua/clock.lua on TIME replies the test chooses: every length of the microseconds, and
        // seconds that move either way (the seconds are converted once and kept).
        const QByteArray library = "#!lua name=sluice_clock_check\n"
                                   "local server = redis\n"
                                   "local time_reply\n"
                                   "local redis = {call = function() return time_reply end}\n"
            + model::luaSource(QStringLiteral("clock.lua"))
            + "\nserver.register_function('clock_check', function(_, args)\n"
              "    time_reply = {args[1], args[2]}\n"
              "    return now_ms()\n"
              "end)\n";
        QVERIFY(call({"FUNCTION", "LOAD", "REPLACE", library}).ok());
        const QVector<std::tuple<QByteArray, QByteArray, qint64>> readings{
            {"1700000000", "0", 1700000000000},      {"1700000000", "7", 1700000000000},
            {"1700000000", "999", 1700000000000},    {"1700000000", "1000", 1700000000001},
            {"1700000000", "12345", 1700000000012},  {"1700000000", "99999", 1700000000099},
            {"1700000000", "100000", 1700000000100}, {"1700000000", "999999", 1700000000999},
            {"1700000001", "500000", 1700000001500}, {"1699999999", "1", 1699999999000},
            {"1699999999", "654321", 1699999999654},
        };
        for (const auto &[seconds, micros, expected] : readings)
            QCOMPARE(call({"FCALL", "clock_check", "0", seconds, micros}).value.integer, expected);
        QVERIFY(call({"FUNCTION", "DELETE", "sluice_clock_check"}).ok());

        // The production library on the server's own TIME.
        const model::LimiterLibrary production
            = model::LimiterLibrary::build(test::contractPolicies(), {}, model::LibraryOwner{}, 1);
        QCOMPARE(test::loadLibrary(*m_connection, production), QString());
        const auto serverMs = [this] {
            const RedisReply time = call({"TIME"});
            return time.value.elements.at(0).bytes.toLongLong() * 1000
                + time.value.elements.at(1).bytes.toLongLong() / 1000;
        };
        for (int i = 0; i < 300; ++i) {
            const qint64 before = serverMs();
            const qint64 now = call({"FCALL_RO", "sluice_stats", "0"}).value.elements.value(0).integer;
            const qint64 after = serverMs();
            QVERIFY2(before <= now && now <= after,
                     qPrintable(QStringLiteral("%1 %2 %3").arg(before).arg(now).arg(after)));
        }
    }

    void busyBucketsKeepTheirExpiryUntilItFallsShort()
    {
        // tb: 10 per second, burst 5. A call needs the key for max(time to full, window) = 1000 ms;
        // the expiry is set an eighth beyond (1125 ms) and left alone while it still covers the need.
        const QByteArray key = bucketKey(QStringLiteral("tb"), "busy");
        QCOMPARE(acquire({key, "tb"}).value(0), 1);
        const qint64 first = call({"PTTL", key}).value.integer;
        QVERIFY2(first > 1000 && first <= 1125, qPrintable(QString::number(first)));
        QThread::msleep(60);
        setClock(kStart + 100); // needs the key until kStart + 1100: still covered
        QCOMPARE(acquire({key, "tb"}).value(0), 1);
        const qint64 kept = call({"PTTL", key}).value.integer;
        QVERIFY2(kept <= first - 50, qPrintable(QStringLiteral("%1 then %2").arg(first).arg(kept)));
        setClock(kStart + 200); // needs it until kStart + 1200: moved to 1125 ms from now
        QCOMPARE(acquire({key, "tb"}).value(0), 1);
        const qint64 moved = call({"PTTL", key}).value.integer;
        QVERIFY2(moved > kept && moved <= 1125, qPrintable(QStringLiteral("%1 then %2").arg(kept).arg(moved)));
    }

    void policyDataNeverBecomesCode()
    {
        // Names and descriptions a validator would refuse, fed straight to the generator.
        QVector<model::Policy> hostile;
        const QStringList attacks{
            QStringLiteral("x\"] = 1 redis.call('SET', 'pwned', '1') --"),
            QStringLiteral("y]] redis.call('SET','pwned','2') [["),
            QStringLiteral("z\\\" .. redis.call('SET','pwned','3') .. \""),
            QStringLiteral("n\nredis.call('SET','pwned','4')\n"),
        };
        for (const QString &attack : attacks) {
            model::Policy policy = makePolicy(attack, Algorithm::FixedWindow, 1, 1000);
            policy.description = attack + QStringLiteral(" \u00e9\u4e2d\u0000\u0001");
            hostile << policy;
        }
        const model::LimiterLibrary library = model::LimiterLibrary::build(hostile, {}, model::LibraryOwner{}, 1);
        QCOMPARE(test::loadLibrary(*m_connection, library), QString());
        QCOMPARE(call({"EXISTS", "pwned"}).value.integer, 0);
        const RedisReply table = call({"FCALL_RO", "sluice_policies", "0"});
        QCOMPARE(table.value.elements.size(), attacks.size());
        QStringList names, descriptions;
        for (const redis::RespValue &row : table.value.elements) {
            names << QString::fromUtf8(row.elements.at(0).bytes);
            descriptions << QString::fromUtf8(row.elements.at(6).bytes);
        }
        QStringList expected = attacks;
        expected.sort();
        QCOMPARE(names, expected);
        for (const model::Policy &policy : hostile)
            QVERIFY(descriptions.contains(policy.description));
        QCOMPARE(call({"EXISTS", "pwned"}).value.integer, 0);
    }

    void versionNamesWhatRuns()
    {
        const model::LimiterLibrary library
            = model::LimiterLibrary::build(test::contractPolicies(), {}, model::LibraryOwner{}, 42);
        QCOMPARE(test::loadLibrary(*m_connection, library), QString());
        const RedisReply version = call({"FCALL_RO", "sluice_version", "0"});
        QCOMPARE(version.value.elements.at(0).integer, 42);
        QCOMPARE(version.value.elements.at(1).bytes, library.digest);
        QCOMPARE(version.value.elements.at(2).bytes, QByteArray(SLUICE_VERSION));
        QCOMPARE(version.value.elements.at(3).integer, test::contractPolicies().size());
        QCOMPARE(version.value.elements.at(4).bytes, QByteArray("sluice"));
        // Same policies, same digest; one changed limit, another digest.
        QVector<model::Policy> changed = test::contractPolicies();
        changed[0].limit += 1;
        QCOMPARE(model::LimiterLibrary::build(test::contractPolicies(), {}, model::LibraryOwner{}, 43).digest,
                 library.digest);
        QVERIFY(model::LimiterLibrary::build(changed, {}, model::LibraryOwner{}, 42).digest != library.digest);
    }
};

QTEST_GUILESS_MAIN(TestLimiterFunctions)
#include "tst_limiter_functions.moc"
