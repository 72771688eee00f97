// SPDX-License-Identifier: GPL-3.0-or-later
// What the limiter library enforces against a caller that may call it, one rule after another
// (docs/limiter-contract.md#what-the-library-enforces).

#include "model/limiter/bucket_key.h"
#include "model/limiter/limiter_library.h"
#include "support/limiter_support.h"
#include "support/limiter_test_case.h"
#include "support/redis_process.h"
#include "support/sync_command.h"

#include <QFile>
#include <QTest>

using namespace sluice;
using model::Algorithm;
using redis::RedisConnection;
using redis::RedisReply;
using test::bucketKey;
using test::makePolicy;

namespace {

constexpr qint64 kStart = test::kTestClockStart;

const QByteArray kNever = "6"; // above every contract policy's capacity: it fits none of them, ever

// The test clock, and a test-only function that collects all garbage and answers the bytes the
// library's Lua heap then holds: what it really keeps, free of the collector's lag.
QByteArray clockWithLiveBytes()
{
    QFile clock(QStringLiteral(":/test/test_clock.lua"));
    if (!clock.open(QIODevice::ReadOnly))
        return {};
    return clock.readAll()
        + "redis.register_function('sluice_test_live_bytes', function()\n"
          "    collectgarbage('collect')\n"
          "    return math.floor(collectgarbage('count') * 1024)\n"
          "end)\n";
}

} // namespace

class TestLimiterTrust : public test::LimiterTestCase {
    Q_OBJECT

    QVector<qint64> acquire(const QByteArray &policy, const QByteArray &subject, const QByteArray &cost = "1")
    {
        return integers(
            call({"FCALL", "sluice_acquire", "1", bucketKey(QString::fromUtf8(policy), subject), policy, cost}));
    }

    QVector<qint64> peek(const QByteArray &policy, const QByteArray &subject, const QByteArray &cost = "1")
    {
        return integers(
            call({"FCALL_RO", "sluice_peek", "1", bucketKey(QString::fromUtf8(policy), subject), policy, cost}));
    }

    QByteArray inspected(const QByteArray &policy, const QByteArray &subject, const char *field)
    {
        const RedisReply reply
            = call({"FCALL_RO", "sluice_inspect", "1", bucketKey(QString::fromUtf8(policy), subject), policy});
        const redis::RespValue *value = reply.value.field(field);
        if (!value)
            return "(" + reply.errorText().toUtf8() + ")";
        return value->isInteger() ? QByteArray::number(value->integer) : value->bytes;
    }

    // A policy's rejected total in sluice_stats.
    qint64 rejectedTotal(const QByteArray &policy)
    {
        const QVector<redis::RespValue> fields = call({"FCALL_RO", "sluice_stats", "0"}).value.elements;
        for (qsizetype i = 2; i + 3 < fields.size(); i += 4)
            if (fields.at(i).bytes == policy)
                return fields.at(i + 2).integer;
        return -1;
    }

    // The subjects sluice_most_rejected lists for a policy, with their counts.
    QMap<QByteArray, qint64> mostRejected(const QByteArray &policy)
    {
        const QVector<redis::RespValue> fields = call({"FCALL_RO", "sluice_most_rejected", "0", policy}).value.elements;
        QMap<QByteArray, qint64> subjects;
        for (qsizetype i = 3; i + 2 < fields.size(); i += 3)
            subjects.insert(fields.at(i).bytes, fields.at(i + 1).integer);
        return subjects;
    }

    // Every key, its serialized value and its absolute expiry: equal snapshots mean nothing changed.
    QMap<QByteArray, QByteArray> keyspace()
    {
        QMap<QByteArray, QByteArray> snapshot;
        for (const redis::RespValue &key : call({"KEYS", "*"}).value.elements)
            snapshot.insert(key.bytes,
                            call({"DUMP", key.bytes}).value.bytes + " expires "
                                + QByteArray::number(call({"PEXPIRETIME", key.bytes}).value.integer));
        return snapshot;
    }

    // Sends the commands pipelined; returns how many replies were errors.
    int sendAll(const QVector<QByteArrayList> &commands)
    {
        int pending = 0, errors = 0;
        for (const QByteArrayList &command : commands) {
            ++pending;
            m_connection->send(command, this, [&pending, &errors](const RedisReply &reply) {
                --pending;
                errors += reply.ok() ? 0 : 1;
            });
        }
        if (!test::spinUntil([&pending] { return pending == 0; }, 120000))
            return -1;
        return errors;
    }

private Q_SLOTS:
    void initTestCase() { startServer(); }

    void init()
    {
        QVERIFY(call({"FLUSHALL"}).ok());
        loadLibrary(test::testClockLibrary(test::contractPolicies()));
        setClock(kStart);
    }

    // The attack: sluice_check on a policy's bucket with parameters of its own would refill it.
    void checkNeverReachesAPolicysBucket()
    {
        for (int i = 0; i < 5; ++i)
            QCOMPARE(acquire("tb", "victim").value(0), 1);
        const auto before = keyspace();
        for (const QByteArray &key : {bucketKey(QStringLiteral("tb"), "victim"), QByteArray("sluice:tb:{new}"),
                                      QByteArray("sluice:not-yet-a-policy:{x}"), QByteArray("sluice:{x}")}) {
            const RedisReply refused
                = call({"FCALL", "sluice_check", "1", key, "token_bucket", "1000000000", "1", "1000000000"});
            QVERIFY2(refused.errorText().contains(QLatin1String("where policies keep their buckets")),
                     qPrintable(refused.errorText()));
            QVERIFY2(refused.errorText().contains(QLatin1String("\"sluice:~<label>:{<subject>}\"")),
                     qPrintable(refused.errorText()));
        }
        // Another namespace's buckets too, whatever its policies.
        QVERIFY(call({"SET", "teamb:login:{victim}", "untouched"}).ok());
        for (const QByteArray &key : {QByteArray("teamb:login:{victim}"), QByteArray("sluice-fire:tb:{x}")}) {
            const RedisReply refused
                = call({"FCALL", "sluice_check", "1", key, "token_bucket", "1000000000", "1", "1000000000"});
            QVERIFY2(refused.errorText().contains(QLatin1String("has the shape of a policy bucket")),
                     (key + ": " + refused.errorText().toUtf8()).constData());
        }
        QCOMPARE(call({"GET", "teamb:login:{victim}"}).value.bytes, QByteArray("untouched"));
        QVERIFY(call({"DEL", "teamb:login:{victim}"}).ok());
        QCOMPARE(keyspace(), before);
        QCOMPARE(acquire("tb", "victim").value(0), 0);

        // Its own keys: in the namespace behind `~` (no policy name starts with it), or outside it.
        for (const QByteArray &key : {QByteArray("sluice:~own:{victim}"), QByteArray("sluice:~a:b:{victim}"),
                                      QByteArray("sluice-fire:run:1:tb:{victim}"), QByteArray("mine:{victim}")}) {
            const RedisReply checked = call({"FCALL", "sluice_check", "1", key, "token_bucket", "10", "1000", "5"});
            QVERIFY2(checked.ok() && checked.value.elements.value(0).integer == 1, qPrintable(checked.errorText()));
            QCOMPARE(call({"EXISTS", key}).value.integer, 1);
        }
        // One pair of braces, around a non-empty subject, at the end.
        for (const QByteArray &key :
             {QByteArray("sluice:~own:victim"), QByteArray("mine:{a}{b}"), QByteArray("mine:{}"),
              QByteArray("{sluice}:policies"), QByteArray("mine:{a}b")}) {
            const RedisReply refused = call({"FCALL", "sluice_check", "1", key, "token_bucket", "10", "1000", "5"});
            QVERIFY2(refused.errorText().contains(QLatin1String("is not <label>:{<subject>}"))
                         || refused.errorText().contains(QLatin1String("where policies keep")),
                     (key + ": " + refused.errorText().toUtf8()).constData());
        }
    }

    // 512 bytes as the key holds them pass every function that takes a bucket key; 513 are refused,
    // naming the maximum, and change nothing.
    void subjectsAreBoundedOnEveryFunction()
    {
        const QByteArray longest(model::maxSubjectBytes, 's'), over(model::maxSubjectBytes + 1, 's');
        const QByteArray cc = bucketKey(QStringLiteral("cc"), longest);
        const RedisReply leased = call({"FCALL", "sluice_acquire", "1", cc, "cc"});
        QCOMPARE(leased.value.elements.value(0).integer, 1);
        const QByteArray lease = leased.value.elements.value(6).bytes;
        QCOMPARE(acquire("tb", longest).value(0), 1);
        QCOMPARE(peek("tb", longest).value(0), 1);
        QCOMPARE(inspected("tb", longest, "allowed"), QByteArray("1"));
        QCOMPARE(call({"FCALL", "sluice_release", "1", cc, "cc", lease}).value.integer, 1);
        QCOMPARE(
            call({"FCALL", "sluice_check", "1", "sluice:~own:{" + longest + '}', "token_bucket", "10", "1000", "5"})
                .value.elements.value(0)
                .integer,
            1);

        const auto before = keyspace();
        const QByteArray tb = bucketKey(QStringLiteral("tb"), over);
        const QVector<QByteArrayList> refused{
            {"FCALL", "sluice_acquire", "1", tb, "tb"},
            {"FCALL", "sluice_acquire", "2", bucketKey(QStringLiteral("gc"), over), tb, "gc", "tb"},
            {"FCALL_RO", "sluice_peek", "1", tb, "tb"},
            {"FCALL_RO", "sluice_inspect", "1", tb, "tb"},
            {"FCALL", "sluice_release", "1", bucketKey(QStringLiteral("cc"), over), "cc", "1-1:1"},
            {"FCALL", "sluice_check", "1", "sluice:~own:{" + over + '}', "token_bucket", "10", "1000", "5"},
            {"FCALL", "sluice_check", "1", "elsewhere:{" + over + '}', "token_bucket", "10", "1000", "5"},
        };
        for (const QByteArrayList &command : refused) {
            const RedisReply reply = call(command);
            QVERIFY2(reply.errorText().startsWith(QLatin1String("ERR sluice: the subject of key"))
                         && reply.errorText().contains(QLatin1String("is 513 bytes; the most is 512")),
                     (command.at(1) + ": " + reply.errorText().toUtf8()).constData());
        }
        QCOMPARE(keyspace(), before);
    }

    // Lua memory: per policy the most rejected summary keeps at most 32 keys, and the counts a few
    // totals, whatever the number of subjects. With the longest names (64-byte namespace and policy) a
    // key is at most 64 + 1 + 64 + 2 + 512 + 1 = 644 bytes, about 670 as a Lua string: 32 x 670 = 21 KB,
    // its two tables a few more. The bound per policy is 32 KiB; before subjects were bounded, 32 subjects
    // of 4 MB took 256 MB.
    void libraryMemoryStaysBounded()
    {
        constexpr qint64 perPolicyBound = 32 * 1024;
        const QString ns(64, QLatin1Char('n'));
        const model::LibraryOwner owner{ns, 0}; // its library sits beside the default namespace's
        QVector<model::Policy> policies;
        for (const Algorithm algorithm :
             {Algorithm::TokenBucket, Algorithm::FixedWindow, Algorithm::SlidingLog, Algorithm::Concurrency}) {
            const QString name = model::algorithmName(algorithm).leftJustified(64, QLatin1Char('x'));
            policies << makePolicy(name, algorithm, 10, 60000, 10);
        }
        const QByteArray clock = clockWithLiveBytes();
        QVERIFY(!clock.isEmpty());
        loadLibrary(model::LimiterLibrary::build(policies, {}, owner, 1, clock));
        QVERIFY(call({"FCALL", owner.function("test_set_clock"), "0", QByteArray::number(kStart)}).ok());
        auto info = [this] {
            const QByteArray text = call({"INFO", "memory"}).value.bytes;
            const qsizetype at = text.indexOf("used_memory_vm_functions:");
            return text.mid(at + 25, text.indexOf('\r', at) - at - 25).toLongLong();
        };
        auto live = [this] { return call({"FCALL", "sluice_test_live_bytes", "0"}).value.integer; };
        // Rejected calls of distinct longest subjects (above the capacity: no key is written).
        auto flood = [&](const model::Policy &policy, int subjects, const QByteArray &stem) {
            QVector<QByteArrayList> commands;
            for (int i = 0; i < subjects; ++i) {
                const QByteArray subject = (stem + QByteArray::number(i)).leftJustified(model::maxSubjectBytes, '.');
                commands.append({"FCALL", owner.function("acquire"), "1", model::bucketKey(ns, policy.name, subject),
                                 policy.name.toUtf8(), "11"});
            }
            QCOMPARE(sendAll(commands), 0);
        };
        for (const model::Policy &policy : policies)
            QCOMPARE(call({"FCALL_RO", owner.function("peek"), "1", model::bucketKey(ns, policy.name, "warm"),
                           policy.name.toUtf8()})
                         .value.elements.value(0)
                         .integer,
                     1);
        const qint64 infoBefore = info(), liveBefore = live();

        flood(policies.first(), 10000, "first-");
        for (const model::Policy &policy : policies.mid(1))
            flood(policy, 1000, "first-");
        // Another crowd of subjects, every one taking a place in the full summaries.
        for (const model::Policy &policy : policies)
            flood(policy, 1000, "second-");
        const qint64 infoAfter = info(), liveAfter = live();
        const qint64 bound = policies.size() * perPolicyBound;
        qInfo("Lua memory of the library (used_memory_vm_functions): %lld before, %lld after 10,000 + 3 x 1,000 + "
              "4 x 1,000 rejected calls of distinct %lld-byte subjects on 4 policies; after a full collection %lld "
              "then %lld (+%lld, bound %lld)",
              infoBefore, infoAfter, qint64(model::maxSubjectBytes), liveBefore, liveAfter, liveAfter - liveBefore,
              bound);
        QVERIFY2(liveAfter - liveBefore <= bound, qPrintable(QString::number(liveAfter - liveBefore)));
        // Uncollected garbage: Lua starts a collection when its heap has doubled since the last one.
        QVERIFY2(infoAfter <= 3 * (liveBefore + bound), qPrintable(QString::number(infoAfter)));

        // The summary holds 32 subjects of at most 512 bytes.
        const QVector<redis::RespValue> listed
            = call({"FCALL_RO", owner.function("most_rejected"), "0", policies.first().name.toUtf8()}).value.elements;
        QCOMPARE(listed.size(), 3 + 32 * 3);
        for (qsizetype i = 3; i < listed.size(); i += 3)
            QCOMPARE(listed.at(i).bytes.size(), model::maxSubjectBytes);

        // The attack that grew it to 256 MB: subjects of megabytes are refused before anything is kept.
        const QByteArray huge(1 << 20, 'h');
        for (int i = 0; i < 8; ++i) {
            const RedisReply refused = call({"FCALL", owner.function("acquire"), "1",
                                             model::bucketKey(ns, policies.first().name, huge + QByteArray::number(i)),
                                             policies.first().name.toUtf8(), "11"});
            QVERIFY2(refused.errorText().contains(QLatin1String("the most is 512")), qPrintable(refused.errorText()));
        }
        QVERIFY2(live() - liveAfter < 16 * 1024, qPrintable(QString::number(live() - liveAfter)));
    }

    // A multi-policy call whose second key holds another type fails, and leaves the first bucket as
    // it was (new or existing, content and expiry), whatever its algorithm: fixed_window counts ahead
    // and takes the count back, the others only read before deciding.
    void aFailedCallChangesNothing_data()
    {
        QTest::addColumn<QByteArray>("first");
        QTest::addColumn<bool>("existing");
        QTest::addColumn<QByteArray>("cost");
        for (const char *first : {"tb", "fw", "sw", "sl", "lb", "gc", "cc"})
            for (const bool existing : {false, true})
                for (const QByteArray &cost : {QByteArray("1"), kNever})
                    QTest::addRow("%s, %s bucket, cost %s", first, existing ? "existing" : "new", cost.constData())
                        << QByteArray(first) << existing << cost;
    }

    void aFailedCallChangesNothing()
    {
        QFETCH(QByteArray, first);
        QFETCH(bool, existing);
        QFETCH(QByteArray, cost);
        const QByteArray second = first == "tb" ? "gc" : "tb";
        const QByteArray firstKey = bucketKey(QString::fromUtf8(first), "s");
        const QByteArray secondKey = bucketKey(QString::fromUtf8(second), "s");
        QVERIFY(call({"RPUSH", secondKey, "not a bucket"}).ok());
        if (existing) {
            QCOMPARE(acquire(first, "s").value(0), 1);
            setClock(kStart + 1000); // a fixed window's next window: its first call would fold the last one
        }
        const auto before = keyspace();
        const qint64 rejected = rejectedTotal(first);

        const RedisReply failed = call({"FCALL", "sluice_acquire", "2", firstKey, secondKey, first, second, cost});
        QVERIFY2(failed.errorText().contains(QLatin1String("does not hold a")), qPrintable(failed.errorText()));
        QCOMPARE(keyspace(), before);
        QCOMPARE(call({"EXISTS", firstKey}).value.integer, existing ? 1 : 0);
        QCOMPARE(rejectedTotal(first), rejected);
    }

    // A cost above what the policy admits at once can never pass: a rejection with retry_after_ms -2,
    // remaining and reset_after_ms as they stand, counted per key (in a bucket that exists; none is
    // created), per policy and in the top list; peeking counts nothing.
    void aCallThatCanNeverPassIsARejection_data()
    {
        QTest::addColumn<QByteArray>("policy");
        QTest::addColumn<qint64>("capacity");
        QTest::addColumn<qint64>("limit");
        QTest::newRow("token_bucket") << QByteArray("tb") << qint64(5) << qint64(10);
        QTest::newRow("fixed_window") << QByteArray("fw") << qint64(3) << qint64(3);
        QTest::newRow("sliding_window") << QByteArray("sw") << qint64(3) << qint64(3);
        QTest::newRow("sliding_log") << QByteArray("sl") << qint64(3) << qint64(3);
        QTest::newRow("leaky_bucket") << QByteArray("lb") << qint64(3) << qint64(1);
        QTest::newRow("gcra") << QByteArray("gc") << qint64(5) << qint64(10);
        QTest::newRow("concurrency") << QByteArray("cc") << qint64(2) << qint64(2);
    }

    void aCallThatCanNeverPassIsARejection()
    {
        QFETCH(QByteArray, policy);
        QFETCH(qint64, capacity);
        QFETCH(qint64, limit);
        const QByteArray tooMuch = QByteArray::number(capacity + 1);
        QCOMPARE(peek(policy, "n", tooMuch), (QVector<qint64>{0, capacity, -2, 0, limit, -999}));
        QCOMPARE(acquire(policy, "n", tooMuch), (QVector<qint64>{0, capacity, -2, 0, limit, -999}));
        QCOMPARE(call({"EXISTS", bucketKey(QString::fromUtf8(policy), "n")}).value.integer, 0);
        QCOMPARE(rejectedTotal(policy), 1);

        QCOMPARE(acquire(policy, "n").value(0), 1);
        const QVector<qint64> standing = peek(policy, "n");
        QCOMPARE(acquire(policy, "n", "1000000000"),
                 (QVector<qint64>{0, standing.value(1), -2, standing.value(3), limit, -999}));
        QCOMPARE(peek(policy, "n"), standing); // nothing consumed
        QCOMPARE(inspected(policy, "n", "rejected"), QByteArray("1"));
        QCOMPARE(rejectedTotal(policy), 2);
        QCOMPARE(mostRejected(policy), (QMap<QByteArray, qint64>{{"n", 2}}));
        QCOMPARE(peek(policy, "n", tooMuch).value(2), -2);
        QCOMPARE(inspected(policy, "n", "rejected"), QByteArray("1"));
        QCOMPARE(rejectedTotal(policy), 2);

        // sluice_check with the same parameters.
        const model::Policy definition
            = test::contractPolicies().at(QByteArrayList{"tb", "fw", "sw", "sl", "lb", "gc", "cc"}.indexOf(policy));
        const RedisReply checked
            = call({"FCALL", "sluice_check", "1", "sluice:~own:{n}",
                    model::algorithmName(definition.algorithm).toUtf8(), QByteArray::number(definition.limit),
                    QByteArray::number(definition.windowMs), QByteArray::number(definition.effectiveBurst()), tooMuch});
        QCOMPARE(integers(checked).mid(0, 5), (QVector<qint64>{0, capacity, -2, 0, limit}));
        QCOMPARE(call({"EXISTS", "sluice:~own:{n}"}).value.integer, 0);
    }

    // Beside a finite wait, the policy the call can never pass decides; a shadow policy counts it and
    // admits.
    void theNeverPassingPolicyDecides()
    {
        const QByteArray tb = bucketKey(QStringLiteral("tb"), "m"), fw = bucketKey(QStringLiteral("fw"), "m");
        QCOMPARE(acquire("tb", "m", "5").value(0), 1); // tb empty: 4 tokens take 400 ms
        for (const QByteArrayList &command :
             {QByteArrayList{"FCALL", "sluice_acquire", "2", tb, fw, "tb", "fw", "4"},
              QByteArrayList{"FCALL", "sluice_acquire", "2", fw, tb, "fw", "tb", "4"},
              QByteArrayList{"FCALL_RO", "sluice_peek", "2", tb, fw, "tb", "fw", "4"}}) {
            const RedisReply reply = call(command);
            QCOMPARE(integers(reply).mid(0, 5), (QVector<qint64>{0, 3, -2, 0, 3}));
            QCOMPARE(reply.value.elements.value(5).bytes, QByteArray("fw"));
        }
        QCOMPARE(rejectedTotal("tb"), 2); // each enforcing policy that rejected counts it
        QCOMPARE(rejectedTotal("fw"), 2);

        const QByteArray shadow = bucketKey(QStringLiteral("shadow"), "m");
        const RedisReply admitted
            = call({"FCALL", "sluice_acquire", "2", shadow, bucketKey(QStringLiteral("gc"), "m"), "shadow", "gc", "2"});
        QCOMPARE(integers(admitted).mid(0, 3), (QVector<qint64>{1, 3, -1}));
        QCOMPARE(admitted.value.elements.value(5).bytes, QByteArray("gc"));
        QCOMPARE(rejectedTotal("shadow"), 1);
    }

    // An entry scored +inf would never end; a bookkeeping score of -inf is no count.
    void nonFiniteZsetScoresAreForeignData_data()
    {
        QTest::addColumn<QByteArray>("policy");
        QTest::addColumn<QByteArrayList>("members");
        for (const char *policy : {"sl", "cc"}) {
            const QByteArray entry = QByteArray(policy) == "sl" ? "1:1" : "1-1:1";
            QTest::addRow("%s: entry scored +inf", policy)
                << QByteArray(policy) << QByteArrayList{"+inf", entry, "-1", "~u", "-1", "~a", "-1", "~s"};
            QTest::addRow("%s: units held -inf", policy) << QByteArray(policy) << QByteArrayList{"-inf", "~u"};
            QTest::addRow("%s: newest entry -inf", policy) << QByteArray(policy) << QByteArrayList{"-inf", "~t"};
        }
    }

    void nonFiniteZsetScoresAreForeignData()
    {
        QFETCH(QByteArray, policy);
        QFETCH(QByteArrayList, members);
        const QByteArray key = bucketKey(QString::fromUtf8(policy), "z");
        QVERIFY(call(QByteArrayList{"ZADD", key} + members).ok());
        const auto before = keyspace();
        for (const QByteArrayList &command : {QByteArrayList{"FCALL", "sluice_acquire", "1", key, policy},
                                              QByteArrayList{"FCALL_RO", "sluice_peek", "1", key, policy},
                                              QByteArrayList{"FCALL_RO", "sluice_inspect", "1", key, policy}}) {
            const RedisReply reply = call(command);
            QVERIFY2(reply.errorText().contains(QLatin1String("does not hold a")), qPrintable(reply.errorText()));
        }
        QCOMPARE(keyspace(), before);
    }

    // A read the caller's ACL refuses is no foreign data: the refusal is passed on as Redis worded it
    // (7.0: "The user executing the script can't run this command"; NOPERM where Redis says so), and a
    // call with several policies that fails that way changes nothing.
    void aReadTheAclRefusesSaysSo()
    {
        QVERIFY(call({"ACL", "SETUSER", "noread", "reset", "on", ">pw", "~*", "+@all", "-get", "-zrange", "-hgetall"})
                    .ok());
        redis::ConnectionOptions options = m_redis.options();
        options.user = QStringLiteral("noread");
        options.password = QStringLiteral("pw");
        RedisConnection noRead(options);
        QVERIFY(test::openAndWait(noRead));
        const QVector<QByteArrayList> refused{
            {"FCALL", "sluice_acquire", "1", bucketKey(QStringLiteral("tb"), "a"), "tb"},
            {"FCALL", "sluice_acquire", "1", bucketKey(QStringLiteral("gc"), "a"), "gc"},
            {"FCALL", "sluice_acquire", "1", bucketKey(QStringLiteral("sl"), "a"), "sl"},
            {"FCALL_RO", "sluice_peek", "1", bucketKey(QStringLiteral("fw"), "a"), "fw"},
            {"FCALL", "sluice_acquire", "2", bucketKey(QStringLiteral("fw"), "a"), bucketKey(QStringLiteral("tb"), "a"),
             "fw", "tb"},
            {"FCALL", "sluice_check", "1", "sluice:~own:{a}", "token_bucket", "10", "1000", "5"},
        };
        QCOMPARE(acquire("fw", "a").value(0), 1);
        const auto before = keyspace();
        for (const QByteArrayList &command : refused) {
            const QString error = test::syncCommand(noRead, command).errorText();
            QVERIFY2(!error.contains(QLatin1String("does not hold"))
                         && (error.contains(QLatin1String("NOPERM"))
                             || error.contains(QLatin1String("can't run this command"))),
                     (command.join(' ').left(60) + ": " + error.toUtf8()).constData());
        }
        QCOMPARE(keyspace(), before);
    }
};

QTEST_GUILESS_MAIN(TestLimiterTrust)
#include "tst_limiter_trust.moc"
