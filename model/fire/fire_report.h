// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/failure.h"
#include "model/fire/fire_plan.h"
#include "model/fire/latency_histogram.h"

#include <QJsonObject>
#include <QStringList>
#include <QVector>

namespace sluice::model {

constexpr qint64 fireBinMs = 100;

// One target's calls sent in one 100 ms slice of a run (by the time they were sent), with what
// the server answered and what the reference model expected for the same calls.
struct FireBin {
    qint64 sent = 0;
    qint64 allowed = 0;
    qint64 rejected = 0;
    qint64 errors = 0; // error replies and calls that got no reply
    qint64 expectedAllowed = 0;
    qint64 expectedRejected = 0;
    // Reserve then settle: the settlements of the slice's admitted reservations, those refused (expired),
    // the units they charged and the excess units not charged, beside the model's.
    qint64 settled = 0;
    qint64 settleRefused = 0;
    qint64 charged = 0;
    qint64 uncharged = 0;
    qint64 expectedCharged = 0;
    qint64 expectedUncharged = 0;
    FireBin &operator+=(const FireBin &other);
};

// What the engine posts about ten times a second: the bins from `firstBin` on replace the report's
// (earlier bins no longer change), the rest is the run so far.
struct FireUpdate {
    int firstBin = 0;
    QVector<QVector<FireBin>> bins;    // per target
    QVector<LatencyHistogram> latency; // per target, the whole run so far
    QStringList firstErrors;           // per target
    qint64 elapsedMs = 0;
    qint64 sendingMs = 0; // from the first call to the end of sending (the achieved rate's span)
    qint64 inFlight = 0;
    qint64 maxLagMs = 0;    // the furthest a call was sent behind its schedule
    bool connected = false; // calls are going out
    bool finished = false;
    std::optional<Failure> failure; // why the run could not start or was cut short
};

// One target's figures over a run.
struct FireSummary {
    QString target;
    qint64 sent = 0, answered = 0, allowed = 0, rejected = 0, errors = 0;
    qint64 expectedAllowed = 0, expectedRejected = 0;
    qint64 settled = 0, settleRefused = 0, charged = 0, uncharged = 0, expectedCharged = 0, expectedUncharged = 0;
    // The settlements in one line: "settled 12 (0 refused), charged 340 units (model 340), not charged 0 (model 0)".
    QString settlementText() const;
    double achievedRate = 0;     // calls sent per second
    double deviationPercent = 0; // (allowed - expected) / expected
    qint64 p50Us = 0, p95Us = 0, p99Us = 0, maxUs = 0;
    double meanUs = 0;
    QString firstError;
};

// A run as the panel and sluicectl show it: the plan, the per-100 ms curves of every target, the
// latencies, and the summaries; exported as CSV or JSON.
class FireReport {
public:
    FireReport() = default;
    explicit FireReport(const FirePlan &plan);

    void apply(const FireUpdate &update);

    const FirePlan &plan() const { return m_plan; }
    int targetCount() const { return m_bins.size(); }
    const QVector<FireBin> &bins(int target) const { return m_bins.at(target); }
    const LatencyHistogram &latency(int target) const { return m_latency.at(target); }
    LatencyHistogram allLatency() const;
    qint64 elapsedMs() const { return m_last.elapsedMs; }
    qint64 sendingMs() const { return m_last.sendingMs; }
    qint64 maxLagMs() const { return m_last.maxLagMs; }
    qint64 inFlight() const { return m_last.inFlight; }
    bool connected() const { return m_last.connected; }
    bool finished() const { return m_last.finished; }
    std::optional<Failure> failure() const { return m_last.failure; }
    FireSummary summary(int target) const;

    // One row per 100 ms and target: the curves and, per target, the run's summary as comments.
    QByteArray toCsv() const;
    // The first target's summary at the top level, every target's under "targets", the plan and
    // the latency of all calls.
    QJsonObject toJson() const;

private:
    FirePlan m_plan;
    QVector<QVector<FireBin>> m_bins;
    QVector<LatencyHistogram> m_latency;
    QStringList m_firstErrors;
    FireUpdate m_last;
};

} // namespace sluice::model
