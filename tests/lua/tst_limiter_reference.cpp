// SPDX-License-Identifier: GPL-3.0-or-later
// Every algorithm of the limiter library against its exact C++ reference model: the same random
// traffic (bursts, idle gaps, costs, some above what the policy admits at once, peeks, releases) on a
// fixed test clock, and every decision compared, field by field. Includes slow (1 per hour, 5 per day),
// large (1e9 per second) and wide (1e8 per day, a prime near 1e9 per week: past 2^52 once scaled by the
// window) rates, and a million calls at each of those large rates to show the arithmetic does not drift.
// The lean entry point (sluice_allow) is checked the same way, its three elements against the model's.

#include "model/limiter/bucket_key.h"
#include "model/policy/namespace_lists.h"
#include "support/limiter_support.h"
#include "support/redis_process.h"
#include "support/sync_command.h"

#include <QDateTime>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QTest>

using namespace sluice;
using model::Algorithm;
using model::Decision;
using redis::RedisConnection;
using redis::RedisReply;

Q_DECLARE_METATYPE(sluice::model::Algorithm)

namespace {

// Refills its whole capacity every millisecond: beside any tested policy it admits and has at least
// as much left, so the tested policy decides.
const model::Policy kWide = test::makePolicy(QStringLiteral("wide"), Algorithm::TokenBucket, 1000000000, 1, 1000000000);

struct Step {
    enum class Kind { Acquire, Peek, Release };
    Kind kind = Kind::Acquire;
    qint64 now = 0;
    QByteArray subject;
    qint64 cost = 1;
    QByteArray lease;
    Decision expected;
    bool expectedReleased = false;
};

QByteArray describe(const Step &step)
{
    static const char *const kinds[] = {"acquire", "peek", "release"};
    return QByteArray(kinds[static_cast<int>(step.kind)]) + " at " + QByteArray::number(step.now) + " subject "
        + step.subject + " cost " + QByteArray::number(step.cost)
        + (step.lease.isEmpty() ? "" : " lease " + step.lease);
}

// Random traffic shaped around the policy's own time scales, with the model's answer to each step.
class TrafficGenerator {
public:
    TrafficGenerator(const model::Policy &policy, quint32 seed, qint64 start,
                     const QByteArrayList &subjects = {"alice", "bob", "carol"})
        : m_policy(policy)
        , m_random(seed)
        , m_now(start)
        , m_subjects(subjects)
    {
        for (const QByteArray &subject : subjects)
            m_models.emplace(subject, std::make_unique<model::ReferenceLimiter>(policy, subject));
    }

    Step next()
    {
        advanceClock();
        Step step;
        step.now = m_now;
        step.subject = m_subjects.at(m_random.bounded(static_cast<int>(m_subjects.size())));
        model::ReferenceLimiter &model = *m_models.at(step.subject);
        const int roll = m_random.bounded(100);
        if (m_policy.algorithm == Algorithm::Concurrency && roll < 25 && !m_leases[step.subject].isEmpty()) {
            const QByteArrayList &leases = m_leases[step.subject];
            step.kind = Step::Kind::Release;
            step.lease = leases.at(m_random.bounded(leases.size()));
            step.expectedReleased = model.release(step.lease, m_now);
            return step;
        }
        step.cost = randomCost();
        if (roll >= 90) {
            step.kind = Step::Kind::Peek;
            step.expected = model.peek(m_now, step.cost);
            return step;
        }
        step.expected = model.acquire(m_now, step.cost);
        if (m_policy.algorithm == Algorithm::Concurrency && step.expected.allowed)
            m_leases[step.subject].append(step.expected.extra);
        return step;
    }

private:
    qint64 capacity() const
    {
        const bool usesBurst = m_policy.algorithm == Algorithm::TokenBucket || m_policy.algorithm == Algorithm::Gcra
            || m_policy.algorithm == Algorithm::LeakyBucket;
        return usesBurst ? m_policy.effectiveBurst() : m_policy.limit;
    }

    qint64 upTo(qint64 bound) { return 1 + static_cast<qint64>(m_random.bounded(static_cast<double>(bound))); }

    void advanceClock()
    {
        const qint64 window = m_policy.windowMs;
        const qint64 interval = std::max<qint64>(1, window / m_policy.limit);
        const int roll = m_random.bounded(100);
        if (roll < 40)
            return; // a burst: same millisecond
        if (roll < 70)
            m_now += upTo(2 * interval);
        else if (roll < 90)
            m_now += upTo(window);
        else if (roll < 98)
            m_now += window + upTo(2 * window);
        else
            m_now += upTo(20 * window);
    }

    qint64 randomCost()
    {
        const int roll = m_random.bounded(100);
        if (roll < 70)
            return 1;
        if (roll < 95)
            return upTo(std::min<qint64>(capacity(), 10));
        // Now and then more than the policy admits at once: a rejection that never passes.
        if (roll < 99 || capacity() == model::policy_limits::maxLimit)
            return upTo(capacity());
        return capacity() + upTo(std::min<qint64>(model::policy_limits::maxLimit - capacity(), 10));
    }

    model::Policy m_policy;
    QRandomGenerator m_random;
    qint64 m_now;
    QByteArrayList m_subjects;
    std::map<QByteArray, std::unique_ptr<model::ReferenceLimiter>> m_models;
    QHash<QByteArray, QByteArrayList> m_leases;
};

// A library lease id for the model's: 64 bits in hex, then the same ":<cost>".
bool sameLease(const QByteArray &library, const QByteArray &model)
{
    static const QRegularExpression shape(QStringLiteral("^[0-9a-f]{16}:[0-9]+$"));
    const QByteArray cost = model.mid(model.lastIndexOf(':'));
    return shape.match(QString::fromLatin1(library)).hasMatch() && library.endsWith(cost);
}

} // namespace

class TestLimiterReference : public QObject {
    Q_OBJECT

    test::RedisProcess m_redis;
    std::unique_ptr<RedisConnection> m_connection;

    // Sends the steps pipelined (setting the test clock when it moves) and checks every reply.
    // Returns the first mismatch, or an empty string. `paired` sends each acquire together with a
    // bucket of kWide, which always admits and always has more left, so the decision and the reply
    // stay the tested policy's while going through the multi-policy path. `lean` sends the acquires to
    // sluice_allow.
    QByteArray runSteps(const model::Policy &policy, TrafficGenerator &traffic, int steps, bool paired = false,
                        bool lean = false)
    {
        const QByteArray acquireFunction = lean ? "sluice_allow" : "sluice_acquire";
        constexpr int batch = 4000;
        QByteArray mismatch;
        qint64 clock = -1;
        // Only the library can make its lease ids (a hash of its secret): the model's ids stand for
        // them, each mapped to the library's once its grant comes back. Keyed by subject too: each
        // subject's model numbers its own.
        QHash<QByteArray, QByteArray> leaseIds;
        const bool leases = policy.algorithm == Algorithm::Concurrency;
        for (int done = 0; done < steps && mismatch.isEmpty(); done += batch) {
            int pending = 0;
            for (int i = done; i < std::min(steps, done + batch); ++i) {
                const Step step = traffic.next();
                if (step.now != clock) {
                    clock = step.now;
                    ++pending;
                    m_connection->send({"FCALL", "sluice_test_set_clock", "0", QByteArray::number(clock)}, this,
                                       [&pending, &mismatch](const RedisReply &reply) {
                        --pending;
                        if (!reply.ok() && mismatch.isEmpty())
                            mismatch = "setting the clock failed: " + reply.errorText().toUtf8();
                    });
                }
                const QByteArray key = test::bucketKey(policy.name, step.subject);
                QByteArrayList command;
                if (step.kind == Step::Kind::Release) {
                    const QByteArray modelLease = step.subject + ' ' + step.lease;
                    if (!leaseIds.contains(modelLease) && !test::spinUntil([&pending] { return pending == 0; }, 120000))
                        return "replies stopped coming";
                    const QByteArray lease = leaseIds.value(modelLease, step.lease);
                    command = {"FCALL", "sluice_release", "1", key, policy.name.toUtf8(), lease};
                } else if (paired && step.kind == Step::Kind::Acquire)
                    command = {"FCALL",
                               acquireFunction,
                               "2",
                               key,
                               test::bucketKey(kWide.name, step.subject),
                               policy.name.toUtf8(),
                               kWide.name.toUtf8(),
                               QByteArray::number(step.cost)};
                else
                    command = {step.kind == Step::Kind::Peek ? "FCALL_RO" : "FCALL",
                               step.kind == Step::Kind::Peek ? "sluice_peek" : acquireFunction,
                               "1",
                               key,
                               policy.name.toUtf8(),
                               QByteArray::number(step.cost)};
                ++pending;
                const auto check = [&, step, i](const RedisReply &reply) {
                    --pending;
                    if (!mismatch.isEmpty())
                        return;
                    const QByteArray where = "step " + QByteArray::number(i) + " (" + describe(step) + "): ";
                    if (!reply.ok()) {
                        mismatch = where + "error " + reply.errorText().toUtf8();
                    } else if (step.kind == Step::Kind::Release) {
                        if (reply.value.integer != (step.expectedReleased ? 1 : 0))
                            mismatch = where + "released " + QByteArray::number(reply.value.integer);
                    } else if (lean && step.kind == Step::Kind::Acquire) {
                        const QByteArray actual = test::leanReplyText(reply.value);
                        const QByteArray expected = test::leanReplyExpected(step.expected);
                        if (actual != expected)
                            mismatch = where + "library " + actual + ", model " + expected;
                    } else {
                        Decision actual;
                        QString why;
                        if (!test::decisionFromReply(reply.value, &actual, &why)) {
                            mismatch = where + why.toUtf8();
                            return;
                        }
                        if (leases && actual.allowed && step.kind == Step::Kind::Acquire
                            && !step.expected.extra.isEmpty()) {
                            if (!sameLease(actual.extra, step.expected.extra)) {
                                mismatch = where + "lease " + actual.extra
                                    + " is not 16 hex digits, ':' and the cost of " + step.expected.extra;
                                return;
                            }
                            leaseIds.insert(step.subject + ' ' + step.expected.extra, actual.extra);
                            actual.extra = step.expected.extra;
                        }
                        if (!(actual == step.expected))
                            mismatch = where + "library " + actual.toString() + ", model " + step.expected.toString();
                    }
                };
                if (step.kind == Step::Kind::Peek)
                    m_connection->send(command, this, check);
                else
                    test::sendKeepingKeys(*m_connection, this, command,
                                          paired ? QByteArrayList{key, test::bucketKey(kWide.name, step.subject)}
                                                 : QByteArrayList{key},
                                          check);
            }
            if (!test::spinUntil([&pending] { return pending == 0; }, 120000))
                return "replies stopped coming";
        }
        return mismatch;
    }

    // A start far enough ahead of the real clock that absolute expiry times stay in the future.
    static qint64 testClockStart(quint32 seed)
    {
        return QDateTime::currentMSecsSinceEpoch() + 86400000LL + seed % 100000;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_redis.start(), qPrintable(m_redis.errorString()));
        m_connection = std::make_unique<RedisConnection>(m_redis.options());
        QVERIFY(test::openAndWait(*m_connection));
    }

    void matchesReference_data()
    {
        QTest::addColumn<Algorithm>("algorithm");
        QTest::addColumn<qint64>("limit");
        QTest::addColumn<qint64>("windowMs");
        QTest::addColumn<qint64>("burst");
        QTest::addColumn<bool>("paired");
        QTest::addColumn<bool>("lean");
        struct Shape {
            const char *name;
            qint64 limit, windowMs, burst;
            bool aboutBurst = false; // only for the algorithms that read burst
            bool lean = false;       // also through sluice_allow
        };
        const Shape shapes[] = {
            {"10 per second, burst 15", 10, 1000, 15, false, true},
            {"7 per 1.5 s, burst 3", 7, 1500, 3},
            {"1 per hour", 1, 3600000, 1, false, true},
            {"5 per day, burst 2", 5, 86400000, 2},
            {"1e9 per second", 1000000000, 1000, 1000000000},
            {"100 per minute", 100, 60000, 100},
            // Past 2^52 once scaled by the window: the wide form.
            {"1e8 per day", 100000000, 86400000, 100000000, false, true},
            {"prime near 1e9 per week, prime burst", 999999937, 604800000, 999999929},
            {"7 per week, a burst that fills in 2^52 ms", 7, 604800000, 52124995, true},
        };
        for (const QString &name : model::algorithmNames()) {
            const Algorithm algorithm = *model::algorithmFromName(name);
            const bool keepsEntries = algorithm == Algorithm::SlidingLog || algorithm == Algorithm::Concurrency;
            for (const Shape &shape : shapes) {
                if (shape.aboutBurst && !model::algorithmUsesBurst(algorithm))
                    continue;
                const qint64 limit = keepsEntries ? std::min<qint64>(shape.limit, 100000) : shape.limit;
                const qint64 burst = keepsEntries ? limit : shape.burst;
                for (const bool paired : {false, true})
                    QTest::addRow("%s: %s%s", qPrintable(name), shape.name, paired ? ", beside another policy" : "")
                        << algorithm << limit << shape.windowMs << burst << paired << false;
                // sluice_allow (the same decision, another reply): a short, a slow and a wide shape alone, the
                // first beside another policy. Concurrency has none: its callers need the lease id.
                if (algorithm == Algorithm::Concurrency || !shape.lean)
                    continue;
                for (const bool paired : {false, true}) {
                    if (!paired || &shape == &shapes[0])
                        QTest::addRow("%s: %s, sluice_allow%s", qPrintable(name), shape.name,
                                      paired ? ", beside another policy" : "")
                            << algorithm << limit << shape.windowMs << burst << paired << true;
                }
            }
        }
    }

    void matchesReference()
    {
        QFETCH(Algorithm, algorithm);
        QFETCH(qint64, limit);
        QFETCH(qint64, windowMs);
        QFETCH(qint64, burst);
        QFETCH(bool, paired);
        QFETCH(bool, lean);
        const model::Policy policy = test::makePolicy(QStringLiteral("p"), algorithm, limit, windowMs, burst);
        QVERIFY(model::validatePolicy(policy).isEmpty());
        QVERIFY(test::syncCommand(*m_connection, {"FLUSHALL"}).ok());
        const QString loaded = test::loadLibrary(*m_connection, test::testClockLibrary({policy, kWide}));
        QVERIFY2(loaded.isEmpty(), qPrintable(loaded));

        const quint32 seed = static_cast<quint32>(qHash(QByteArray(QTest::currentDataTag())));
        TrafficGenerator traffic(policy, seed, testClockStart(seed));
        const QByteArray mismatch = runSteps(policy, traffic, 6000, paired, lean);
        QVERIFY2(mismatch.isEmpty(), mismatch.constData());
    }

    // Overrides (exact, prefix, allow, deny) and a penalty on every algorithm: random traffic over
    // subjects each rule decides, alone, beside another policy and through sluice_allow.
    void subjectRulesMatchReference_data()
    {
        QTest::addColumn<Algorithm>("algorithm");
        QTest::addColumn<qint64>("limit");
        QTest::addColumn<qint64>("windowMs");
        QTest::addColumn<qint64>("blockMs");
        QTest::addColumn<bool>("paired");
        QTest::addColumn<bool>("lean");
        QTest::addColumn<bool>("lists");
        for (const QString &name : model::algorithmNames()) {
            const Algorithm algorithm = *model::algorithmFromName(name);
            for (const bool paired : {false, true}) {
                for (const bool lean : {false, true}) {
                    if (lean && algorithm == Algorithm::Concurrency)
                        continue;
                    const char *path = paired
                        ? (lean ? ", sluice_allow beside another policy" : ", beside another policy")
                        : (lean ? ", sluice_allow" : "");
                    QTest::addRow("%s: 6 per second, block 2.5 s%s", qPrintable(name), path)
                        << algorithm << qint64(6) << qint64(1000) << qint64(2500) << paired << lean << false;
                    QTest::addRow("%s: 40 per minute, block 7 s%s", qPrintable(name), path)
                        << algorithm << qint64(40) << qint64(60000) << qint64(7000) << paired << lean << false;
                    // Alone: the lists would hold for the policy beside it too, which must always admit.
                    if (!paired)
                        QTest::addRow("%s: 6 per second, block 2.5 s, namespace lists%s", qPrintable(name), path)
                            << algorithm << qint64(6) << qint64(1000) << qint64(2500) << false << lean << true;
                }
            }
            QTest::addRow("%s: 10 per second, no penalty", qPrintable(name))
                << algorithm << qint64(10) << qint64(1000) << qint64(0) << false << false << false;
        }
    }

    void subjectRulesMatchReference()
    {
        QFETCH(Algorithm, algorithm);
        QFETCH(qint64, limit);
        QFETCH(qint64, windowMs);
        QFETCH(qint64, blockMs);
        QFETCH(bool, paired);
        QFETCH(bool, lean);
        QFETCH(bool, lists);
        model::Policy policy = test::makePolicy(QStringLiteral("p"), algorithm, limit, windowMs, limit * 3 / 2);
        policy.blockMs = blockMs;
        const bool usesBurst = model::algorithmUsesBurst(algorithm);
        QString problem;
        const auto overrides = model::overridesFromJson(
            QJsonObject{
                {QStringLiteral("vip"),
                 usesBurst ? QJsonObject{{QStringLiteral("limit"), double(limit * 3)},
                                         {QStringLiteral("burst"), double(limit * 4)}}
                           : QJsonObject{{QStringLiteral("limit"), double(limit * 3)}}},
                {QStringLiteral("team-*"), QJsonObject{{QStringLiteral("limit"), double(limit / 2)}}},
                {QStringLiteral("team-lead"), QStringLiteral("allow")},
                {QStringLiteral("team-l*"), QStringLiteral("deny")},
                {QStringLiteral("star\\*"), QJsonObject{{QStringLiteral("limit"), 1.0}}},
            },
            &problem);
        QVERIFY2(overrides, qPrintable(problem));
        policy.overrides = *overrides;
        const auto problems = model::validatePolicy(policy);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.value(0).toString()));
        // The namespace's lists: "team-l*" the policy's pattern (the list wins), "team-lea*" longer than
        // it but shorter than the policy's exact "team-lead" (which wins), "ali*" for a plain subject.
        const auto namespaceLists
            = model::listEntriesFromJson(QJsonObject{{QStringLiteral("team-l*"), QStringLiteral("allow")},
                                                     {QStringLiteral("team-lea*"), QStringLiteral("deny")},
                                                     {QStringLiteral("ali*"), QStringLiteral("deny")}},
                                         &problem);
        QVERIFY2(namespaceLists, qPrintable(problem));
        const QVector<model::SubjectOverride> listed = lists ? *namespaceLists : QVector<model::SubjectOverride>();
        QVERIFY(test::syncCommand(*m_connection, {"FLUSHALL"}).ok());
        const QString loaded = test::loadLibrary(
            *m_connection, test::testClockLibrary({policy, kWide}, QStringLiteral("sluice"), listed));
        QVERIFY2(loaded.isEmpty(), qPrintable(loaded));

        const quint32 seed = static_cast<quint32>(qHash(QByteArray(QTest::currentDataTag())));
        // Plain, the exact override, the prefix, the allowed and the denied beneath it, "star*" exact, and
        // "stark" that only a prefix "star*" would catch; "team-leax" and "alien" that only a list catches.
        const model::Policy decided = model::withNamespaceLists(policy, listed);
        TrafficGenerator traffic(
            decided, seed, testClockStart(seed),
            {"alice", "bob", "vip", "team-a", "team-lead", "team-lx", "star*", "stark", "team-leax", "alien"});
        const QByteArray mismatch = runSteps(decided, traffic, 6000, paired, lean);
        QVERIFY2(mismatch.isEmpty(), mismatch.constData());
        // Every rule took part: the allow and deny lists, and blocks when the policy has a penalty. The
        // namespace's lists make the policy beside it count too.
        const RedisReply counts = test::syncCommand(*m_connection, {"FCALL_RO", "sluice_rule_stats", "0"});
        QVERIFY2(counts.ok() && counts.value.elements.size() == (lists ? 20 : 11), qPrintable(counts.value.toString()));
        QCOMPARE(counts.value.elements.at(2).bytes, QByteArray("p"));
        QVERIFY(counts.value.elements.at(3).integer > 0 && counts.value.elements.at(4).integer > 0);
        QCOMPARE(counts.value.elements.at(5).integer > 0, blockMs > 0);
    }

    // Calendar windows against the model (which finds periods with Qt's calendar): random traffic from
    // just before a boundary over days, weeks and months (a month's traffic spans about 250 years, so
    // every month end, 29 February and the century years), at offsets from UTC-12 to UTC+14.
    void calendarWindowsMatchReference_data()
    {
        QTest::addColumn<QByteArray>("calendar");
        QTest::addColumn<int>("offset");
        QTest::addColumn<int>("anchor");
        QTest::addColumn<qint64>("limit");
        QTest::addColumn<QByteArray>("start");
        QTest::addColumn<bool>("lean");
        QTest::newRow("day, UTC") << QByteArray("day") << 0 << 1 << qint64(20) << QByteArray("2028-02-28T22:00:00Z")
                                  << false;
        QTest::newRow("day, UTC+05:30") << QByteArray("day") << 330 << 1 << qint64(20)
                                        << QByteArray("2027-12-31T18:00:00Z") << false;
        QTest::newRow("day, UTC-12, sluice_allow")
            << QByteArray("day") << -720 << 1 << qint64(7) << QByteArray("2028-03-01T10:00:00Z") << true;
        QTest::newRow("week, UTC+14") << QByteArray("week") << 840 << 1 << qint64(30)
                                      << QByteArray("2026-11-29T08:00:00Z") << false;
        QTest::newRow("week, UTC-05") << QByteArray("week") << -300 << 1 << qint64(30)
                                      << QByteArray("2027-01-03T20:00:00Z") << false;
        QTest::newRow("month from the 1st, UTC")
            << QByteArray("month") << 0 << 1 << qint64(20) << QByteArray("2028-02-28T00:00:00Z") << false;
        QTest::newRow("month from the 31st, UTC+01")
            << QByteArray("month") << 60 << 31 << qint64(20) << QByteArray("2028-01-30T20:00:00Z") << false;
        QTest::newRow("month from the 29th, UTC-08, sluice_allow")
            << QByteArray("month") << -480 << 29 << qint64(12) << QByteArray("2027-02-27T12:00:00Z") << true;
        QTest::newRow("month from the 15th, UTC+09:45")
            << QByteArray("month") << 585 << 15 << qint64(40) << QByteArray("2027-06-14T10:00:00Z") << false;
    }

    void calendarWindowsMatchReference()
    {
        QFETCH(QByteArray, calendar);
        QFETCH(int, offset);
        QFETCH(int, anchor);
        QFETCH(qint64, limit);
        QFETCH(QByteArray, start);
        QFETCH(bool, lean);
        model::Policy policy = test::makePolicy(QStringLiteral("p"), Algorithm::FixedWindow, limit, 1);
        policy.calendar = *model::calendarFromName(QString::fromLatin1(calendar));
        policy.windowMs = model::calendarNominalMs(policy.calendar);
        policy.utcOffsetMinutes = offset;
        policy.anchorDay = anchor;
        const auto problems = model::validatePolicy(policy);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.value(0).toString()));
        QVERIFY(test::syncCommand(*m_connection, {"FLUSHALL"}).ok());
        const QString loaded = test::loadLibrary(*m_connection, test::testClockLibrary({policy, kWide}));
        QVERIFY2(loaded.isEmpty(), qPrintable(loaded));
        const qint64 startMs = QDateTime::fromString(QString::fromLatin1(start), Qt::ISODate).toMSecsSinceEpoch();
        const quint32 seed = static_cast<quint32>(qHash(QByteArray(QTest::currentDataTag())));
        TrafficGenerator traffic(policy, seed, startMs);
        const QByteArray mismatch = runSteps(policy, traffic, 6000, false, lean);
        QVERIFY2(mismatch.isEmpty(), mismatch.constData());
    }

    // The boundaries themselves, against the calendar as people read it: a month from the 31st starts on
    // 29 February in a leap year and on 31 March after; the offset's midnight; a week on Monday; 2100 is
    // not a leap year.
    void calendarBoundariesFallWhereTheCalendarSays_data()
    {
        QTest::addColumn<QByteArray>("calendar");
        QTest::addColumn<int>("offset");
        QTest::addColumn<int>("anchor");
        QTest::addColumn<QByteArray>("now");
        QTest::addColumn<QByteArray>("ends");
        QTest::newRow("month from the 31st in a leap February")
            << QByteArray("month") << 60 << 31 << QByteArray("2028-02-29T12:00:00Z")
            << QByteArray("2028-03-30T23:00:00Z");
        QTest::newRow("month from the 31st in a common February")
            << QByteArray("month") << 0 << 31 << QByteArray("2027-02-28T00:00:00Z")
            << QByteArray("2027-03-31T00:00:00Z");
        QTest::newRow("month, 2100 is no leap year")
            << QByteArray("month") << -720 << 1 << QByteArray("2100-03-01T11:59:59.999Z")
            << QByteArray("2100-03-01T12:00:00Z");
        QTest::newRow("day at UTC+05:30") << QByteArray("day") << 330 << 1 << QByteArray("2026-11-27T18:29:59.999Z")
                                          << QByteArray("2026-11-27T18:30:00Z");
        QTest::newRow("day at UTC-12, just begun")
            << QByteArray("day") << -720 << 1 << QByteArray("2026-11-27T12:00:00Z")
            << QByteArray("2026-11-28T12:00:00Z");
        QTest::newRow("week at UTC+14 from Monday midnight")
            << QByteArray("week") << 840 << 1 << QByteArray("2026-11-29T10:00:00Z")
            << QByteArray("2026-12-06T10:00:00Z");
        QTest::newRow("week on a Sunday evening UTC")
            << QByteArray("week") << 0 << 1 << QByteArray("2026-11-29T23:00:00Z") << QByteArray("2026-11-30T00:00:00Z");
    }

    void calendarBoundariesFallWhereTheCalendarSays()
    {
        QFETCH(QByteArray, calendar);
        QFETCH(int, offset);
        QFETCH(int, anchor);
        QFETCH(QByteArray, now);
        QFETCH(QByteArray, ends);
        model::Policy policy = test::makePolicy(QStringLiteral("q"), Algorithm::FixedWindow, 5, 1);
        policy.calendar = *model::calendarFromName(QString::fromLatin1(calendar));
        policy.windowMs = model::calendarNominalMs(policy.calendar);
        policy.utcOffsetMinutes = offset;
        policy.anchorDay = anchor;
        QVERIFY(test::syncCommand(*m_connection, {"FLUSHALL"}).ok());
        const QString loaded = test::loadLibrary(*m_connection, test::testClockLibrary({policy}));
        QVERIFY2(loaded.isEmpty(), qPrintable(loaded));
        const qint64 nowMs = QDateTime::fromString(QString::fromLatin1(now), Qt::ISODateWithMs).toMSecsSinceEpoch();
        const qint64 expected
            = QDateTime::fromString(QString::fromLatin1(ends), Qt::ISODateWithMs).toMSecsSinceEpoch() - nowMs;
        QVERIFY(
            test::syncCommand(*m_connection, {"FCALL", "sluice_test_set_clock", "0", QByteArray::number(nowMs)}).ok());
        const RedisReply reply = test::syncCommand(
            *m_connection, {"FCALL", "sluice_acquire", "1", test::bucketKey(QStringLiteral("q"), "x"), "q"});
        Decision library;
        QString why;
        QVERIFY2(test::decisionFromReply(reply.value, &library, &why), qPrintable(why));
        QCOMPARE(library.resetAfterMs, expected);
        QCOMPARE(model::ReferenceLimiter(policy).acquire(nowMs, 1).resetAfterMs, expected);
    }

    // Reserve then settle on random sequences against the model: reservations settled with less (a
    // refund), more (an excess, into debt up to max_debt), twice, late (expired), with another subject's id
    // or a forged one, between plain calls; every reply and every refusal compared.
    void reserveSettleMatchesReference_data()
    {
        QTest::addColumn<Algorithm>("algorithm");
        QTest::addColumn<qint64>("maxDebt");
        QTest::addColumn<qint64>("timeoutMs");
        QTest::addColumn<bool>("rules");
        QTest::addColumn<QByteArray>("calendar"); // a fixed window's, with its offset and anchor day; or none
        for (const Algorithm algorithm :
             {Algorithm::TokenBucket, Algorithm::Gcra, Algorithm::FixedWindow, Algorithm::SlidingWindow}) {
            const QByteArray name = model::algorithmName(algorithm).toUtf8();
            QTest::addRow("%s, no debt", name.constData())
                << algorithm << qint64(0) << qint64(0) << false << QByteArray();
            QTest::addRow("%s, debt up to 7", name.constData())
                << algorithm << qint64(7) << qint64(0) << false << QByteArray();
            QTest::addRow("%s, debt up to 40, reservations wait 300 ms", name.constData())
                << algorithm << qint64(40) << qint64(300) << false << QByteArray();
            QTest::addRow("%s, debt up to 5, an override, allow, deny and a penalty", name.constData())
                << algorithm << qint64(5) << qint64(0) << true << QByteArray();
        }
        // A sliding window gives a refund back in the reservation's window and the next: one that waits 2.5
        // windows can be settled after both, its estimate standing.
        QTest::newRow("sliding_window, debt up to 7, reservations wait 2.5 windows")
            << Algorithm::SlidingWindow << qint64(7) << qint64(2500) << false << QByteArray();
        // Calendar quotas in debt: days at UTC+05:30, months from the 31st (so February's last day).
        QTest::newRow("fixed_window, each day at UTC+05:30, debt up to 25")
            << Algorithm::FixedWindow << qint64(25) << qint64(0) << false << QByteArray("day 330 1");
        QTest::newRow("fixed_window, each month from the 31st, debt up to 12")
            << Algorithm::FixedWindow << qint64(12) << qint64(0) << false << QByteArray("month 0 31");
        QTest::newRow("fixed_window, each week, no debt")
            << Algorithm::FixedWindow << qint64(0) << qint64(0) << false << QByteArray("week -300 1");
    }

    void reserveSettleMatchesReference()
    {
        QFETCH(Algorithm, algorithm);
        QFETCH(qint64, maxDebt);
        QFETCH(qint64, timeoutMs);
        QFETCH(bool, rules);
        QFETCH(QByteArray, calendar);
        const bool usesBurst = model::algorithmUsesBurst(algorithm);
        // A window of a minute, with time moving in steps of up to 1.5 windows (a calendar's steps are its
        // nominal period's 1,000th): the library's buckets expire on Redis's own clock, whose lifetimes must
        // outlast any stall of this machine (seconds, seen on a loaded one) while the test clock stands still.
        model::Policy policy = test::makePolicy(QStringLiteral("llm"), algorithm, 10, 60000, usesBurst ? 15 : 0);
        policy.maxDebt = maxDebt;
        qint64 pace = 60;
        if (!calendar.isEmpty()) {
            const QList<QByteArray> parts = calendar.split(' ');
            policy.calendar = *model::calendarFromName(QString::fromLatin1(parts.at(0)));
            policy.utcOffsetMinutes = parts.at(1).toInt();
            policy.anchorDay = parts.at(2).toInt();
            policy.windowMs = model::calendarNominalMs(policy.calendar);
            pace = policy.windowMs / 1000;
        }
        policy.reserveTimeoutMs = timeoutMs * pace;
        if (rules) {
            policy.blockMs = 700 * pace;
            policy.overrides = {{"ops", false, model::SubjectOverride::Kind::Allow, 0, 0},
                                {"spam", false, model::SubjectOverride::Kind::Deny, 0, 0},
                                {"vip", false, model::SubjectOverride::Kind::Limits, 30, usesBurst ? 40 : 0}};
        }
        const auto problems = model::validatePolicy(policy);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.value(0).toString()));
        QVERIFY(test::syncCommand(*m_connection, {"FLUSHALL"}).ok());
        const QString loaded = test::loadLibrary(*m_connection, test::testClockLibrary({policy}));
        QVERIFY2(loaded.isEmpty(), qPrintable(loaded));

        const QByteArrayList subjects
            = rules ? QByteArrayList{"alice", "bob", "vip", "ops", "spam"} : QByteArrayList{"alice", "bob"};
        std::map<QByteArray, model::ReferenceLimiter> models;
        for (const QByteArray &subject : subjects)
            models.emplace(subject, model::ReferenceLimiter(policy, subject));
        QHash<QByteArray, QByteArray> libraryIds;  // the model's reservation id -> the library's
        QHash<QByteArray, QByteArrayList> held;    // per subject, the model's ids not yet settled
        QHash<QByteArray, QByteArrayList> settled; // per subject, ids already settled
        const quint32 seed = static_cast<quint32>(qHash(QByteArray(QTest::currentDataTag())));
        QRandomGenerator random(seed);
        qint64 now = testClockStart(seed);
        int settlements = 0, refusals = 0, uncharged = 0, inDebt = 0, reservations = 0;
        int refundsKept = 0;                      // refunds a window that had ended could not give back
        qint64 unchargedUnits = 0, debtUnits = 0; // what sluice_rule_stats must have counted
        int refused[4] = {0, 0, 0, 0};            // by model::Settlement::Problem
        for (int step = 0; step < 4000; ++step) {
            const int roll100 = random.bounded(100);
            now += (roll100 < 40 ? 0 : roll100 < 85 ? random.bounded(150) : random.bounded(1500)) * pace;
            const RedisReply clockSet
                = test::syncCommand(*m_connection, {"FCALL", "sluice_test_set_clock", "0", QByteArray::number(now)});
            QVERIFY2(clockSet.ok(), qPrintable(clockSet.errorText())); // a busy-loop run once failed here, unsaid
            const QByteArray subject = subjects.at(random.bounded(static_cast<int>(subjects.size())));
            const QByteArray key = test::bucketKey(policy.name, subject);
            model::ReferenceLimiter &model = models.at(subject);
            const QByteArray where
                = "step " + QByteArray::number(step) + " at " + QByteArray::number(now) + " subject " + subject + ": ";
            const int roll = random.bounded(100);
            if (roll < 40) {
                const qint64 estimate = 1 + random.bounded(random.bounded(10) == 0 ? 50 : 8);
                const Decision expected = model.reserve(now, estimate);
                const RedisReply reply = test::syncCommand(
                    *m_connection, {"FCALL", "sluice_reserve", "1", key, "llm", QByteArray::number(estimate)});
                Decision actual;
                QString why;
                QVERIFY2(test::decisionFromReply(reply.value, &actual, &why),
                         QByteArray(where + why.toUtf8()).constData());
                if (!expected.extra.isEmpty()) {
                    QVERIFY2(QRegularExpression(QStringLiteral("^[0-9a-f]{16}:%1$").arg(estimate))
                                 .match(QString::fromLatin1(actual.extra))
                                 .hasMatch(),
                             QByteArray(where + "reservation id " + actual.extra).constData());
                    libraryIds.insert(subject + ' ' + expected.extra, actual.extra);
                    held[subject].append(expected.extra);
                    ++reservations;
                    actual.extra = expected.extra;
                }
                QVERIFY2(actual == expected,
                         QByteArray(where + "reserve " + QByteArray::number(estimate) + ": library " + actual.toString()
                                    + ", model " + expected.toString())
                             .constData());
                continue;
            }
            if (roll >= 90) {
                // An acquire, or a peek: a subject in debt is seen as such.
                const bool peek = roll >= 96;
                const Decision expected = peek ? model.peek(now, 1) : model.acquire(now, 1);
                Decision actual;
                QString why;
                QVERIFY(test::decisionFromReply(
                    test::syncCommand(
                        *m_connection,
                        {peek ? "FCALL_RO" : "FCALL", peek ? "sluice_peek" : "sluice_acquire", "1", key, "llm"})
                        .value,
                    &actual, &why));
                QVERIFY2(actual == expected,
                         QByteArray(where + (peek ? "peek" : "acquire") + ": library " + actual.toString() + ", model "
                                    + expected.toString())
                             .constData());
                continue;
            }
            // Settle: mostly one of the subject's own, else one settled before, another subject's, or a forgery.
            // The model's ids are numbered per subject: another subject's, or a forgery, is one it never made.
            QByteArray modelId = "never made", libraryId = "0123456789abcdef:3";
            const int which = random.bounded(100);
            const QByteArray other = subjects.at(random.bounded(static_cast<int>(subjects.size())));
            if (which < 75 && !held[subject].isEmpty())
                modelId = held[subject].takeAt(random.bounded(static_cast<int>(held[subject].size())));
            else if (which < 85 && !settled[subject].isEmpty())
                modelId = settled[subject].at(random.bounded(static_cast<int>(settled[subject].size())));
            else if (which < 95 && other != subject && !held[other].isEmpty())
                libraryId = libraryIds.value(other + ' ' + held[other].first());
            libraryId = libraryIds.value(subject + ' ' + modelId, libraryId);
            const qint64 estimate = libraryId.mid(libraryId.indexOf(':') + 1).toLongLong();
            const qint64 actualCost = random.bounded(static_cast<int>(2 * estimate + 6));
            const model::Settlement expected = model.settle(modelId, now, actualCost);
            const RedisReply reply = test::syncCommand(
                *m_connection, {"FCALL", "sluice_settle", "1", key, "llm", libraryId, QByteArray::number(actualCost)});
            const QByteArray what = where + "settle " + libraryId + " with " + QByteArray::number(actualCost) + ": ";
            if (expected.problem != model::Settlement::Problem::None) {
                static const char *const words[] = {"", "no reservation", "already settled", "expired"};
                const QByteArray word = words[static_cast<int>(expected.problem)];
                QVERIFY2(!reply.ok() && reply.errorText().contains(QString::fromLatin1(word)),
                         QByteArray(what + "library " + reply.value.toString().toUtf8() + reply.errorText().toUtf8()
                                    + ", model refuses: " + word)
                             .constData());
                ++refusals;
                ++refused[static_cast<int>(expected.problem)];
                continue;
            }
            QVERIFY2(reply.ok() && reply.value.elements.size() == 3,
                     QByteArray(what + reply.errorText().toUtf8()).constData());
            const QByteArray libraryText = QByteArray::number(reply.value.elements.at(0).integer) + ' '
                + QByteArray::number(reply.value.elements.at(1).integer) + ' '
                + QByteArray::number(reply.value.elements.at(2).integer);
            const QByteArray modelText = QByteArray::number(expected.settled) + ' '
                + QByteArray::number(expected.uncharged) + ' ' + QByteArray::number(expected.remaining);
            QVERIFY2(libraryText == modelText,
                     QByteArray(what + "library " + libraryText + ", model " + modelText).constData());
            settled[subject].append(modelId);
            ++settlements;
            unchargedUnits += expected.uncharged;
            refundsKept += expected.settled > actualCost;
            const qint64 charged = expected.settled - estimate;
            if (charged > 0 && expected.remaining < 0)
                debtUnits += std::min(charged, -expected.remaining);
            uncharged += expected.uncharged > 0;
            inDebt += expected.remaining < 0;
        }
        qInfo("%d settlements (%d with an uncharged excess, %d into debt, %d refunds kept by an ended window), %d "
              "refusals (%d unknown ids, %d settled twice, %d expired), every one as the model's",
              settlements, uncharged, inDebt, refundsKept, refusals, refused[1], refused[2], refused[3]);
        QCOMPARE(refundsKept > 0, algorithm == Algorithm::FixedWindow || policy.reserveTimeoutMs > 2 * policy.windowMs);
        QVERIFY(settlements > 50 && refused[1] > 0 && refused[2] > 0 && refused[3] > 0);
        QVERIFY(uncharged > 0 || maxDebt > 10);
        QCOMPARE(inDebt > 0, maxDebt > 0);
        // The policy's counts for the exporter: reservations, settlements, units into debt, units not charged.
        const RedisReply counts = test::syncCommand(*m_connection, {"FCALL_RO", "sluice_rule_stats", "0"});
        QVERIFY2(counts.ok() && counts.value.elements.size() == 11, qPrintable(counts.value.toString()));
        QCOMPARE(counts.value.elements.at(7).integer, reservations);
        QCOMPARE(counts.value.elements.at(8).integer, settlements);
        QCOMPARE(counts.value.elements.at(9).integer, debtUnits);
        QCOMPARE(counts.value.elements.at(10).integer, unchargedUnits);
        QCOMPARE(debtUnits > 0, maxDebt > 0);
    }

    // A sliding window's debt is kept beside its bucket and outlives the bucket's counts: once the counts'
    // key has gone (it may when its windows no longer weigh), the subject is still rejected until the debt is
    // paid, as the model says, and such a rejection creates no key that is no bucket.
    void slidingDebtOutlivesItsBucket()
    {
        model::Policy policy = test::makePolicy(QStringLiteral("llm"), Algorithm::SlidingWindow, 10, 60000, 0);
        policy.maxDebt = 35;
        policy.reserveTimeoutMs = 300000; // (a minute's window: see reserveSettleMatchesReference)
        QVERIFY(test::syncCommand(*m_connection, {"FLUSHALL"}).ok());
        const QString loaded = test::loadLibrary(*m_connection, test::testClockLibrary({policy}));
        QVERIFY2(loaded.isEmpty(), qPrintable(loaded));
        model::ReferenceLimiter model(policy, "alice");
        const QByteArray key = test::bucketKey(policy.name, "alice");
        qint64 now = testClockStart(7);
        const auto setClock = [&] {
            return test::syncCommand(*m_connection, {"FCALL", "sluice_test_set_clock", "0", QByteArray::number(now)})
                .ok();
        };
        QVERIFY(setClock());
        const Decision reserved = model.reserve(now, 2);
        const RedisReply reply = test::syncCommand(*m_connection, {"FCALL", "sluice_reserve", "1", key, "llm", "2"});
        QVERIFY2(reply.ok() && reply.value.elements.size() == 7, qPrintable(reply.value.toString()));
        now += 6000;
        QVERIFY(setClock());
        // 40 used: 8 more fit the window, 30 go into debt (3 windows' worth), 0 uncharged.
        const model::Settlement expected = model.settle(reserved.extra, now, 40);
        QCOMPARE(expected.uncharged, 0);
        const RedisReply settled = test::syncCommand(
            *m_connection, {"FCALL", "sluice_settle", "1", key, "llm", reply.value.elements.at(6).bytes, "40"});
        QVERIFY2(settled.ok(), qPrintable(settled.errorText()));
        QCOMPARE(settled.value.elements.at(2).integer, expected.remaining);
        QCOMPARE(test::syncCommand(*m_connection, {"EXISTS", key + ":debt"}).value.integer, 1);

        now += 150000; // two windows on: the counts of the settlement's window no longer weigh
        QVERIFY(setClock());
        QVERIFY(test::syncCommand(*m_connection, {"PEXPIRE", key, "0"}).ok());
        int rejected = 0; // before the first admission
        bool admitted = false;
        for (int call = 0; call < 40; ++call, now += 5820) {
            QVERIFY(setClock());
            const Decision wanted = model.acquire(now, 1);
            Decision actual;
            QString why;
            QVERIFY2(test::decisionFromReply(
                         test::syncCommand(*m_connection, {"FCALL", "sluice_acquire", "1", key, "llm"}).value, &actual,
                         &why),
                     qPrintable(why));
            QVERIFY2(actual == wanted,
                     QByteArray("call " + QByteArray::number(call) + ": library " + actual.toString() + ", model "
                                + wanted.toString())
                         .constData());
            admitted = admitted || actual.allowed;
            if (!admitted) {
                ++rejected;
                QCOMPARE(test::syncCommand(*m_connection, {"TYPE", key}).value.bytes, QByteArray("none"));
            }
        }
        QVERIFY(admitted);
        QVERIFY(rejected > 0); // the debt still owed once the bucket's key had gone
    }

    // A million decisions, each equal to the exact model's: the clock moves 0 to 2 thousandths of
    // the window per call and costs reach 2.2 thousandths of the limit, so the bucket keeps running
    // dry and refilling (1e9 per second: 0 to 2 ms, costs up to 2.2 million).
    void noDriftOverAMillionCalls_data()
    {
        QTest::addColumn<Algorithm>("algorithm");
        QTest::addColumn<qint64>("limit");
        QTest::addColumn<qint64>("windowMs");
        QTest::addColumn<qint64>("burst");
        QTest::newRow("token_bucket: 1e9 per second")
            << Algorithm::TokenBucket << qint64(1000000000) << qint64(1000) << qint64(1000000000);
        QTest::newRow("gcra: 1e9 per second")
            << Algorithm::Gcra << qint64(1000000000) << qint64(1000) << qint64(1000000000);
        for (const Algorithm algorithm :
             {Algorithm::TokenBucket, Algorithm::Gcra, Algorithm::LeakyBucket, Algorithm::SlidingWindow}) {
            const QByteArray name = model::algorithmName(algorithm).toUtf8();
            QTest::addRow("%s: 1e8 per day", name.constData())
                << algorithm << qint64(100000000) << qint64(86400000) << qint64(100000000);
            QTest::addRow("%s: 999999937 per week", name.constData())
                << algorithm << qint64(999999937) << qint64(604800000) << qint64(999999929);
        }
    }

    void noDriftOverAMillionCalls()
    {
        QFETCH(Algorithm, algorithm);
        QFETCH(qint64, limit);
        QFETCH(qint64, windowMs);
        QFETCH(qint64, burst);
        const model::Policy policy = test::makePolicy(QStringLiteral("big"), algorithm, limit, windowMs, burst);
        QVERIFY(model::validatePolicy(policy).isEmpty());
        const qint64 maxStep = 2 * windowMs / 1000, maxCost = limit * 22 / 10000;
        QVERIFY(test::syncCommand(*m_connection, {"FLUSHALL"}).ok());
        const QString loaded = test::loadLibrary(*m_connection, test::testClockLibrary({policy}));
        QVERIFY2(loaded.isEmpty(), qPrintable(loaded));

        QRandomGenerator random(7);
        model::ReferenceLimiter model(policy);
        qint64 now = testClockStart(7);
        qint64 clock = -1, allowed = 0, rejected = 0;
        QByteArray mismatch;
        const QByteArray key = test::bucketKey(policy.name, "x");
        constexpr int calls = 1000000, batch = 20000;
        for (int done = 0; done < calls && mismatch.isEmpty(); done += batch) {
            int pending = 0;
            for (int i = 0; i < batch; ++i) {
                now += random.bounded(static_cast<int>(maxStep + 1));
                const qint64 cost = 1 + random.bounded(static_cast<int>(maxCost));
                const Decision expected = model.acquire(now, cost);
                (expected.allowed ? allowed : rejected) += 1;
                if (now != clock) {
                    clock = now;
                    ++pending;
                    m_connection->send({"FCALL", "sluice_test_set_clock", "0", QByteArray::number(now)}, this,
                                       [&pending](const RedisReply &) { --pending; });
                }
                ++pending;
                test::sendKeepingKeys(*m_connection, this,
                                      {"FCALL", "sluice_acquire", "1", key, "big", QByteArray::number(cost)}, {key},
                                      [&pending, &mismatch, expected, i, done](const RedisReply &reply) {
                    --pending;
                    Decision actual;
                    QString why;
                    if (!mismatch.isEmpty())
                        return;
                    if (!test::decisionFromReply(reply.value, &actual, &why))
                        mismatch = why.toUtf8();
                    else if (!(actual == expected))
                        mismatch = "call " + QByteArray::number(done + i) + ": library " + actual.toString()
                            + ", model " + expected.toString();
                });
            }
            QVERIFY(test::spinUntil([&pending] { return pending == 0; }, 120000));
        }
        QVERIFY2(mismatch.isEmpty(), mismatch.constData());
        qInfo("%lld allowed, %lld rejected, every decision exact", allowed, rejected);
        QVERIFY(allowed > 10000 && rejected > 10000); // both paths were exercised
    }
};

QTEST_GUILESS_MAIN(TestLimiterReference)
#include "tst_limiter_reference.moc"
