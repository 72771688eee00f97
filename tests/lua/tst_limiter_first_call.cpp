// SPDX-License-Identifier: GPL-3.0-or-later
// Fixed windows that open at a subject's first call (window_start first_call) against a real
// redis-server on its real clock: the bucket key's expiry times the window, so no test clock can
// stand in and these tests wait in real time. The contract of the mode, what it does with other
// data under its keys, and a randomized comparison with the reference model, both replies.

#include "model/limiter/bucket_key.h"
#include "model/limiter/limiter_library.h"
#include "support/limiter_support.h"
#include "support/limiter_test_case.h"
#include "support/sync_command.h"

#include <QElapsedTimer>
#include <QRandomGenerator>
#include <QTest>

using namespace sluice;
using model::Algorithm;
using redis::RedisReply;
using test::bucketKey;

namespace {

constexpr qint64 kWindowMs = 600;
constexpr qint64 kWeekMs = 7 * 24 * 3600 * 1000LL;

model::Policy firstCall(const QString &name, qint64 limit, qint64 windowMs)
{
    model::Policy policy = test::makePolicy(name, Algorithm::FixedWindow, limit, windowMs);
    policy.windowStart = model::WindowStart::FirstCall;
    return policy;
}

QVector<model::Policy> policies()
{
    return {firstCall(QStringLiteral("fc"), 3, kWindowMs), firstCall(QStringLiteral("random"), 4, 150),
            // The same window aligned, for a change of window start.
            test::makePolicy(QStringLiteral("aligned"), Algorithm::FixedWindow, 3, kWindowMs),
            // Blocks everything after one call, for the all-or-nothing checks.
            test::makePolicy(QStringLiteral("once"), Algorithm::FixedWindow, 1, kWeekMs),
            // Its window start changed, with a window no test outlasts.
            firstCall(QStringLiteral("fc-week"), 3, kWeekMs)};
}

} // namespace

class TestLimiterFirstCall : public test::LimiterTestCase {
    Q_OBJECT

    QVector<qint64> fcall(const QByteArray &function, const QByteArrayList &keysThenArgs, int keyCount = 1)
    {
        return integers(call(QByteArrayList{"FCALL", function, QByteArray::number(keyCount)} + keysThenArgs));
    }

    qint64 integerOf(const QByteArrayList &command)
    {
        const RedisReply reply = call(command);
        return reply.value.isInteger() ? reply.value.integer : reply.value.bytes.toLongLong();
    }

    // A policy's totals in sluice_stats: admitted, rejected.
    QPair<qint64, qint64> policyTotals(const QByteArray &policy)
    {
        const QVector<redis::RespValue> fields = call({"FCALL_RO", "sluice_stats", "0"}).value.elements;
        for (qsizetype i = 2; i + 2 < fields.size(); i += 4) {
            if (fields.at(i).bytes == policy)
                return {fields.at(i + 1).integer, fields.at(i + 2).integer};
        }
        return {-1, -1};
    }

    // The server's clock in ms.
    qint64 serverMs()
    {
        const QVector<redis::RespValue> time = call({"TIME"}).value.elements;
        return time.size() == 2 ? time.at(0).bytes.toLongLong() * 1000 + time.at(1).bytes.toLongLong() / 1000 : -1;
    }

    // Waits until the key's window has ended (its key expired).
    bool windowEnds(const QByteArray &key)
    {
        return test::spinUntil([&] { return integerOf({"EXISTS", key}) == 0; }, 5000);
    }

private Q_SLOTS:
    void initTestCase() { startServer(); }

    void init()
    {
        QVERIFY(call({"FLUSHALL"}).ok());
        loadLibrary(model::LimiterLibrary::build(policies(), {}, model::LibraryOwner{QStringLiteral("sluice"), 0}, 1));
    }

    // The window opens at the first call and lasts window_ms, timed by the key; a call that does not
    // fit waits for the key to go. Rejections of cost 1 stay in the count, larger ones are taken back.
    void aWindowOpensAtTheFirstCallAndEndsWithItsKey()
    {
        const QByteArray key = bucketKey(QStringLiteral("fc"), "u");
        QElapsedTimer opened;
        opened.start();
        QCOMPARE(fcall("sluice_acquire", {key, "fc"}).mid(0, 5), (QVector<qint64>{1, 2, -1, kWindowMs, 3}));
        const qint64 left = integerOf({"PTTL", key});
        QVERIFY2(left >= 0 && left < kWindowMs, qPrintable(QString::number(left)));

        const QVector<qint64> second = fcall("sluice_acquire", {key, "fc", "2"});
        QCOMPARE(second.mid(0, 3), (QVector<qint64>{1, 0, -1}));
        QVERIFY(second.at(3) > 0 && second.at(3) <= kWindowMs);

        const QVector<qint64> full = fcall("sluice_acquire", {key, "fc"});
        QCOMPARE(full.mid(0, 2), (QVector<qint64>{0, 0}));
        QVERIFY2(full.at(2) > 0 && full.at(2) <= kWindowMs - opened.elapsed() + 2,
                 qPrintable(QString::number(full.at(2))));
        QCOMPARE(full.at(3), full.at(2));
        QCOMPARE(fcall("sluice_acquire", {key, "fc", "2"}).mid(0, 2), (QVector<qint64>{0, 0}));
        QCOMPARE(call({"GET", key}).value.bytes, QByteArray("4")); // 3 admitted and one rejection of cost 1

        const RedisReply state = call({"FCALL_RO", "sluice_inspect", "1", key, "fc"});
        QCOMPARE(state.value.field("allowed")->integer, 3);
        QCOMPARE(state.value.field("rejected")->integer, 1);
        QCOMPARE(state.value.field("available")->integer, 0);

        QVERIFY(windowEnds(key));
        QVERIFY2(opened.elapsed() >= kWindowMs - 2, qPrintable(QString::number(opened.elapsed())));
        QCOMPARE(fcall("sluice_acquire", {key, "fc"}).mid(0, 4), (QVector<qint64>{1, 2, -1, kWindowMs}));
    }

    // sluice_allow's three elements, counted per key and per policy like the full reply.
    void theLeanReplyCountsTheSame()
    {
        const QByteArray key = bucketKey(QStringLiteral("fc"), "lean");
        QCOMPARE(fcall("sluice_allow", {key, "fc", "3"}), (QVector<qint64>{1, 0, 0}));
        const QVector<qint64> rejected = fcall("sluice_allow", {key, "fc"});
        QCOMPARE(rejected.mid(0, 2), (QVector<qint64>{0, 0}));
        QVERIFY(rejected.at(2) > 0 && rejected.at(2) <= kWindowMs);
        QCOMPARE(policyTotals("fc"), qMakePair(qint64(1), qint64(1)));
    }

    // Peeking and inspecting read the window without opening one.
    void peekReadsWithoutOpeningAWindow()
    {
        const QByteArray key = bucketKey(QStringLiteral("fc"), "peek");
        QCOMPARE(fcall("sluice_peek", {key, "fc"}).mid(0, 4), (QVector<qint64>{1, 3, -1, 0}));
        QCOMPARE(integerOf({"EXISTS", key}), 0);
        fcall("sluice_acquire", {key, "fc"});
        const QVector<qint64> peeked = fcall("sluice_peek", {key, "fc", "3"});
        QCOMPARE(peeked.mid(0, 2), (QVector<qint64>{0, 2}));
        QVERIFY(peeked.at(2) > 0 && peeked.at(2) <= kWindowMs);
        QCOMPARE(call({"GET", key}).value.bytes, QByteArray("1"));
    }

    // Over several policies a call is all or nothing: a window the call opened is removed again, and
    // one under way gets its count back.
    void aCallRejectedElsewhereLeavesTheWindowAsItWas()
    {
        const QByteArray window = bucketKey(QStringLiteral("fc"), "both");
        const QByteArray blocker = bucketKey(QStringLiteral("once"), "both");
        QCOMPARE(fcall("sluice_acquire", {blocker, "once"}).value(0), 1);
        QCOMPARE(fcall("sluice_acquire", {window, blocker, "fc", "once"}, 2).value(0), 0);
        QCOMPARE(integerOf({"EXISTS", window}), 0);
        QCOMPARE(fcall("sluice_acquire", {window, "fc"}).value(0), 1);
        QCOMPARE(fcall("sluice_acquire", {window, blocker, "fc", "once"}, 2).value(0), 0);
        QCOMPARE(call({"GET", window}).value.bytes, QByteArray("1"));
        QVERIFY(integerOf({"PTTL", window}) > 0);
    }

    // A bucket the policy's other window start left keeps its window in progress (the next test), but
    // an aligned window that has ended is a new window; other data under the key is foreign, refused
    // and left as it was.
    void otherDataUnderTheKey()
    {
        const QByteArray aligned = bucketKey(QStringLiteral("fc"), "aligned");
        QVERIFY(call({"HSET", aligned, "a", "7", "r", "1", "2954120", "2"}).ok());
        QCOMPARE(fcall("sluice_acquire", {aligned, "fc"}).mid(0, 4), (QVector<qint64>{1, 2, -1, kWindowMs}));
        QCOMPARE(call({"TYPE", aligned}).value.bytes, QByteArray("string"));

        for (const QByteArrayList &foreign : {QByteArrayList{"HSET", "x", "owner", "someone"},
                                              QByteArrayList{"SET", "x", "hello"}, QByteArrayList{"SADD", "x", "m"}}) {
            const QByteArray key = bucketKey(QStringLiteral("fc"), "foreign");
            QVERIFY(call({"DEL", key}).ok());
            QVERIFY(call(QByteArrayList{foreign.at(0), key} + foreign.mid(2)).ok());
            const QByteArray before = call({"DUMP", key}).value.bytes;
            for (const char *function : {"sluice_acquire", "sluice_allow", "sluice_peek"}) {
                const RedisReply reply = call({"FCALL", function, "1", key, "fc"});
                QVERIFY2(reply.errorText().contains(QLatin1String("does not hold a fixed_window bucket")),
                         qPrintable(reply.errorText()));
            }
            QCOMPARE(call({"DUMP", key}).value.bytes, before);
        }

        // A count too large to be exact, left by the other window start, is foreign data too.
        const QByteArray huge = "1234567890123456789";
        const QByteArray wasFirstCall = bucketKey(QStringLiteral("once"), "huge");
        QVERIFY(call({"SET", wasFirstCall, huge, "PX", "60000"}).ok());
        const QByteArray wasAligned = bucketKey(QStringLiteral("fc-week"), "huge");
        QVERIFY(call({"HSET", wasAligned, QByteArray::number(serverMs() / kWeekMs), huge}).ok());
        for (const auto &[key, policy] : {std::pair{wasFirstCall, QByteArray("once")}, {wasAligned, "fc-week"}}) {
            const QByteArray before = call({"DUMP", key}).value.bytes;
            for (const char *function : {"sluice_acquire", "sluice_allow", "sluice_peek"}) {
                const RedisReply reply = call({"FCALL", function, "1", key, policy});
                QVERIFY2(reply.errorText().contains(QLatin1String("does not hold a fixed_window bucket")),
                         qPrintable(QString::fromLatin1(policy + ' ' + function + ": ") + reply.errorText()));
            }
            QCOMPARE(call({"DUMP", key}).value.bytes, before);
        }
    }

    // Changing a policy's window start admits no call above the limit: a first-call count goes on in
    // the aligned window in progress, with that window's expiry, and an aligned window's count goes on
    // as a first-call count up to the aligned window's end. Each way is retried in a new window when the
    // server's clock turned an aligned window during it.
    void aChangedWindowStartKeepsTheWindowInProgress()
    {
        // First-call count 2 of 3, then the aligned policy.
        bool settled = false;
        for (int attempt = 0; attempt < 5 && !settled; ++attempt) {
            const QByteArray key
                = bucketKey(QStringLiteral("aligned"), "was-first-call-" + QByteArray::number(attempt));
            const qint64 before = serverMs();
            QVERIFY(call({"SET", key, "2", "PX", "60000"}).ok());
            QCOMPARE(fcall("sluice_peek", {key, "aligned"}).mid(0, 2), (QVector<qint64>{1, 1}));
            QCOMPARE(call({"TYPE", key}).value.bytes, QByteArray("string")); // a peek changes nothing
            QCOMPARE(fcall("sluice_acquire", {key, "aligned"}).mid(0, 2), (QVector<qint64>{1, 0}));
            QCOMPARE(call({"TYPE", key}).value.bytes, QByteArray("hash"));
            const qint64 id = before / kWindowMs;
            const QVector<qint64> full = fcall("sluice_acquire", {key, "aligned"});
            if (serverMs() / kWindowMs != id)
                continue; // the window turned: the count was carried into another one
            QCOMPARE(full.mid(0, 2), (QVector<qint64>{0, 0}));
            const QVector<redis::RespValue> fields = call({"HGETALL", key}).value.elements;
            QCOMPARE(fields.size(), 2);
            QCOMPARE(fields.at(0).bytes, QByteArray::number(id));
            QCOMPARE(fields.at(1).bytes, QByteArray("4")); // 3 admitted and one rejection of cost 1
            const qint64 expiresAt = integerOf({"PEXPIRETIME", key});
            QCOMPARE(expiresAt, (id + 2) * kWindowMs); // an aligned window's, not the old count's
            settled = true;
        }
        QVERIFY2(settled, "the server's clock turned an aligned window during every attempt");

        // An aligned window's count 2 of 3, then the first-call policy.
        settled = false;
        for (int attempt = 0; attempt < 5 && !settled; ++attempt) {
            const QByteArray key = bucketKey(QStringLiteral("fc"), "was-aligned-" + QByteArray::number(attempt));
            const qint64 before = serverMs();
            const qint64 id = before / kWindowMs, lastMs = (id + 1) * kWindowMs - 1;
            QVERIFY(
                call({"HSET", key, "a", "7", "r", "1", QByteArray::number(id - 1), "3", QByteArray::number(id), "2"})
                    .ok());
            QVERIFY(call({"PEXPIREAT", key, QByteArray::number(lastMs + kWindowMs + 1)}).ok());
            const QVector<qint64> peeked = fcall("sluice_peek", {key, "fc"});
            QCOMPARE(call({"TYPE", key}).value.bytes, QByteArray("hash")); // a peek changes nothing
            const QVector<qint64> admitted = fcall("sluice_acquire", {key, "fc"});
            const QVector<qint64> rejected = fcall("sluice_acquire", {key, "fc"});
            const qint64 after = serverMs();
            if (after / kWindowMs != id)
                continue;
            QCOMPARE(peeked.mid(0, 3), (QVector<qint64>{1, 1, -1}));
            QVERIFY2(peeked.at(3) > lastMs - after && peeked.at(3) <= lastMs + 1 - before,
                     qPrintable(QString::number(peeked.at(3))));
            QCOMPARE(admitted.mid(0, 3), (QVector<qint64>{1, 0, -1}));
            QVERIFY2(admitted.at(3) > lastMs - after && admitted.at(3) <= lastMs + 1 - before,
                     qPrintable(QString::number(admitted.at(3))));
            QCOMPARE(rejected.mid(0, 2), (QVector<qint64>{0, 0}));
            QVERIFY2(rejected.at(2) > lastMs - after && rejected.at(2) <= lastMs + 1 - before,
                     qPrintable(QString::number(rejected.at(2))));
            QCOMPARE(call({"GET", key}).value.bytes, QByteArray("4"));
            QCOMPARE(integerOf({"PEXPIRETIME", key}), lastMs); // gone with the aligned window
            settled = true;
        }
        QVERIFY2(settled, "the server's clock turned an aligned window during every attempt");
    }

    // A first-call window decides with its count and its key's expiry, so its calls read no clock at all,
    // admitted or rejected, full or lean, the per-policy counts included. An aligned window, a first-call
    // policy with subject rules and a key left by aligned windows read it (on the test clock, which counts).
    void theFirstCallPathReadsNoClock()
    {
        QVector<model::Policy> withRules = policies();
        model::Policy rules = firstCall(QStringLiteral("fc-rules"), 3, kWindowMs);
        rules.overrides = {{"vip", false, model::SubjectOverride::Kind::Limits, 10, 0}};
        withRules << rules;
        loadLibrary(test::testClockLibrary(withRules));
        setClock(test::kTestClockStart);
        const auto clockReads = [this] { return integerOf({"FCALL_RO", "sluice_test_clock_reads", "0"}); };
        // The library's first call reads it once, for when its counts began (sluice_stats' epoch).
        fcall("sluice_allow", {bucketKey(QStringLiteral("fc"), "first"), "fc"});
        QCOMPARE(clockReads(), 1);
        const qint64 before = clockReads();
        for (int i = 0; i < 10; ++i) {
            fcall("sluice_acquire", {bucketKey(QStringLiteral("fc"), "hot"), "fc"});
            fcall("sluice_allow", {bucketKey(QStringLiteral("fc"), "hot"), "fc"});
            fcall("sluice_allow", {bucketKey(QStringLiteral("fc"), "s" + QByteArray::number(i)), "fc"});
            fcall("sluice_acquire", {bucketKey(QStringLiteral("fc"), "s" + QByteArray::number(i)), "fc", "2"});
        }
        QCOMPARE(clockReads(), before);
        QCOMPARE(policyTotals("fc"), qMakePair(qint64(24), qint64(17))); // "hot": 3 then 17 rejected
        const qint64 afterRead = clockReads();
        QCOMPARE(afterRead, before + 1); // the reading itself stamps its reply

        fcall("sluice_acquire", {bucketKey(QStringLiteral("aligned"), "a"), "aligned"});
        QCOMPARE(clockReads(), afterRead + 1);
        fcall("sluice_acquire", {bucketKey(QStringLiteral("fc-rules"), "vip"), "fc-rules"});
        QCOMPARE(clockReads(), afterRead + 2);
        // An aligned window's hash under a first-call key: its window in progress goes on, read on the clock.
        const QByteArray left = bucketKey(QStringLiteral("fc"), "left");
        QVERIFY(call({"HSET", left, QByteArray::number(test::kTestClockStart / kWindowMs), "2"}).ok());
        QCOMPARE(fcall("sluice_acquire", {left, "fc"}).mid(0, 2), (QVector<qint64>{1, 0}));
        QCOMPARE(clockReads(), afterRead + 3);
    }

    // A count that lost its expiry (PERSIST by hand) would block its subject for ever: a rejection gives
    // it a whole window again.
    void aCountWithoutExpiryGetsAWindow()
    {
        const QByteArray key = bucketKey(QStringLiteral("fc"), "persisted");
        QVERIFY(call({"SET", key, "3"}).ok());
        QCOMPARE(fcall("sluice_acquire", {key, "fc"}).mid(0, 4), (QVector<qint64>{0, 0, kWindowMs, kWindowMs}));
        const qint64 left = integerOf({"PTTL", key});
        QVERIFY2(left > 0 && left < kWindowMs, qPrintable(QString::number(left)));
    }

    // Random traffic on three subjects, costs 1 to 3, gaps up to 60 ms, half through sluice_acquire and
    // half through sluice_allow, every reply compared with the reference model. The model knows each
    // window's end only within the call that opened it (client send and receive times), so a call is
    // never sent within a few ms of an end; one that still straddles one (a busy machine) is not
    // checked, and its subject waits for a new window. The per-policy totals must match every reply.
    void decisionsMatchTheModelOnTheRealClock()
    {
        constexpr qint64 limit = 4, window = 150, margin = 4;
        constexpr int calls = 400;
        struct Subject {
            QByteArray key;
            qint64 count = 0;
            qint64 endFrom = -1, endTo = -1; // client ms between which the window in progress ends
        };
        QVector<Subject> subjects(3);
        for (int i = 0; i < subjects.size(); ++i)
            subjects[i].key = bucketKey(QStringLiteral("random"), "s" + QByteArray::number(i));
        QRandomGenerator random(20261126);
        QElapsedTimer clock;
        clock.start();
        int checked = 0, straddled = 0;
        qint64 admitted = 0, rejections = 0;
        for (int n = 0; n < calls; ++n) {
            Subject &subject = subjects[random.bounded(subjects.size())];
            const qint64 cost = 1 + random.bounded(3);
            const bool lean = random.bounded(2) == 1;
            QTest::qWait(random.bounded(60));
            // Never close to the end of the subject's window.
            const qint64 soon = clock.elapsed();
            if (subject.endFrom >= 0 && soon >= subject.endFrom - margin && soon <= subject.endTo + margin)
                QTest::qWait(static_cast<int>(subject.endTo + margin + 1 - soon));

            const qint64 sent = clock.elapsed();
            const QVector<qint64> reply
                = fcall(lean ? "sluice_allow" : "sluice_acquire", {subject.key, "random", QByteArray::number(cost)});
            const qint64 received = clock.elapsed();
            QVERIFY2(reply.size() == (lean ? 3 : 6),
                     qPrintable(QStringLiteral("call %1: %2 elements").arg(n).arg(reply.size())));
            (reply.at(0) == 1 ? admitted : rejections) += 1;

            const bool fresh = subject.endFrom < 0 || sent > subject.endTo + margin;
            if (!fresh && received >= subject.endFrom - margin) {
                // Sent in the window, maybe answered in the next: the model cannot tell.
                ++straddled;
                QVERIFY(windowEnds(subject.key));
                subject.endFrom = subject.endTo = -1;
                continue;
            }
            if (fresh) {
                subject.count = 0;
                subject.endFrom = sent + window - 1;
                subject.endTo = received + window + 1;
            }
            const qint64 used = std::min(subject.count, limit);
            const bool ok = used + cost <= limit;
            const qint64 units = ok ? limit - used - cost : limit - used;
            if (ok || cost == 1)
                subject.count += cost;
            const QString where
                = QStringLiteral("call %1 (%2, cost %3, %4 ms into the run): %5")
                      .arg(n)
                      .arg(QLatin1String(lean ? "allow" : "acquire"))
                      .arg(cost)
                      .arg(sent)
                      .arg(QString::fromLatin1(QByteArray::number(reply.at(0)) + ' ' + QByteArray::number(reply.at(1))
                                               + ' ' + QByteArray::number(reply.at(2))));
            QVERIFY2(reply.at(0) == (ok ? 1 : 0) && reply.at(1) == units, qPrintable(where));
            // The wait: until the window ends, as far as the client can place that end.
            const qint64 waitFrom = subject.endFrom - received - 1, waitTo = subject.endTo - sent + 1;
            if (ok) {
                QVERIFY2(reply.at(2) == (lean ? 0 : -1), qPrintable(where));
                if (!lean)
                    QVERIFY2(fresh ? reply.at(3) == window : reply.at(3) >= waitFrom && reply.at(3) <= waitTo,
                             qPrintable(where + QStringLiteral(", reset %1").arg(reply.at(3))));
            } else {
                QVERIFY2(reply.at(2) >= waitFrom && reply.at(2) <= waitTo,
                         qPrintable(where + QStringLiteral(", wait expected %1 to %2").arg(waitFrom).arg(waitTo)));
            }
            ++checked;
        }
        qInfo("%d calls checked against the model, %d straddled a window's end", checked, straddled);
        QVERIFY2(checked >= calls * 3 / 4, qPrintable(QStringLiteral("only %1 of %2 checked").arg(checked).arg(calls)));

        QCOMPARE(policyTotals("random"), qMakePair(admitted, rejections));
    }
};

QTEST_GUILESS_MAIN(TestLimiterFirstCall)
#include "tst_limiter_first_call.moc"
