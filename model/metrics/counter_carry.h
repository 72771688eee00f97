// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QHash>
#include <QString>
#include <QStringList>

#include <optional>

namespace sluice::model {

// A policy's decisions since counting began: allowed, rejected by an enforcing policy, and rejections a
// shadow policy only recorded (it let those calls through); then what its subject rules and reservations
// did (sluice_rule_stats), counted alike.
struct DecisionTotals {
    quint64 allowed = 0;
    quint64 rejected = 0;
    quint64 shadowRejected = 0;
    quint64 allowListed = 0;    // of the allowed, admitted by an allow rule
    quint64 denied = 0;         // of the rejected, by a deny rule
    quint64 blocksStarted = 0;  // penalties started
    quint64 reservations = 0;   // reservations made
    quint64 settlements = 0;    // reservations settled
    quint64 debtUnits = 0;      // units settled into debt
    quint64 unchargedUnits = 0; // units of excess not charged (past max_debt)

    // Every counter, for sums and comparisons that must not forget one.
    static constexpr quint64 DecisionTotals::*counters[]
        = {&DecisionTotals::allowed,       &DecisionTotals::rejected,    &DecisionTotals::shadowRejected,
           &DecisionTotals::allowListed,   &DecisionTotals::denied,      &DecisionTotals::blocksStarted,
           &DecisionTotals::reservations,  &DecisionTotals::settlements, &DecisionTotals::debtUnits,
           &DecisionTotals::unchargedUnits};

    DecisionTotals &operator+=(const DecisionTotals &other)
    {
        for (const auto counter : counters)
            this->*counter += other.*counter;
        return *this;
    }
    bool operator==(const DecisionTotals &other) const
    {
        for (const auto counter : counters)
            if (this->*counter != other.*counter)
                return false;
        return true;
    }
    // Some counter is below the one in `earlier`: counting started again.
    bool anyBelow(const DecisionTotals &earlier) const
    {
        for (const auto counter : counters)
            if (this->*counter < earlier.*counter)
                return true;
        return false;
    }
};

using PolicyTotals = QHash<QString, DecisionTotals>; // by policy

// Turns the library's per-primary totals into counters that never go backwards while this object
// lives. Each primary's library counts from its own epoch: a reload of the library, a restart or a
// failover to a replica (counts are not replicated) starts it from zero. The carry keeps what each
// primary had counted when it was last read and adds it on, so a new epoch continues where the old
// one was last seen; a primary that leaves the topology keeps its share in the sum. Decisions made
// between the last reading and a reset are not seen by anyone, and are not invented.
class CounterCarry {
public:
    struct Reading {
        qint64 epochMs = 0;
        PolicyTotals totals;
    };

    // One scrape: `primaries` is the topology now, `readings` what each primary that answered
    // counted. The sums over every primary, or nothing when a primary of the topology did not
    // answer (a sum without it would look like a drop in traffic).
    std::optional<PolicyTotals> update(const QStringList &primaries, const QHash<QString, Reading> &readings);

    // Readings that started a new epoch on a primary already known (reloads, restarts, failovers seen).
    int resetsSeen() const { return m_resets; }

private:
    struct Primary {
        Reading last;
        PolicyTotals carried; // what earlier epochs of this primary counted
    };
    QHash<QString, Primary> m_primaries;
    PolicyTotals m_departed; // what primaries no longer in the topology counted
    int m_resets = 0;
};

} // namespace sluice::model
