// SPDX-License-Identifier: GPL-3.0-or-later
// The test-fire engine against a real redis-server: every algorithm and seed script answers as its
// reference model expects for the same calls; the shapes send their schedules; test-fire keeps to
// its own key space unless told to use real keys; bad plans are refused before anything is sent; a
// run can be stopped, survives a server restart, fails clearly when nothing can be tested; the
// report exports what it shows.

#include "model/fire/fire_engine.h"
#include "model/limiter/bucket_key.h"
#include "model/monitor/policy_rate_sampler.h"
#include "model/policy/lists_store.h"
#include "support/limiter_support.h"
#include "support/publish_support.h"
#include "support/redis_process.h"
#include "support/sync_command.h"
#include "support/test_services.h"

#include <QJsonArray>
#include <QSignalSpy>
#include <QTest>

Q_DECLARE_METATYPE(sluice::model::Policy)

using namespace sluice;
using model::Algorithm;
using model::FirePlan;
using model::FireReport;
using model::FireShape;
using model::FireTarget;
using model::SeedLayout;
using redis::RedisClient;

Q_DECLARE_METATYPE(sluice::model::FirePlan)

class TestFireEngine : public QObject {
    Q_OBJECT

    test::RedisProcess m_redis;
    std::unique_ptr<RedisClient> m_client;
    QString m_ns;
    model::LibraryOwner owner() const { return {m_ns, 0}; }

    // Runs the plan to its end; the report, or an empty one with the refusal in *refused.
    FireReport fire(const FirePlan &plan, QString *refused = nullptr, const redis::ConnectionOptions *options = nullptr)
    {
        model::FireEngine engine;
        QSignalSpy finished(&engine, &model::FireEngine::finished);
        const auto why = engine.start(plan, options ? *options : m_redis.options(), m_ns, false);
        if (refused)
            *refused = sluice::model::messageOf(why);
        if (why)
            return {};
        test::spinUntil([&] { return finished.count() > 0; }, static_cast<int>(plan.durationMs) + 30000);
        return engine.report();
    }

    static FirePlan constantPlan(const QVector<FireTarget> &targets, double rate, qint64 durationMs)
    {
        FirePlan plan;
        plan.targets = targets;
        plan.rate = rate;
        plan.durationMs = durationMs;
        plan.subject = "tester";
        return plan;
    }

    // Allowed as the model expects, every call sent and answered, at the rate asked for.
    static void compareWithModel(const FireReport &report, double rate)
    {
        const qint64 calls = model::FireSchedule::expectedCalls(report.plan());
        for (int target = 0; target < report.targetCount(); ++target) {
            const model::FireSummary summary = report.summary(target);
            const QString what = QStringLiteral("%1: allowed %2, model %3, rejected %4, errors %5 (%6)")
                                     .arg(summary.target)
                                     .arg(summary.allowed)
                                     .arg(summary.expectedAllowed)
                                     .arg(summary.rejected)
                                     .arg(summary.errors)
                                     .arg(summary.firstError);
            QVERIFY2(summary.errors == 0, qPrintable(what));
            QCOMPARE(summary.sent, calls);
            QCOMPARE(summary.answered, calls);
            QCOMPARE(summary.expectedAllowed + summary.expectedRejected, calls);
            QVERIFY2(qAbs(summary.allowed - summary.expectedAllowed)
                         <= std::max<qint64>(3, summary.expectedAllowed / 100),
                     qPrintable(what));
            QVERIFY2(summary.expectedRejected > 0, "the traffic is over the limit, so the curves can differ");
            QVERIFY2(qAbs(summary.achievedRate - rate) <= rate * 0.05,
                     qPrintable(QString::number(summary.achievedRate)));
        }
    }

    QByteArrayList keysMatching(const QByteArray &pattern)
    {
        const redis::RedisReply reply = test::syncCommand(*m_client, {"KEYS", pattern});
        QByteArrayList keys;
        for (const redis::RespValue &key : reply.value.elements)
            keys << key.bytes;
        return keys;
    }

    model::StatsReading stats()
    {
        const redis::RedisReply reply
            = test::syncCommand(*m_client, {"FCALL_RO", owner().function("stats"), "0", "9007199254740991"});
        QString problem;
        const auto reading = model::StatsReading::parse(reply.value, &problem);
        return reading.value_or(model::StatsReading());
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_redis.start(), qPrintable(m_redis.errorString()));
        m_client = std::make_unique<RedisClient>(m_redis.options());
        QVERIFY(test::openAndWait(*m_client));
    }

    void init() { m_ns = test::uniqueNamespace("fire-"); }

    void everyAlgorithmAnswersAsItsModelExpects_data()
    {
        QTest::addColumn<QVector<model::Policy>>("policies");
        using test::makePolicy;
        QTest::newRow("buckets") << QVector<model::Policy>{
            makePolicy(QStringLiteral("tb"), Algorithm::TokenBucket, 100, 1000, 150),
            makePolicy(QStringLiteral("gcra"), Algorithm::Gcra, 100, 1000, 150),
            makePolicy(QStringLiteral("leaky"), Algorithm::LeakyBucket, 100, 1000, 150),
            makePolicy(QStringLiteral("conc"), Algorithm::Concurrency, 40, 250)};
        // The first-call window's 700 ms do not divide the 2 s run, so no window opens at its very end.
        model::Policy firstCall = makePolicy(QStringLiteral("first-call"), Algorithm::FixedWindow, 100, 700);
        firstCall.windowStart = model::WindowStart::FirstCall;
        QTest::newRow("windows") << QVector<model::Policy>{
            makePolicy(QStringLiteral("fixed"), Algorithm::FixedWindow, 100, 500),
            makePolicy(QStringLiteral("sliding"), Algorithm::SlidingWindow, 100, 500),
            makePolicy(QStringLiteral("log"), Algorithm::SlidingLog, 100, 500), firstCall};
    }

    // Side by side: the same calls at several policies at once, each against its own model.
    void everyAlgorithmAnswersAsItsModelExpects()
    {
        QFETCH(QVector<model::Policy>, policies);
        QVERIFY(test::storeAndPublish(*m_client, m_ns, {}).isEmpty()); // the library, no policy of these
        QVector<FireTarget> targets;
        for (const model::Policy &policy : policies)
            targets << FireTarget::forPolicy(policy);
        const FireReport report = fire(constantPlan(targets, 1000, 2000));
        QVERIFY2(!report.failure(), qPrintable(sluice::model::messageOf(report.failure())));
        compareWithModel(report, 1000);
        // The curves: every 100 ms slice sent its share, and the model's curve follows the answers.
        for (int target = 0; target < report.targetCount(); ++target) {
            QCOMPARE(report.bins(target).size(), 20);
            for (const model::FireBin &bin : report.bins(target))
                QVERIFY2(qAbs(bin.sent - 100) <= 1, qPrintable(QString::number(bin.sent)));
        }
        // Test-fire keys live in their own key space: none of the namespace's, no policy counted.
        QVERIFY(!keysMatching(m_ns.toUtf8() + "-fire:*").isEmpty());
        QVERIFY(keysMatching(m_ns.toUtf8() + ":*").isEmpty());
        QVERIFY(stats().totals.isEmpty());
    }

    void seedScriptsAnswerAsTheirModelsExpect()
    {
        const QVector<FireTarget> targets{FireTarget::forSeedScript(SeedLayout::ScgTokenBucket, 50, 1000, 80),
                                          FireTarget::forSeedScript(SeedLayout::FixedWindowCounter, 60, 1000, 60),
                                          FireTarget::forSeedScript(SeedLayout::MsTokenBucket, 50, 1000, 80),
                                          FireTarget::forSeedScript(SeedLayout::IntervalTokenBucket, 50, 1000, 80)};
        FirePlan plan = constantPlan(targets, 500, 2500);
        plan.connections = 2;
        const FireReport report = fire(plan);
        QVERIFY2(!report.failure(), qPrintable(sluice::model::messageOf(report.failure())));
        compareWithModel(report, 500);
        QVERIFY(!keysMatching("request_rate_limiter.{" + m_ns.toUtf8() + "-fire:*").isEmpty());
    }

    // Seed 004's lesson: the ms bucket trusts its callers' clocks; when they disagree it admits far
    // more than it should, while Sluice's bucket (the server's clock) stays on its model.
    void skewedClientClocksBreakTheMsBucketButNotSluice()
    {
        QVERIFY(test::storeAndPublish(*m_client, m_ns, {}).isEmpty());
        FireTarget skewed = FireTarget::forSeedScript(SeedLayout::MsTokenBucket, 20, 1000, 20);
        skewed.clockSkewMs = 2000;
        const FireTarget sluiceBucket
            = FireTarget::forPolicy(test::makePolicy(QStringLiteral("tb"), Algorithm::TokenBucket, 20, 1000, 20));
        FirePlan plan = constantPlan({skewed, sluiceBucket}, 400, 2000);
        plan.connections = 2;
        const FireReport report = fire(plan);
        QVERIFY2(!report.failure(), qPrintable(sluice::model::messageOf(report.failure())));
        const model::FireSummary ms = report.summary(0), tb = report.summary(1);
        QCOMPARE(ms.expectedAllowed, tb.expectedAllowed); // one true clock: the same model
        QVERIFY2(ms.allowed > 3 * ms.expectedAllowed,
                 qPrintable(QStringLiteral("%1 vs %2").arg(ms.allowed).arg(ms.expectedAllowed)));
        QVERIFY2(qAbs(tb.allowed - tb.expectedAllowed) <= 3,
                 qPrintable(QStringLiteral("%1 vs %2").arg(tb.allowed).arg(tb.expectedAllowed)));
        QVERIFY(report.plan().targets.first().label().contains(QStringLiteral("clocks 2000 ms apart")));
    }

    void realKeysSpendTheSubjectsOwnBucket_data()
    {
        QTest::addColumn<model::Policy>("api");
        QTest::addColumn<QByteArray>("subject");
        QTest::addColumn<int>("answeredAllowed");
        QTest::addColumn<int>("bucketRejected"); // the bucket's own count; -1 when no bucket is kept
        QTest::addColumn<QByteArray>("lists");   // the namespace's, as stored
        const model::Policy enforcing = test::makePolicy(QStringLiteral("api"), Algorithm::FixedWindow, 30, 3600000);
        QTest::newRow("enforcing") << enforcing << QByteArray("alice") << 30 << 70 << QByteArray();
        // A shadow policy admits every call on its real keys, and the model expects just that (it used to
        // expect the enforcing policy's rejections, shown as a deviation); its bucket still counts them.
        QTest::newRow("shadow") << test::makePolicy(QStringLiteral("api"), Algorithm::FixedWindow, 30, 3600000, 0, true)
                                << QByteArray("alice") << 100 << 70 << QByteArray();
        // The subject's own rules, in the model as in the library: its override, a list, a penalty.
        model::Policy ruled = enforcing;
        ruled.overrides = {{"ops", false, model::SubjectOverride::Kind::Allow, 0, 0},
                           {"partner-", true, model::SubjectOverride::Kind::Limits, 50, 0},
                           {"scraper", false, model::SubjectOverride::Kind::Deny, 0, 0}};
        QTest::newRow("override") << ruled << QByteArray("partner-1") << 50 << 50 << QByteArray();
        QTest::newRow("allow-listed") << ruled << QByteArray("ops") << 100 << -1 << QByteArray();
        QTest::newRow("denied") << ruled << QByteArray("scraper") << 0 << -1 << QByteArray();
        // The namespace's lists: a prefix denied for every policy, and the same pattern as the policy's
        // deny, which the list's allow overrules.
        QTest::newRow("denied by the namespace's list")
            << enforcing << QByteArray("bot-1") << 0 << -1 << QByteArray(R"({"bot-*":"deny"})");
        QTest::newRow("the namespace's list over the policy's override")
            << ruled << QByteArray("scraper") << 100 << -1 << QByteArray(R"({"scraper":"allow"})");
        // A bucket of 10 refilling one a second: the 11th call is rejected, which blocks the subject for 10 s, so
        // the token that refills during the run is not taken.
        model::Policy penalised = test::makePolicy(QStringLiteral("api"), Algorithm::TokenBucket, 10, 10000, 10);
        penalised.blockMs = 10000;
        QTest::newRow("penalty") << penalised << QByteArray("alice") << 10 << 1 << QByteArray();
    }

    void realKeysSpendTheSubjectsOwnBucket()
    {
        QFETCH(model::Policy, api);
        QFETCH(QByteArray, subject);
        QFETCH(int, answeredAllowed);
        QFETCH(int, bucketRejected);
        QFETCH(QByteArray, lists);
        QVERIFY(test::syncCommand(*m_client, {"DEL", '{' + m_ns.toUtf8() + "}:lists"}).ok());
        if (!lists.isEmpty())
            QVERIFY(test::syncCommand(*m_client, {"HSET", '{' + m_ns.toUtf8() + "}:lists", "entries", lists}).ok());
        QVERIFY(test::storeAndPublish(*m_client, m_ns, {api}).isEmpty());
        FireTarget target = FireTarget::forPolicy(api);
        QString problem;
        target.namespaceLists = *model::ListsStore::entriesFromJson(lists, &problem);
        FirePlan plan = constantPlan({target}, 200, 500);
        plan.realKeys = true;
        plan.subject = subject;
        const FireReport report = fire(plan);
        QVERIFY2(!report.failure(), qPrintable(sluice::model::messageOf(report.failure())));
        QCOMPARE(report.summary(0).allowed, answeredAllowed);
        QCOMPARE(report.summary(0).expectedAllowed, answeredAllowed);
        QCOMPARE(report.summary(0).rejected, 100 - answeredAllowed);
        const redis::RedisReply inspect
            = test::syncCommand(*m_client,
                                {"FCALL_RO", owner().function("inspect"), "1",
                                 model::bucketKey(m_ns, QStringLiteral("api"), subject), "api"});
        if (bucketRejected >= 0) {
            QCOMPARE(inspect.value.field("allowed")->integer, qMin(answeredAllowed, 100 - bucketRejected));
            QCOMPARE(inspect.value.field("rejected")->integer, bucketRejected);
        }
        // A shadow policy's counts are what it would have decided.
        QCOMPARE(stats().totals.value(QStringLiteral("api")).allowed,
                 quint64(api.shadow ? 100 - bucketRejected : answeredAllowed));
        QVERIFY(keysMatching(m_ns.toUtf8() + "-fire:*").isEmpty());
    }

    // Nothing to test when the first answer is an error: the run stops and says why.
    void aTargetThatCannotAnswerStopsTheRun()
    {
        QVERIFY(test::storeAndPublish(*m_client, m_ns, {}).isEmpty());
        FirePlan plan = constantPlan(
            {FireTarget::forPolicy(test::makePolicy(QStringLiteral("unpublished"), Algorithm::TokenBucket, 5, 1000))},
            100, 5000);
        plan.realKeys = true;
        QElapsedTimer clock;
        clock.start();
        const FireReport report = fire(plan);
        QVERIFY2(sluice::model::messageOf(report.failure()).contains(QStringLiteral("unknown policy")),
                 qPrintable(sluice::model::messageOf(report.failure())));
        QVERIFY(sluice::model::messageOf(report.failure()).startsWith(QStringLiteral("unpublished: ")));
        QVERIFY2(clock.elapsed() < 4000, "stopped at the first answer, not at the end of the plan");
        QVERIFY(report.finished());
    }

    void anUnreachableServerFailsTheRun()
    {
        redis::ConnectionOptions nowhere = m_redis.options();
        nowhere.port = 1; // nothing listens there
        const FireReport report
            = fire(constantPlan({FireTarget::forSeedScript(SeedLayout::FixedWindowCounter, 5, 1000, 5)}, 10, 1000),
                   nullptr, &nowhere);
        QVERIFY2(sluice::model::messageOf(report.failure()).contains(QStringLiteral("could not connect")),
                 qPrintable(sluice::model::messageOf(report.failure())));
        QCOMPARE(report.summary(0).sent, 0);
    }

    void badPlansAreRefusedBeforeAnythingIsSent_data()
    {
        QTest::addColumn<FirePlan>("plan");
        QTest::addColumn<QString>("refusal");
        const FireTarget tb
            = FireTarget::forPolicy(test::makePolicy(QStringLiteral("tb"), Algorithm::TokenBucket, 10, 1000, 20));
        const FirePlan good = constantPlan({tb}, 100, 1000);
        auto with = [&](const std::function<void(FirePlan &)> &change) {
            FirePlan plan = good;
            change(plan);
            return plan;
        };
        QTest::newRow("no target") << with([](FirePlan &p) { p.targets.clear(); }) << QStringLiteral("targets");
        QTest::newRow("rate 0") << with([](FirePlan &p) { p.rate = 0; }) << QStringLiteral("rate");
        QTest::newRow("rate NaN") << with([](FirePlan &p) { p.rate = std::nan(""); }) << QStringLiteral("rate");
        QTest::newRow("rate huge") << with([](FirePlan &p) { p.rate = 1e12; }) << QStringLiteral("rate");
        QTest::newRow("too long") << with([](FirePlan &p) { p.durationMs = 4'000'000; }) << QStringLiteral("duration");
        QTest::newRow("braced subject") << with([](FirePlan &p) { p.subject = "a{b}"; }) << QStringLiteral("subject");
        QTest::newRow("no subjects") << with([](FirePlan &p) {
            p.subjects = model::FireSubjects::Random;
            p.subjectCount = 0;
        }) << QStringLiteral("number of subjects");
        QTest::newRow("cost over burst") << with([](FirePlan &p) { p.cost = 21; }) << QStringLiteral("exceeds 20");
        QTest::newRow("no connections") << with([](FirePlan &p) { p.connections = 0; })
                                        << QStringLiteral("connections");
        QTest::newRow("empty burst") << with([](FirePlan &p) {
            p.shape = FireShape::Bursts;
            p.burstSize = 0;
        }) << QStringLiteral("burst");
        QTest::newRow("flat ramp") << with([](FirePlan &p) {
            p.shape = FireShape::Ramp;
            p.rate = 0;
            p.rampToRate = 0;
        }) << QStringLiteral("ramp");
        QTest::newRow("bad policy") << with([](FirePlan &p) { p.targets.first().policy.limit = 0; })
                                    << QStringLiteral("limit");
        QTest::newRow("counter cost") << with([](FirePlan &p) {
            p.targets = {FireTarget::forSeedScript(SeedLayout::FixedWindowCounter, 5, 1000, 5)};
            p.cost = 2;
        }) << QStringLiteral("cost must be 1");
        QTest::newRow("skew on scg") << with([](FirePlan &p) {
            p.targets = {FireTarget::forSeedScript(SeedLayout::ScgTokenBucket, 5, 1000, 5)};
            p.targets.first().clockSkewMs = 100;
        }) << QStringLiteral("scg_token_bucket reads the server's clock");
    }

    void badPlansAreRefusedBeforeAnythingIsSent()
    {
        QFETCH(FirePlan, plan);
        QFETCH(QString, refusal);
        const qint64 keysBefore = test::syncCommand(*m_client, {"DBSIZE"}).value.integer;
        QString refused;
        fire(plan, &refused);
        QVERIFY2(refused.contains(refusal), qPrintable(refused));
        QCOMPARE(test::syncCommand(*m_client, {"DBSIZE"}).value.integer, keysBefore);
    }

    void aReadOnlyConnectionIsRefused()
    {
        model::FireEngine engine;
        const auto refused
            = engine.start(constantPlan({FireTarget::forSeedScript(SeedLayout::ScgTokenBucket, 5, 1000, 5)}, 10, 1000),
                           m_redis.options(), m_ns, true);
        QVERIFY2(sluice::model::messageOf(refused).contains(QStringLiteral("read-only")),
                 qPrintable(sluice::model::messageOf(refused)));
        QVERIFY(!engine.isRunning());
    }

    void stopEndsTheRunEarly()
    {
        model::FireEngine engine;
        QSignalSpy finished(&engine, &model::FireEngine::finished);
        QVERIFY(!engine.start(
            constantPlan({FireTarget::forSeedScript(SeedLayout::ScgTokenBucket, 100, 1000, 100)}, 1000, 60000),
            m_redis.options(), m_ns, false));
        QVERIFY(engine.isRunning());
        QVERIFY(sluice::model::messageOf(engine.start(constantPlan({}, 1, 1000), m_redis.options(), m_ns, false))
                    .contains(QStringLiteral("already")));
        QVERIFY(test::spinUntil([&] { return engine.report().summary(0).answered >= 300; }));
        engine.stop();
        QVERIFY(test::spinUntil([&] { return finished.count() == 1; }, 5000));
        QVERIFY(!engine.isRunning());
        const model::FireSummary summary = engine.report().summary(0);
        QVERIFY2(summary.sent < 5000, qPrintable(QString::number(summary.sent)));
        QCOMPARE(summary.answered, summary.sent);
        QVERIFY2(qAbs(summary.achievedRate - 1000) < 100, qPrintable(QString::number(summary.achievedRate)));
    }

    void saturatingKeepsEachConnectionsPipelineFull()
    {
        model::FireEngine engine;
        FirePlan plan
            = constantPlan({FireTarget::forSeedScript(SeedLayout::ScgTokenBucket, 1000, 1000, 1000)}, 1, 1000);
        plan.shape = FireShape::Saturate;
        plan.connections = 2;
        plan.pipeline = 8;
        plan.subjects = model::FireSubjects::Random;
        plan.subjectCount = 100;
        qint64 mostInFlight = 0;
        connect(&engine, &model::FireEngine::updated, this,
                [&] { mostInFlight = std::max(mostInFlight, engine.report().inFlight()); });
        QSignalSpy finished(&engine, &model::FireEngine::finished);
        QVERIFY(!engine.start(plan, m_redis.options(), m_ns, false));
        QVERIFY(test::spinUntil([&] { return finished.count() == 1; }, 10000));
        const model::FireSummary summary = engine.report().summary(0);
        QVERIFY2(summary.sent > 2000, qPrintable(QString::number(summary.sent)));
        QCOMPARE(summary.errors, 0);
        QCOMPARE(summary.answered, summary.sent);
        QVERIFY2(mostInFlight > 0 && mostInFlight <= 16, qPrintable(QString::number(mostInFlight)));
        QVERIFY(summary.p99Us >= summary.p50Us && summary.p50Us > 0);
        // 100 subjects at random: a key for each (the whole-subject space is covered).
        QCOMPARE(keysMatching("request_rate_limiter.{" + m_ns.toUtf8() + "-fire:*}.tokens").size(), 100);
    }

    // A restart mid-run costs the calls in flight, not the run: it carries on once the server is back.
    void aServerRestartIsCountedAndSurvived()
    {
        test::RedisProcess server(test::RedisProcess::Patience::Quick);
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        model::FireEngine engine;
        QSignalSpy finished(&engine, &model::FireEngine::finished);
        const FirePlan plan
            = constantPlan({FireTarget::forSeedScript(SeedLayout::ScgTokenBucket, 1000, 1000, 1000)}, 500, 3000);
        QVERIFY(!engine.start(plan, server.options(), m_ns, false));
        QVERIFY(test::spinUntil([&] { return engine.report().summary(0).answered >= 200; }));
        QVERIFY(server.restart());
        QVERIFY(test::spinUntil([&] { return finished.count() == 1; }, 20000));
        const model::FireSummary summary = engine.report().summary(0);
        QVERIFY2(!engine.report().failure(), qPrintable(sluice::model::messageOf(engine.report().failure())));
        QVERIFY2(summary.errors > 0, "the restart lost calls (the script too: NOSCRIPT)");
        QCOMPARE(summary.answered + summary.errors, summary.sent);
        QVERIFY(!summary.firstError.isEmpty());
    }

    void schedulesFollowTheirShapes()
    {
        FirePlan plan = constantPlan({}, 2000, 10000);
        model::FireSchedule constant(plan);
        qint64 at = 0, calls = 0;
        while ((at = constant.nextNs()) >= 0)
            QCOMPARE(at, calls++ * 500'000);
        QCOMPARE(calls, 20000);
        QCOMPARE(model::FireSchedule::expectedCalls(plan), 20000);

        plan.shape = FireShape::Bursts;
        plan.burstSize = 5;
        plan.burstEveryMs = 300;
        plan.durationMs = 1000;
        model::FireSchedule bursts(plan);
        QVector<qint64> times;
        while ((at = bursts.nextNs()) >= 0)
            times << at / 1'000'000;
        QCOMPARE(times, (QVector<qint64>{0,   0,   0,   0,   0,   300, 300, 300, 300, 300,
                                         600, 600, 600, 600, 600, 900, 900, 900, 900, 900}));
        QCOMPARE(model::FireSchedule::expectedCalls(plan), 20);

        plan.shape = FireShape::Ramp;
        plan.rate = 0;
        plan.rampToRate = 1000;
        plan.durationMs = 2000;
        model::FireSchedule ramp(plan);
        qint64 firstHalf = 0, all = 0;
        while ((at = ramp.nextNs()) >= 0) {
            firstHalf += at < 1'000'000'000 ? 1 : 0;
            ++all;
        }
        QVERIFY2(qAbs(all - 1000) <= 1, qPrintable(QString::number(all)));
        QVERIFY2(qAbs(firstHalf - 250) <= 1, qPrintable(QString::number(firstHalf)));

        plan.shape = FireShape::Poisson;
        plan.rate = 1000;
        plan.durationMs = 10000;
        plan.seed = 42;
        auto arrivals = [&] {
            model::FireSchedule poisson(plan);
            QVector<qint64> times;
            qint64 next = 0;
            while ((next = poisson.nextNs()) >= 0)
                times << next;
            return times;
        };
        const QVector<qint64> first = arrivals();
        QCOMPARE(arrivals(), first); // a seed replays the same arrivals
        QVERIFY2(qAbs(first.size() - 10000) < 300, qPrintable(QString::number(first.size())));
        plan.shape = FireShape::Saturate;
        QCOMPARE(model::FireSchedule(plan).nextNs(), -1);
    }

    void latencyPercentilesAndBars()
    {
        model::LatencyHistogram latency;
        for (int us = 1; us <= 10000; ++us)
            latency.add(us);
        QCOMPARE(latency.count(), 10000);
        QCOMPARE(latency.max(), 10000);
        QCOMPARE(latency.percentile(0.0), 1);
        QCOMPARE(latency.percentile(0.005), 50); // exact below 64 µs
        for (double fraction : {0.5, 0.95, 0.99}) {
            const double exact = fraction * 10000;
            QVERIFY2(latency.percentile(fraction) >= exact && latency.percentile(fraction) <= exact * 1.035,
                     qPrintable(QString::number(latency.percentile(fraction))));
        }
        qint64 counted = 0;
        for (const auto &bar : latency.bars())
            counted += bar.count;
        QCOMPARE(counted, 10000);
        QCOMPARE(latency.bars().first().count, 10); // 1..10 µs
        QCOMPARE(latency.bars().last().toUs, 10000);
        model::LatencyHistogram other;
        other.add(50000);
        latency.merge(other);
        QCOMPARE(latency.max(), 50000);
        QCOMPARE(latency.count(), 10001);
    }

    void theReportExportsItsCurvesAndSummary()
    {
        FirePlan plan = constantPlan({FireTarget::forSeedScript(SeedLayout::FixedWindowCounter, 20, 1000, 20),
                                      FireTarget::forSeedScript(SeedLayout::ScgTokenBucket, 10, 1000, 10)},
                                     200, 1000);
        const FireReport report = fire(plan);
        QVERIFY2(!report.failure(), qPrintable(sluice::model::messageOf(report.failure())));
        const QByteArrayList lines = report.toCsv().split('\n');
        QVERIFY(lines.at(0).startsWith("# 200/s constant for 1 second"));
        // 20 in the run's window; a busy machine may stretch the run into the next one. Whatever it
        // admitted, every export says the same.
        const qint64 admitted = report.summary(0).allowed;
        QVERIFY2(admitted >= 20, qPrintable(QString::number(admitted)));
        QVERIFY2(lines.at(1).startsWith("# fixed_window_counter (20 per second): sent 200, allowed "
                                        + QByteArray::number(admitted)),
                 lines.at(1).constData());
        QCOMPARE(lines.at(3),
                 QByteArray("time_ms,target,sent,allowed,rejected,errors,expected_allowed,expected_rejected"));
        qint64 sent = 0, allowed = 0;
        for (const QByteArray &line : lines.mid(4)) {
            const QByteArrayList fields = line.split(',');
            if (fields.size() == 8 && fields.at(1) == "fixed_window_counter") {
                sent += fields.at(2).toLongLong();
                allowed += fields.at(3).toLongLong();
            }
        }
        QCOMPARE(sent, 200);
        QCOMPARE(allowed, admitted);
        const QJsonObject json = report.toJson();
        for (const char *field :
             {"sent", "allowed", "rejected", "achieved_rate", "p50_ms", "p95_ms", "p99_ms", "expected_allowed"})
            QVERIFY2(json.contains(QLatin1String(field)), field);
        QCOMPARE(json.value(QStringLiteral("sent")).toInt(), 200);
        QCOMPARE(json.value(QStringLiteral("allowed")).toInt(), admitted);
        QCOMPARE(json.value(QStringLiteral("targets")).toArray().size(), 2);
        QCOMPARE(
            json.value(QStringLiteral("targets")).toArray().at(1).toObject().value(QStringLiteral("allowed")).toInt(),
            report.summary(1).allowed);
    }
};

QTEST_GUILESS_MAIN(TestFireEngine)
#include "tst_fire_engine.moc"
