// SPDX-License-Identifier: GPL-3.0-or-later
// The replay's decisions against the real library's: a generated log is read through the whole
// replay pipeline (its format, the reorder buffer, whole seconds spread, buckets dropped once full
// again), and each arrival is then sent to a real redis-server with the test clock set to the time
// the replay gave it. Every decision must be the same. The first-call window, timed by key expiry
// rather than by a clock, is checked on a log written while its calls were sent in real time.

#include "model/replay/replay.h"
#include "replay_support.h"
#include "support/limiter_support.h"
#include "support/redis_process.h"
#include "support/sync_command.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QRandomGenerator>
#include <QTest>

#include <cmath>

Q_DECLARE_METATYPE(sluice::model::Policy)

using namespace sluice;
using model::Algorithm;
using redis::RedisConnection;
using redis::RedisReply;

namespace {

constexpr int kArrivals = 100000;
constexpr int kSubjects = 20000;

// A heavy-tailed subject: a few send most of the traffic, most send a call or two.
QByteArray subjectFor(QRandomGenerator &random)
{
    const double u = std::max(1e-9, random.generateDouble());
    const int rank = std::min(kSubjects - 1, int(std::pow(u, -1.3)) - 1);
    return "user-" + QByteArray::number(rank);
}

// kArrivals calls from the test clock's start, 0 to `maxGapMs` apart, costs 1 to 3, as CSV with ms times.
QByteArray csvLog(quint32 seed, int maxGapMs)
{
    QRandomGenerator random(seed);
    QByteArray log = "time,subject,cost\n";
    qint64 now = test::kTestClockStart;
    for (int i = 0; i < kArrivals; ++i) {
        now += random.bounded(maxGapMs + 1);
        log += QByteArray::number(now) + ',' + subjectFor(random) + ',' + QByteArray::number(1 + random.bounded(3))
            + '\n';
    }
    return log;
}

// The same traffic shape as a combined log with whole seconds: several calls a second, which the
// replay spreads over the second.
QByteArray combinedLog(quint32 seed)
{
    QRandomGenerator random(seed);
    QByteArray log;
    qint64 now = test::kTestClockStart;
    for (int i = 0; i < kArrivals; ++i) {
        now += random.bounded(20) == 0 ? 1000 : 0; // about 20 calls a second
        const QByteArray when
            = QDateTime::fromMSecsSinceEpoch(now, Qt::UTC).toString(QStringLiteral("dd/MMM/yyyy:HH:mm:ss")).toLatin1();
        log += subjectFor(random) + " - - [" + when + " +0000] \"GET /items HTTP/1.1\" 200 512 \"-\" \"test\"\n";
    }
    return log;
}

// Calls right at the window edges of aligned windows (k * window + {-2 .. 2} ms), a few subjects each.
QByteArray straddleLog(qint64 windowMs)
{
    QByteArray log = "time,subject,cost\n";
    for (qint64 edge = 1; edge <= 400; ++edge)
        for (qint64 offset = -2; offset <= 2; ++offset)
            for (int subject = 0; subject < 3; ++subject)
                log += QByteArray::number(test::kTestClockStart + edge * windowMs + offset) + ",edge-"
                    + QByteArray::number(subject) + ",1\n";
    return log;
}

} // namespace

class TestReplayExactness : public QObject {
    Q_OBJECT

    test::RedisProcess m_redis;
    std::unique_ptr<RedisConnection> m_connection;

    // Sends every replayed call to the library with the test clock at its time, pipelined; the number
    // of decisions that differ, and the first one in *first.
    qint64 mismatches(const model::Policy &policy, const test::ReplayRun &run, QByteArray *first)
    {
        constexpr size_t batch = 4000;
        qint64 differing = 0;
        qint64 clock = -1;
        for (size_t done = 0; done < run.calls.size(); done += batch) {
            int pending = 0;
            for (size_t i = done; i < std::min(run.calls.size(), done + batch); ++i) {
                const test::ReplayedCall &call = run.calls[i];
                if (call.arrival.ms != clock) {
                    clock = call.arrival.ms;
                    ++pending;
                    m_connection->send({"FCALL", "sluice_test_set_clock", "0", QByteArray::number(clock)}, this,
                                       [&pending](const RedisReply &) { --pending; });
                }
                const QByteArray subject = run.subjects.subject(call.arrival.subject);
                ++pending;
                const QByteArray key = test::bucketKey(policy.name, subject);
                test::sendKeepingKeys(
                    *m_connection, this,
                    {"FCALL", "sluice_acquire", "1", key, policy.name.toUtf8(), QByteArray::number(call.arrival.cost)},
                    {key}, [&, call, subject, i](const RedisReply &reply) {
                        --pending;
                        const bool admitted
                            = reply.ok() && !reply.value.elements.isEmpty() && reply.value.elements.at(0).integer == 1;
                        if (admitted == call.admitted && reply.ok())
                            return;
                        if (differing++ == 0)
                            *first = "call " + QByteArray::number(qulonglong(i)) + " at "
                                + QByteArray::number(call.arrival.ms) + " of " + subject + ": replay "
                                + (call.admitted ? "admitted" : "rejected") + ", library "
                                + (reply.ok() ? (admitted ? "admitted" : "rejected") : reply.errorText().toUtf8());
                    });
            }
            if (!test::spinUntil([&pending] { return pending == 0; }, 120000))
                return -1;
        }
        return differing;
    }

    // `manySubjects`: the log has enough subjects that the replay drops full buckets (it must show it did).
    // `lists`: the namespace's, in the library and in the replay.
    void checkAgainstLibrary(const model::Policy &policy, const QString &path, const model::LogSpec &spec, int atLeast,
                             bool manySubjects, const QVector<model::SubjectOverride> &lists = {})
    {
        QVERIFY(test::syncCommand(*m_connection, {"FLUSHALL"}).ok());
        const QString loaded
            = test::loadLibrary(*m_connection, test::testClockLibrary({policy}, QStringLiteral("sluice"), lists));
        QVERIFY2(loaded.isEmpty(), qPrintable(loaded));
        test::ReplayRun run;
        QString problem;
        QVERIFY2(test::replayLogs({path}, spec, {policy}, &run, &problem, 0, 64, lists), qPrintable(problem));
        QVERIFY2(int(run.calls.size()) >= atLeast, qPrintable(QString::number(run.calls.size())));
        QCOMPARE(run.stats.malformed, qint64(0));
        QByteArray first;
        const qint64 differing = mismatches(policy, run, &first);
        const quint64 rejected = run.outcomes.first().rejected;
        qInfo("%s: %zu calls, %llu rejected by the replay, %lld buckets dropped as full and made again, %lld "
              "mismatches",
              qPrintable(policy.name), run.calls.size(), qulonglong(rejected), qlonglong(run.dropped),
              qlonglong(differing));
        QVERIFY2(differing == 0, first.constData());
        // The traffic must exercise both verdicts and the memory rule, or agreement proves little.
        QVERIFY(rejected > 0 && rejected < run.calls.size());
        QVERIFY(!manySubjects || run.dropped > 0);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_redis.start(), qPrintable(m_redis.errorString()));
        m_connection = std::make_unique<RedisConnection>(m_redis.options());
        QVERIFY(test::openAndWait(*m_connection));
    }

    void replayedDecisionsAreTheLibrarys_data()
    {
        QTest::addColumn<model::Policy>("policy");
        QTest::addColumn<bool>("wholeSeconds");
        QTest::addColumn<bool>("lists"); // the namespace's: user-3* allowed, user-1 denied (the policy allows user-1*)
        const auto add = [](Algorithm algorithm, qint64 limit, qint64 windowMs, qint64 burst, bool wholeSeconds) {
            const model::Policy policy
                = test::makePolicy(model::algorithmName(algorithm).replace(QLatin1Char('_'), QLatin1Char('-')),
                                   algorithm, limit, windowMs, burst);
            QTest::addRow("%s%s", qPrintable(policy.name), wholeSeconds ? ", whole seconds spread" : "")
                << policy << wholeSeconds << false;
        };
        add(Algorithm::TokenBucket, 5, 2000, 8, false);
        add(Algorithm::TokenBucket, 5, 2000, 8, true);
        add(Algorithm::FixedWindow, 6, 2000, 0, false);
        add(Algorithm::SlidingWindow, 6, 2000, 0, false);
        add(Algorithm::SlidingLog, 6, 2000, 0, false);
        add(Algorithm::LeakyBucket, 5, 2000, 8, false);
        add(Algorithm::Gcra, 5, 2000, 8, false);
        add(Algorithm::Concurrency, 4, 1500, 0, false);
        // Overrides (the heaviest subject's own limit, an allowed and a denied prefix) and a penalty.
        for (const Algorithm algorithm : {Algorithm::TokenBucket, Algorithm::FixedWindow}) {
            model::Policy ruled = test::makePolicy(
                QStringLiteral("ruled-") + model::algorithmName(algorithm).replace(QLatin1Char('_'), QLatin1Char('-')),
                algorithm, 5, 2000, model::algorithmUsesBurst(algorithm) ? 8 : 0);
            ruled.blockMs = 3000;
            ruled.overrides = {{"user-0", false, model::SubjectOverride::Kind::Limits, 40, 0},
                               {"user-1", true, model::SubjectOverride::Kind::Allow, 0, 0},
                               {"user-2", true, model::SubjectOverride::Kind::Deny, 0, 0}};
            QTest::addRow("%s, overrides and a penalty", qPrintable(ruled.name)) << ruled << false << false;
            QTest::addRow("%s, overrides, a penalty and the namespace's lists", qPrintable(ruled.name))
                << ruled << false << true;
        }
    }

    // At least 100,000 arrivals each, over 20,000 subjects of which most return only after their bucket
    // was dropped as full: the replay's memory rule must not change a decision.
    void replayedDecisionsAreTheLibrarys()
    {
        QFETCH(model::Policy, policy);
        QFETCH(bool, wholeSeconds);
        QFETCH(bool, lists);
        const QVector<model::SubjectOverride> namespaceLists{
            {"user-1", false, model::SubjectOverride::Kind::Deny, 0, 0},
            {"user-3", true, model::SubjectOverride::Kind::Allow, 0, 0}};
        QTemporaryDir dir;
        const quint32 seed = quint32(qHash(policy.name)) + (wholeSeconds ? 1 : 0);
        model::LogSpec spec;
        const QString path = wholeSeconds ? test::writeLog(dir, QStringLiteral("access.log"), combinedLog(seed))
                                          : test::writeLog(dir, QStringLiteral("calls.csv"), csvLog(seed, 12));
        checkAgainstLibrary(policy, path, spec, kArrivals, true,
                            lists ? namespaceLists : QVector<model::SubjectOverride>());
    }

    void callsAtWindowEdges_data()
    {
        QTest::addColumn<model::Policy>("policy");
        for (const QString &name : model::algorithmNames()) {
            const Algorithm algorithm = *model::algorithmFromName(name);
            QTest::newRow(qPrintable(name)) << test::makePolicy(QStringLiteral("edge"), algorithm, 4, 1000, 4);
        }
    }

    void callsAtWindowEdges()
    {
        QFETCH(model::Policy, policy);
        QTemporaryDir dir;
        checkAgainstLibrary(policy, test::writeLog(dir, QStringLiteral("edges.csv"), straddleLog(policy.windowMs)),
                            model::LogSpec(), 6000, false);
    }

    // The first-call window on the real clock: calls sent as they would be logged (their send times written
    // as the log), never within a few ms of a window's end as far as the client can place it (so the server
    // cannot decide otherwise than the log says); one that straddles an end anyway (a busy machine) is
    // left out of the log and its subject waits for a new window, as the library then starts one.
    void firstCallWindowOnTheRealClock()
    {
        model::Policy policy = test::makePolicy(QStringLiteral("first"), Algorithm::FixedWindow, 3, 400);
        policy.windowStart = model::WindowStart::FirstCall;
        QVERIFY(test::syncCommand(*m_connection, {"FLUSHALL"}).ok());
        const model::LimiterLibrary library = model::LimiterLibrary::build({policy}, {}, model::LibraryOwner{}, 1);
        const QString loaded = test::loadLibrary(*m_connection, library);
        QVERIFY2(loaded.isEmpty(), qPrintable(loaded));

        constexpr qint64 margin = 5;
        struct Window {
            qint64 endFrom = -1, endTo = -1; // epoch ms between which the window in progress ends
        };
        QVector<Window> windows(12);
        QRandomGenerator random(27112026);
        QByteArray log = "time,subject,cost\n";
        QVector<bool> libraryAdmitted;
        int straddled = 0;
        QElapsedTimer run;
        run.start();
        while (run.elapsed() < 20000) {
            const int s = random.bounded(windows.size());
            Window &window = windows[s];
            QTest::qWait(random.bounded(12));
            qint64 sent = QDateTime::currentMSecsSinceEpoch();
            if (window.endFrom >= 0 && sent >= window.endFrom - margin && sent <= window.endTo + margin) {
                QTest::qWait(int(window.endTo + margin + 1 - sent));
                sent = QDateTime::currentMSecsSinceEpoch();
            }
            const QByteArray subject = "s" + QByteArray::number(s);
            const RedisReply reply = test::syncCommand(
                *m_connection,
                {"FCALL", "sluice_acquire", "1", test::bucketKey(policy.name, subject), policy.name.toUtf8(), "1"});
            const qint64 received = QDateTime::currentMSecsSinceEpoch();
            QVERIFY2(reply.ok() && !reply.value.elements.isEmpty(), qPrintable(reply.errorText()));
            const bool fresh = window.endFrom < 0 || sent > window.endTo + margin;
            if (!fresh && received >= window.endFrom - margin) {
                ++straddled; // the server may have decided in either window: wait for its key to expire
                QVERIFY(test::spinUntil(
                    [&] {
                    return test::syncCommand(*m_connection, {"EXISTS", test::bucketKey(policy.name, subject)})
                               .value.integer
                        == 0;
                    },
                    5000));
                window = Window();
                continue;
            }
            if (fresh)
                window = Window{sent + policy.windowMs - 1, received + policy.windowMs + 1};
            log += QByteArray::number(sent) + ',' + subject + ",1\n";
            libraryAdmitted.append(reply.value.elements.at(0).integer == 1);
        }
        QTemporaryDir dir;
        test::ReplayRun replayed;
        QString problem;
        QVERIFY2(test::replayLogs({test::writeLog(dir, QStringLiteral("real-time.csv"), log)}, model::LogSpec(),
                                  {policy}, &replayed, &problem),
                 qPrintable(problem));
        QCOMPARE(qsizetype(replayed.calls.size()), libraryAdmitted.size());
        qint64 differing = 0, rejected = 0;
        for (qsizetype i = 0; i < libraryAdmitted.size(); ++i) {
            differing += replayed.calls[size_t(i)].admitted != libraryAdmitted.at(i);
            rejected += !libraryAdmitted.at(i);
        }
        qInfo("first-call window: %lld calls in 20 s, %lld rejected, %d left out as straddling a window end, "
              "%lld mismatches",
              qlonglong(libraryAdmitted.size()), qlonglong(rejected), straddled, qlonglong(differing));
        QVERIFY(libraryAdmitted.size() >= 1000);
        QVERIFY(rejected > 0 && rejected < libraryAdmitted.size());
        QCOMPARE(differing, qint64(0));
    }
};

QTEST_GUILESS_MAIN(TestReplayExactness)
#include "tst_replay_exactness.moc"
