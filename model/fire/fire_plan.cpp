// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/fire/fire_plan.h"

#include "model/limiter/bucket_key.h"
#include "model/limiter/limiter_library.h"
#include "model/policy/policy_summary.h"

#include <QCoreApplication>
#include <QLocale>

#include <cmath>

namespace sluice::model {

namespace {

// This file's strings, under the context a translator sees them in.
struct Text {
    Q_DECLARE_TR_FUNCTIONS(sluice::model::FirePlan)
};

constexpr qint64 nsPerSecond = 1'000'000'000;

bool isRate(double rate)
{
    return std::isfinite(rate) && rate > 0 && rate <= fire_limits::maxRate;
}

// Why the library takes no reservations for `target`; empty when it does (as lua/limiter/reservations.lua).
QString reservationProblem(const FireTarget &target)
{
    const Policy &policy = target.policy;
    if (target.kind != FireTarget::Kind::Policy)
        return Text::tr("a seed script takes no reservations: only a policy's library does");
    if (!algorithmSettles(policy.algorithm))
        return Text::tr("a %1 policy takes no reservations: token_bucket, gcra, fixed_window and sliding_window do")
            .arg(algorithmName(policy.algorithm));
    if (policy.windowStart == WindowStart::FirstCall)
        return Text::tr("its windows open at each subject's first call: reservations need aligned or calendar windows");
    if (policy.shadow)
        return Text::tr("a shadow policy takes no reservations");
    return {};
}

} // namespace

QString fireShapeName(FireShape shape)
{
    switch (shape) {
    case FireShape::Constant: return QStringLiteral("constant");
    case FireShape::Bursts: return QStringLiteral("bursts");
    case FireShape::Ramp: return QStringLiteral("ramp");
    case FireShape::Poisson: return QStringLiteral("poisson");
    case FireShape::Saturate: return QStringLiteral("saturate");
    }
    return {};
}

QStringList FirePlan::problems() const
{
    return targetProblems() + pacingProblems();
}

QStringList FirePlan::targetProblems() const
{
    QStringList found;
    if (targets.isEmpty() || targets.size() > fire_limits::maxTargets)
        found << Text::tr("name from 1 to %1 targets to fire at").arg(fire_limits::maxTargets);
    for (int i = 0; i < targets.size(); ++i) {
        const FireTarget &target = targets.at(i);
        const QString problem = target.problem(cost);
        if (!problem.isEmpty())
            found << Text::tr("%1: %2").arg(target.policy.name, problem);
        const QString reserving = reserve ? reservationProblem(target) : QString();
        if (!reserving.isEmpty())
            found << Text::tr("%1: %2").arg(target.policy.name, reserving);
        // Its calls would each pick a bucket at random, which the run's exact model of each subject does not follow.
        if (target.kind == FireTarget::Kind::Policy && target.policy.spread > 0)
            found << Text::tr("%1: a spread policy is not test-fired yet (each call picks one of its %2 buckets at "
                              "random); fire at its buckets with sluicectl acquire, or at a copy without spread")
                         .arg(target.policy.name)
                         .arg(target.policy.spread);
        // Real keys are the target's own: two targets on the same keys would spend each other's.
        for (int j = 0; j < i && realKeys; ++j)
            if (targets.at(j).kind == target.kind && targets.at(j).policy.name == target.policy.name)
                found << Text::tr("%1 is named twice: with real keys both would spend the same buckets")
                             .arg(target.policy.name);
    }
    return found;
}

QStringList FirePlan::pacingProblems() const
{
    QStringList found;
    if (!isValidSubject(subject) || subject.size() > 200)
        found << Text::tr("the subject must be 1 to 200 bytes without braces");
    if (subjects != FireSubjects::One && (subjectCount < 1 || subjectCount > fire_limits::maxSubjects))
        found << Text::tr("the number of subjects must be from 1 to %1").arg(fire_limits::maxSubjects);
    switch (shape) {
    case FireShape::Constant:
    case FireShape::Poisson:
        if (!isRate(rate))
            found << Text::tr("the rate must be above 0 and at most %1 calls a second")
                         .arg(fire_limits::maxRate, 0, 'f', 0);
        break;
    case FireShape::Ramp:
        if (!std::isfinite(rate) || !std::isfinite(rampToRate) || rate < 0 || rampToRate < 0
            || std::max(rate, rampToRate) > fire_limits::maxRate || std::max(rate, rampToRate) == 0)
            found << Text::tr("a ramp runs between two rates from 0 to %1 calls a second, not both 0")
                         .arg(fire_limits::maxRate, 0, 'f', 0);
        break;
    case FireShape::Bursts:
        if (burstSize < 1 || burstSize > fire_limits::maxBurstSize)
            found << Text::tr("a burst is from 1 to %1 calls").arg(fire_limits::maxBurstSize);
        if (burstEveryMs < 1 || burstEveryMs > fire_limits::maxDurationMs)
            found << Text::tr("bursts come every 1 to %1 ms").arg(fire_limits::maxDurationMs);
        break;
    case FireShape::Saturate:
        if (pipeline < 1 || pipeline > fire_limits::maxPipeline)
            found << Text::tr("the pipeline holds from 1 to %1 calls per connection").arg(fire_limits::maxPipeline);
        break;
    }
    if (connections < 1 || connections > fire_limits::maxConnections)
        found << Text::tr("use from 1 to %1 connections").arg(fire_limits::maxConnections);
    if (cost < 1 || cost > policy_limits::maxLimit)
        found << Text::tr("the cost must be from 1 to %1").arg(policy_limits::maxLimit);
    if (reserve && !realKeys)
        found << Text::tr("reserve then settle fires at real keys: the library reserves for a published policy");
    if (reserve && (actualMin < 0 || actualMin > actualMax || actualMax > fire_limits::maxActualCost))
        found << Text::tr("the actual cost runs from 0 to %1, its least no more than its most")
                     .arg(fire_limits::maxActualCost);
    if (reserve && (settleAfterMs < 0 || settleAfterMs > fire_limits::maxSettleAfterMs))
        found
            << Text::tr("a reservation is settled from 0 to %1 ms after its answer").arg(fire_limits::maxSettleAfterMs);
    if (durationMs < fire_limits::minDurationMs || durationMs > fire_limits::maxDurationMs)
        found << Text::tr("the duration must be from %1 ms to %2 s")
                     .arg(fire_limits::minDurationMs)
                     .arg(fire_limits::maxDurationMs / 1000);
    return found;
}

int FirePlan::subjectOf(qint64 index, std::mt19937_64 &random) const
{
    switch (subjects) {
    case FireSubjects::One: break;
    case FireSubjects::Rotation: return static_cast<int>(index % subjectCount);
    case FireSubjects::Random: return std::uniform_int_distribution<int>(0, subjectCount - 1)(random);
    }
    return 0;
}

QByteArray FirePlan::subjectName(int subject) const
{
    return subjects == FireSubjects::One ? this->subject : this->subject + '-' + QByteArray::number(subject + 1);
}

QString FirePlan::describe() const
{
    const QLocale locale = QLocale::c();
    QString pace;
    switch (shape) {
    case FireShape::Constant: pace = Text::tr("%1/s constant").arg(locale.toString(rate, 'g', 7)); break;
    case FireShape::Poisson: pace = Text::tr("%1/s Poisson").arg(locale.toString(rate, 'g', 7)); break;
    case FireShape::Ramp:
        pace = Text::tr("ramp %1/s to %2/s").arg(locale.toString(rate, 'g', 7), locale.toString(rampToRate, 'g', 7));
        break;
    case FireShape::Bursts:
        pace = Text::tr("bursts of %1 every %2").arg(burstSize).arg(durationText(burstEveryMs));
        break;
    case FireShape::Saturate: pace = Text::tr("as fast as possible, %1 in flight per connection").arg(pipeline); break;
    }
    const QString who = subjects == FireSubjects::One ? Text::tr("subject \"%1\"").arg(QString::fromUtf8(subject))
        : subjects == FireSubjects::Rotation          ? Text::tr("%1 subjects in rotation").arg(subjectCount)
                                                      : Text::tr("random of %1 subjects").arg(subjectCount);
    QString costs = Text::tr("cost %1").arg(cost);
    if (reserve)
        costs = Text::tr("reserving %1, settled with %2 after %3")
                    .arg(cost)
                    .arg(actualMin == actualMax ? QString::number(actualMin)
                                                : Text::tr("%1 to %2").arg(actualMin).arg(actualMax))
                    .arg(durationText(settleAfterMs));
    return Text::tr("%1 for %2, %3, %4 connection(s), %5%6")
        .arg(pace, durationText(durationMs), who)
        .arg(connections)
        .arg(costs, realKeys ? Text::tr(", real keys") : QString());
}

FireSchedule::FireSchedule(const FirePlan &plan)
    : m_plan(plan)
    , m_random(plan.seed ^ 0x5eed)
{
}

qint64 FireSchedule::nextNs()
{
    const FirePlan &plan = m_plan;
    const double duration = plan.durationMs / 1000.0;
    double seconds = 0;
    switch (plan.shape) {
    case FireShape::Saturate: return -1;
    case FireShape::Constant: seconds = m_index / plan.rate; break;
    case FireShape::Bursts: seconds = (m_index / plan.burstSize) * (plan.burstEveryMs / 1000.0); break;
    case FireShape::Poisson:
        seconds = m_poissonSeconds;
        m_poissonSeconds += std::exponential_distribution<double>(plan.rate)(m_random);
        break;
    case FireShape::Ramp: {
        // Calls sent by time t: rate * t + (to - rate) * t^2 / (2 * duration); call i is due when
        // that reaches i.
        const double a = plan.rate, k = (plan.rampToRate - plan.rate) / (2 * duration);
        if (k == 0) {
            seconds = m_index / a;
        } else {
            const double discriminant = a * a + 4 * k * m_index;
            if (discriminant < 0)
                return -1;
            seconds = (-a + std::sqrt(discriminant)) / (2 * k);
        }
        break;
    }
    }
    const qint64 due = qRound64(seconds * nsPerSecond);
    if (!(seconds < duration) || due >= plan.durationMs * 1'000'000)
        return -1;
    ++m_index;
    return due;
}

qint64 FireSchedule::expectedCalls(const FirePlan &plan)
{
    const double duration = plan.durationMs / 1000.0;
    switch (plan.shape) {
    case FireShape::Constant: return static_cast<qint64>(std::ceil(plan.rate * duration));
    case FireShape::Poisson: return qRound64(plan.rate * duration);
    case FireShape::Ramp: return static_cast<qint64>(std::ceil((plan.rate + plan.rampToRate) / 2 * duration));
    case FireShape::Bursts:
        return static_cast<qint64>(std::ceil(plan.durationMs / double(plan.burstEveryMs))) * plan.burstSize;
    case FireShape::Saturate: break;
    }
    return 0;
}

} // namespace sluice::model
