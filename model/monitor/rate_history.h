// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/monitor/bounded_ring.h"

#include <QString>

#include <map>

namespace sluice::model {

// Decisions counted over one sampling interval, ending at endMs (Redis time).
struct RatePoint {
    qint64 endMs = 0;
    qint32 spanMs = 0;
    quint32 allowed = 0; // saturates at 2^32 - 1
    quint32 rejected = 0;

    double allowedPerSecond() const { return spanMs > 0 ? allowed * 1000.0 / spanMs : 0; }
    double rejectedPerSecond() const { return spanMs > 0 ? rejected * 1000.0 / spanMs : 0; }
};

using RateRing = BoundedRing<RatePoint>;

// Every policy's points, oldest first, by policy name.
using RateSeries = std::map<QString, QVector<RatePoint>>;

// Whether `next` begins where `previous` ends: samples follow each other end to start, and the
// sums over longer steps shift by less than their span. Anything else is a stretch of time
// nothing was counted in (the dashboard was closed), drawn as a gap.
bool followsWithoutGap(const RatePoint &previous, const RatePoint &next);

// How long before `point` nothing was sampled (0: it follows on): the stretch between `previous`
// and it when they do not follow each other, and, in a point spanning more than twice both the
// expected span and its predecessor's, all of it but one span: samples missed while a server was
// frozen, slow or unreachable. Its decisions are real, but not when in that stretch they were
// taken, so the charts draw the stretch as a gap rather than a line across it. (A run that sampled
// at a longer interval throughout, restored from an earlier one, is no gap.)
qint64 unsampledBeforeMs(const RatePoint *previous, const RatePoint &point, qint64 expectedSpanMs);

// One series kept for `retentionMs`: at the sampling interval while that takes at most
// kMaxPoints points; longer retention keeps the most recent kMaxPoints samples as they came and,
// behind them, consolidated points (sums over a longer step) reaching back the whole retention. So
// a series never holds more than 2 x kMaxPoints points, whatever the interval and retention.
class RateHistory {
public:
    static constexpr int kMaxPoints = 3600;

    RateHistory(qint64 retentionMs, int intervalMs);

    void append(const RatePoint &point);
    // Points ending in [fromMs, toMs], oldest first: consolidated ones where the recent samples do
    // not reach back that far.
    QVector<RatePoint> points(qint64 fromMs, qint64 toMs) const;
    const RatePoint *latest() const { return m_recent.isEmpty() ? nullptr : &m_recent.last(); }
    qint64 retentionMs() const { return m_retentionMs; }
    // Span of one consolidated point; 0 while every sample is kept as it came.
    qint64 consolidationStepMs() const { return m_stepMs; }
    qint64 bytes() const { return m_recent.bytes() + m_consolidated.bytes(); }

private:
    qint64 m_retentionMs;
    qint64 m_stepMs = 0;
    RateRing m_recent;
    RateRing m_consolidated;
    RatePoint m_pending; // the consolidated point being summed
    bool m_hasPending = false;
};

} // namespace sluice::model
