// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/policy/policy.h"

namespace sluice::model {

// Something allowed but suspicious about a policy, for the editor to show beside the form.
struct PolicyWarning {
    enum class Kind { BurstBelowCost, WindowNearResolution, NeverRejects, FixedWindowEdges, ShadowOn };
    Kind kind;
    QString field; // the field it is about ("burst", "window_ms", ...), empty for the policy as a whole
    QString message;
};

// The limiter's clock ticks in whole milliseconds; windows within ten ticks of it are mostly jitter.
constexpr qint64 shortestSensibleWindowMs = 10;
// One key cannot be called faster than one Redis core answers, so a higher rate never rejects.
constexpr qint64 fastestCallsPerSecond = 1'000'000;

// The warnings for a valid policy; `typicalCost` is what callers usually pass as cost.
QVector<PolicyWarning> lintPolicy(const Policy &policy, qint64 typicalCost = 1);

} // namespace sluice::model
