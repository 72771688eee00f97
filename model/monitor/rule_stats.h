// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "redis/resp_value.h"

#include <QHash>
#include <QString>

#include <optional>

namespace sluice::model {

// One policy's subject rules and reservations at work on one primary (sluice_rule_stats), since the
// library was loaded: counters, and the subjects blocked now.
struct PolicyRuleCounts {
    quint64 allowListed = 0;    // calls an allow rule admitted (among the allowed)
    quint64 denied = 0;         // calls a deny rule rejected (among the rejected)
    quint64 blocksStarted = 0;  // penalties started
    quint64 blockedNow = 0;     // subjects blocked now (counted to the end of a granule of block_ms / 64)
    quint64 reservations = 0;   // reservations made
    quint64 settlements = 0;    // reservations settled
    quint64 debtUnits = 0;      // units settlements charged beyond what was left (into debt)
    quint64 unchargedUnits = 0; // units of excess not charged (past max_debt)

    PolicyRuleCounts &operator+=(const PolicyRuleCounts &other)
    {
        for (const auto count :
             {&PolicyRuleCounts::allowListed, &PolicyRuleCounts::denied, &PolicyRuleCounts::blocksStarted,
              &PolicyRuleCounts::blockedNow, &PolicyRuleCounts::reservations, &PolicyRuleCounts::settlements,
              &PolicyRuleCounts::debtUnits, &PolicyRuleCounts::unchargedUnits})
            this->*count += other.*count;
        return *this;
    }
};

struct RuleStatsReading {
    qint64 nowMs = 0;
    qint64 epochMs = 0;                        // the same epoch as sluice_stats': they count from the same load
    QHash<QString, PolicyRuleCounts> policies; // only those with rules or reservations

    // Empty (and why in `problem`) when the reply is not one of sluice_rule_stats. A library from before
    // the function replies "not found": read as no rules (it has none), not as a failure.
    static std::optional<RuleStatsReading> parse(const redis::RespValue &reply, QString *problem);
};

} // namespace sluice::model
