// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/policy/policy_lint.h"

#include "model/format/units.h"
#include "model/policy/policy_summary.h"

#include <QCoreApplication>

namespace sluice::model {

namespace {

// This file's strings, under the context a translator sees them in.
struct Text {
    Q_DECLARE_TR_FUNCTIONS(sluice::model::PolicyLint)
};

} // namespace

QVector<PolicyWarning> lintPolicy(const Policy &policy, qint64 typicalCost)
{
    QVector<PolicyWarning> warnings;
    const bool burst = algorithmUsesBurst(policy.algorithm);
    const qint64 capacity = burst ? policy.effectiveBurst() : policy.limit;
    if (typicalCost > capacity)
        warnings.append({PolicyWarning::Kind::BurstBelowCost, burst ? QStringLiteral("burst") : QStringLiteral("limit"),
                         Text::tr("%1 is smaller than a typical cost of %2: such a request is always rejected")
                             .arg(burst ? Text::tr("Burst") : Text::tr("Limit"))
                             .arg(typicalCost)});
    if (policy.windowMs < shortestSensibleWindowMs)
        warnings.append({PolicyWarning::Kind::WindowNearResolution, QStringLiteral("window_ms"),
                         Text::tr("A window of %1 is within ten ticks of the limiter's 1 ms clock: network latency and "
                                  "clock steps decide more than the limit does")
                             .arg(durationText(policy.windowMs))});
    // Requests per second the policy admits at its steady rate; beyond what one key can take it never rejects.
    const double perSecond = static_cast<double>(policy.limit) * 1000.0 / static_cast<double>(policy.windowMs);
    if (policy.algorithm != Algorithm::Concurrency && perSecond > static_cast<double>(fastestCallsPerSecond))
        warnings.append({PolicyWarning::Kind::NeverRejects, QStringLiteral("limit"),
                         Text::tr("%1 per second is more than one key can be called (about %2 per second): this limit "
                                  "never rejects")
                             .arg(formatDecimal(perSecond), formatCount(fastestCallsPerSecond))});
    if (policy.algorithm == Algorithm::FixedWindow)
        warnings.append({PolicyWarning::Kind::FixedWindowEdges, QStringLiteral("algorithm"),
                         Text::tr("A fixed window admits up to twice the limit around a window's edge (the end of one "
                                  "window and the start of the next); a sliding window does not")});
    if (policy.shadow)
        warnings.append({PolicyWarning::Kind::ShadowOn, QStringLiteral("shadow"),
                         Text::tr("Shadow mode is on: rejections are counted but every request passes")});
    return warnings;
}

} // namespace sluice::model
