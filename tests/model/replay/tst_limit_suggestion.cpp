// SPDX-License-Identifier: GPL-3.0-or-later
// Suggesting a limit: on generated traffic whose per-subject rates are known, the suggestion is the
// smallest limit on the curve that meets the target, a fresh replay at it meets the target, and one
// unit less does not; on a small log every smaller limit is replayed to show none meets it.

#include "model/replay/limit_suggestion.h"
#include "model/replay/replay.h"

#include <QRandomGenerator>
#include <QTest>

#include <cmath>

using namespace sluice;
using model::Algorithm;
using model::Arrival;

Q_DECLARE_METATYPE(sluice::model::Algorithm)

namespace {

constexpr qint64 kStartMs = 1'700'000'000'000;

// `subjects` subjects over `seconds`, subject i sending Poisson arrivals at a rate drawn from a
// heavy-tailed (Pareto, shape 1.5) distribution with a median of `medianPerMinute` a minute.
struct Traffic {
    std::vector<Arrival> arrivals;
    model::SubjectTable subjects;
};

void generate(Traffic *traffic, int subjects, int seconds, double medianPerMinute, quint32 seed)
{
    QRandomGenerator random(seed);
    struct Next {
        double at;
        double perMs;
        quint32 subject;
        bool operator>(const Next &other) const { return at > other.at; }
    };
    std::priority_queue<Next, std::vector<Next>, std::greater<Next>> upcoming;
    for (int i = 0; i < subjects; ++i) {
        const quint32 id = traffic->subjects.intern("subject-" + QByteArray::number(i));
        const double pareto = std::pow(1.0 - random.generateDouble(), -1.0 / 1.5) / std::pow(2.0, 1.0 / 1.5);
        const double perMs = medianPerMinute * pareto / 60000.0;
        upcoming.push({-std::log(1.0 - random.generateDouble()) / perMs, perMs, id});
    }
    while (!upcoming.empty() && upcoming.top().at < seconds * 1000.0) {
        Next next = upcoming.top();
        upcoming.pop();
        traffic->arrivals.push_back({kStartMs + qint64(next.at), next.subject, 1});
        next.at += -std::log(1.0 - random.generateDouble()) / next.perMs;
        upcoming.push(next);
    }
}

double shareAt(const Traffic &traffic, const model::LimitFamily &family, qint64 limit, bool ofSubjects)
{
    model::Replay replay({family.policyAt(limit)});
    for (const Arrival &arrival : traffic.arrivals)
        replay.take(arrival);
    const model::CandidateOutcome outcome = replay.outcomes(traffic.subjects, 0).first();
    return ofSubjects ? outcome.subjectsRejectedShare() : outcome.rejectedShare();
}

} // namespace

class TestLimitSuggestion : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void suggestionIsTheSmallestThatMeetsTheTarget_data()
    {
        QTest::addColumn<Algorithm>("algorithm");
        QTest::addColumn<qint64>("windowMs");
        QTest::addColumn<double>("burstFactor");
        QTest::addColumn<double>("target");
        QTest::addColumn<bool>("ofSubjects");
        QTest::newRow("token bucket per minute, 0.1% of subjects")
            << Algorithm::TokenBucket << qint64(60000) << 1.0 << 0.001 << true;
        QTest::newRow("token bucket per 10 s, burst 2x, 1% of requests")
            << Algorithm::TokenBucket << qint64(10000) << 2.0 << 0.01 << false;
        QTest::newRow("fixed window per minute, 0.5% of requests")
            << Algorithm::FixedWindow << qint64(60000) << 1.0 << 0.005 << false;
        QTest::newRow("sliding window per minute, 1% of subjects")
            << Algorithm::SlidingWindow << qint64(60000) << 1.0 << 0.01 << true;
        QTest::newRow("gcra per second, 5% of requests") << Algorithm::Gcra << qint64(1000) << 1.0 << 0.05 << false;
        QTest::newRow("sliding log per minute, 0% of requests")
            << Algorithm::SlidingLog << qint64(60000) << 1.0 << 0.0 << false;
    }

    void suggestionIsTheSmallestThatMeetsTheTarget()
    {
        QFETCH(Algorithm, algorithm);
        QFETCH(qint64, windowMs);
        QFETCH(double, burstFactor);
        QFETCH(double, target);
        QFETCH(bool, ofSubjects);
        Traffic traffic;
        generate(&traffic, 1500, 900, 6.0, quint32(qHash(QByteArray(QTest::currentDataTag()))));
        QVERIFY(traffic.arrivals.size() > 50000);
        model::LimitFamily family;
        family.algorithm = algorithm;
        family.windowMs = windowMs;
        family.burstFactor = burstFactor;
        model::LimitSuggester suggester(traffic.arrivals, traffic.subjects, family);
        const std::optional<model::Suggestion> suggestion = suggester.suggest(target, ofSubjects);
        QVERIFY(suggestion && suggestion->limit);
        const qint64 limit = *suggestion->limit;
        for (const model::CurvePoint &point : suggestion->curve)
            QVERIFY2(point.limit >= limit || point.rejectedShare > target,
                     qPrintable(QStringLiteral("limit %1 meets %2 below the suggestion %3")
                                    .arg(point.limit)
                                    .arg(point.rejectedShare)
                                    .arg(limit)));
        const double at = shareAt(traffic, family, limit, ofSubjects);
        QVERIFY2(at <= target, qPrintable(QString::number(at)));
        const double below = limit > 1 ? shareAt(traffic, family, limit - 1, ofSubjects) : 1.0;
        QVERIFY2(below > target, qPrintable(QString::number(below)));
        qInfo("%zu arrivals: limit %lld rejects %.5f, %lld rejects %.5f (target %.4f); %d replays, %lld points; "
              "busiest window p50 %lld p99 %lld max %lld",
              traffic.arrivals.size(), qlonglong(limit), at, qlonglong(limit - 1), below, target, suggestion->passes,
              qlonglong(suggestion->curve.size()), qlonglong(suggestion->percentiles.p50),
              qlonglong(suggestion->percentiles.p99), qlonglong(suggestion->percentiles.max));
    }

    // On a small log, every limit below the suggestion is replayed: none meets the target.
    void noSmallerLimitMeetsTheTarget()
    {
        Traffic traffic;
        generate(&traffic, 300, 600, 4.0, 7);
        model::LimitFamily family;
        family.algorithm = Algorithm::TokenBucket;
        family.windowMs = 60000;
        model::LimitSuggester suggester(traffic.arrivals, traffic.subjects, family);
        const auto suggestion = suggester.suggest(0.02, false);
        QVERIFY(suggestion && suggestion->limit);
        QVERIFY(*suggestion->limit > 2);
        for (qint64 limit = 1; limit < *suggestion->limit; ++limit)
            QVERIFY2(shareAt(traffic, family, limit, false) > 0.02, qPrintable(QString::number(limit)));
    }

    // Subject i sends (i mod 10) + 1 calls in each window: the percentiles are known.
    void percentilesOfTheBusiestWindow()
    {
        Traffic traffic;
        for (int i = 0; i < 1000; ++i)
            traffic.subjects.intern("s" + QByteArray::number(i));
        for (qint64 window = 0; window < 5; ++window)
            for (quint32 i = 0; i < 1000; ++i)
                for (quint32 call = 0; call <= i % 10; ++call)
                    traffic.arrivals.push_back({kStartMs - kStartMs % 60000 + window * 60000 + call * 100, i, 1});
        std::stable_sort(traffic.arrivals.begin(), traffic.arrivals.end(),
                         [](const Arrival &a, const Arrival &b) { return a.ms < b.ms; });
        const model::RatePercentiles p = model::ratePercentiles(traffic.arrivals, 1000, 60000);
        QCOMPARE(p.p50, qint64(5));
        QCOMPARE(p.p90, qint64(9));
        QCOMPARE(p.p99, qint64(10));
        QCOMPARE(p.max, qint64(10));
    }

    // A target no limit can meet short of the largest a policy takes: no suggestion, and a curve that says so.
    void unreachableTarget()
    {
        Traffic traffic;
        traffic.subjects.intern("one");
        for (qint64 i = 0; i < 2000; ++i)
            traffic.arrivals.push_back({kStartMs + i, 0, 600'000'000});
        model::LimitFamily family;
        family.algorithm = Algorithm::FixedWindow;
        family.windowMs = 1000;
        model::LimitSuggester suggester(traffic.arrivals, traffic.subjects, family);
        const auto suggestion = suggester.suggest(0.0, false);
        QVERIFY(suggestion);
        QVERIFY(!suggestion->limit);
        QVERIFY(suggestion->curve.last().limit == model::policy_limits::maxLimit);
        QVERIFY(suggestion->curve.last().rejectedShare > 0);
    }

    void cancelledBetweenSlices()
    {
        Traffic traffic;
        generate(&traffic, 500, 600, 20.0, 3);
        model::LimitFamily family;
        model::LimitSuggester suggester(traffic.arrivals, traffic.subjects, family);
        int asked = 0;
        QVERIFY(!suggester.suggest(0.01, false, [&] { return ++asked > 1; }));
        QVERIFY(asked >= 2);
    }
};

QTEST_GUILESS_MAIN(TestLimitSuggestion)
#include "tst_limit_suggestion.moc"
