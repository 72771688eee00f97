// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QHash>
#include <QString>
#include <QStringList>

#include <optional>

namespace sluice::model {

// A policy's decisions since counting began: allowed, rejected by an enforcing policy, and rejections a
// shadow policy only recorded (it let those calls through).
struct DecisionTotals {
    quint64 allowed = 0;
    quint64 rejected = 0;
    quint64 shadowRejected = 0;

    DecisionTotals &operator+=(const DecisionTotals &other)
    {
        allowed += other.allowed;
        rejected += other.rejected;
        shadowRejected += other.shadowRejected;
        return *this;
    }
    bool operator==(const DecisionTotals &other) const
    {
        return allowed == other.allowed && rejected == other.rejected && shadowRejected == other.shadowRejected;
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
