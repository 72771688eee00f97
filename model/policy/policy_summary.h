// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/policy/policy.h"

#include <QSet>

namespace sluice::model {

// A duration as an operator says it: "second", "5 minutes", "90 seconds", "1500 ms". `singular`
// drops the count of one ("per minute" rather than "per 1 minute").
QString durationText(qint64 ms, bool singular = false);

// What the policy does, in one or two plain sentences ("Up to 150 requests at once, then 100 per
// minute."), shadow mode included.
QString describePolicy(const Policy &policy);

// The limit alone, short, as an Overview row says it: "100 per minute, burst 150", "5 at once", "240 per minute,
// 4 buckets" (a spread policy).
QString limitInWords(const Policy &policy);

// The policy's window as a duration, and "from the first call" after it for a first-call window
// ("1 minute from the first call"); `singular` as for durationText().
QString windowInWords(const Policy &policy, bool singular = false);

// Where a fixed window starts, in words ("aligned to the clock", "at the first call"); empty for the
// other algorithms.
QString windowStartText(const Policy &policy);

// A calendar window in words ("month from day 31, UTC+01:00", "day, UTC"); empty for no calendar.
QString calendarText(const Policy &policy);

// The names of the policies in shadow mode: they count what they would reject and reject nothing.
QSet<QString> shadowPolicyNames(const QVector<Policy> &policies);
// The spread ones (Policy::spread), by name: how many buckets each subject has.
QHash<QString, int> spreadPolicies(const QVector<Policy> &policies);
// A shadow policy's name (or a row naming it) as every list and column shows it: "api-next [shadow]".
QString withShadowMark(const QString &text);

} // namespace sluice::model
