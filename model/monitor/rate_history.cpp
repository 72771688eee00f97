// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/monitor/rate_history.h"

#include <algorithm>
#include <limits>

namespace sluice::model {

namespace {

quint32 saturatedSum(quint32 a, quint32 b)
{
    const quint64 sum = quint64(a) + b;
    return sum > std::numeric_limits<quint32>::max() ? std::numeric_limits<quint32>::max() : quint32(sum);
}

// Index of the first point of `ring` (in time order) that ends at or after fromMs.
int firstEndingFrom(const RateRing &ring, qint64 fromMs)
{
    int low = 0;
    int high = ring.size();
    while (low < high) {
        const int middle = (low + high) / 2;
        if (ring.at(middle).endMs < fromMs)
            low = middle + 1;
        else
            high = middle;
    }
    return low;
}

} // namespace

bool followsWithoutGap(const RatePoint &previous, const RatePoint &next)
{
    return next.endMs - next.spanMs - previous.endMs <= std::max(previous.spanMs, next.spanMs);
}

qint64 unsampledBeforeMs(const RatePoint *previous, const RatePoint &point, qint64 expectedSpanMs)
{
    if (!previous)
        return 0;
    qint64 unsampled = 0;
    if (!followsWithoutGap(*previous, point))
        unsampled += std::max<qint64>(0, point.endMs - point.spanMs - previous->endMs);
    const qint64 usual = std::max<qint64>(expectedSpanMs, previous->spanMs);
    if (point.spanMs > 2 * usual)
        unsampled += point.spanMs - usual;
    return unsampled;
}

RateHistory::RateHistory(qint64 retentionMs, int intervalMs)
    : m_retentionMs(retentionMs)
{
    const qint64 interval = std::max(1, intervalMs);
    const qint64 samples = (retentionMs + interval - 1) / interval;
    if (samples <= kMaxPoints) {
        m_recent = RateRing(int(samples));
        return;
    }
    m_recent = RateRing(kMaxPoints);
    const qint64 intervalsPerStep = (samples + kMaxPoints - 1) / kMaxPoints;
    m_stepMs = intervalsPerStep * interval;
    m_consolidated = RateRing(int((retentionMs + m_stepMs - 1) / m_stepMs));
}

void RateHistory::append(const RatePoint &point)
{
    m_recent.append(point);
    if (m_stepMs == 0)
        return;
    // Consolidated points cover aligned steps: a sample belongs to the step its end falls in.
    const qint64 stepEnd = (point.endMs / m_stepMs + 1) * m_stepMs;
    if (m_hasPending && m_pending.endMs != stepEnd) {
        m_consolidated.append(m_pending);
        m_hasPending = false;
    }
    if (!m_hasPending) {
        m_pending = RatePoint{stepEnd, 0, 0, 0};
        m_hasPending = true;
    }
    m_pending.spanMs += point.spanMs;
    m_pending.allowed = saturatedSum(m_pending.allowed, point.allowed);
    m_pending.rejected = saturatedSum(m_pending.rejected, point.rejected);
}

QVector<RatePoint> RateHistory::points(qint64 fromMs, qint64 toMs) const
{
    QVector<RatePoint> found;
    const qint64 recentStart
        = m_recent.isEmpty() ? std::numeric_limits<qint64>::max() : m_recent.at(0).endMs - m_recent.at(0).spanMs;
    for (int i = firstEndingFrom(m_consolidated, fromMs); i < m_consolidated.size(); ++i) {
        const RatePoint &point = m_consolidated.at(i);
        if (point.endMs > toMs || point.endMs > recentStart)
            break;
        found.append(point);
    }
    for (int i = firstEndingFrom(m_recent, fromMs); i < m_recent.size() && m_recent.at(i).endMs <= toMs; ++i)
        found.append(m_recent.at(i));
    return found;
}

} // namespace sluice::model
