// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/monitor/rejected_tally.h"

#include <algorithm>
#include <iterator>

namespace sluice::model {

namespace {

// The rejections between two readings of one primary's summary (see RejectedTally); nothing when the
// later one is not from the same copy of the library or a copy loaded after the earlier reading.
std::optional<QVector<RejectedSubject>> difference(const MostRejectedReading &before, const MostRejectedReading &after,
                                                   const QString &node, quint64 *leastGrowth)
{
    const bool sameCopy = after.epochMs == before.epochMs;
    if (!sameCopy && after.epochMs < before.nowMs)
        return std::nullopt;
    // A copy loaded after the earlier reading counted everything it holds in between, from an empty summary.
    const quint64 leastBefore = sameCopy ? before.least : 0;
    if (after.least < leastBefore)
        return std::nullopt; // a summary's least count never falls within one copy
    *leastGrowth = after.least - leastBefore;
    QVector<RejectedSubject> subjects;
    for (auto it = after.subjects.cbegin(); it != after.subjects.cend(); ++it) {
        const auto earlier = sameCopy ? before.subjects.constFind(it.key()) : before.subjects.cend();
        RejectedSubject subject{it.key(), 0, 0, node};
        if (earlier != before.subjects.cend() && earlier->entered == it->entered) {
            if (it->count < earlier->count)
                return std::nullopt;
            subject.rejections = it->count - earlier->count;
        } else {
            subject.rejections = it->count - it->entered;
            subject.shortBy = it->entered > leastBefore ? it->entered - leastBefore : 0;
        }
        subjects << subject; // (with none, it still says the subject was held at the end)
    }
    return subjects;
}

} // namespace

void RejectedTally::add(const TopRejected &poll)
{
    for (auto it = poll.readings.cbegin(); it != poll.readings.cend(); ++it) {
        // A first reading counts from the copy's load: an empty summary then.
        MostRejectedReading loaded;
        loaded.epochMs = loaded.nowMs = it->epochMs;
        const auto previous = m_previous.constFind(it.key());
        const MostRejectedReading &before = previous != m_previous.cend() ? *previous : loaded;
        // A copy loaded since the reading before counts from its load too.
        const qint64 startMs = before.epochMs == it->epochMs ? before.nowMs : it->epochMs;
        if (it->nowMs > startMs) {
            Interval interval{it.key(), startMs, it->nowMs, {}, 0};
            if (auto subjects = difference(before, *it, it.key(), &interval.leastGrowth)) {
                interval.subjects = std::move(*subjects);
                m_intervals.push_back(std::move(interval));
            }
        }
        m_previous.insert(it.key(), *it);
    }
    if (m_intervals.empty())
        return;
    const qint64 oldest = m_intervals.back().endMs - kLongestWindowMs;
    while (!m_intervals.empty() && m_intervals.front().endMs <= oldest)
        m_intervals.pop_front();
}

RejectedTally::Result RejectedTally::over(qint64 windowMs) const
{
    Result result;
    if (m_intervals.empty())
        return result;
    qint64 newest = 0;
    for (const Interval &interval : m_intervals)
        newest = std::max(newest, interval.endMs);
    const qint64 from = newest - windowMs;
    QHash<QByteArray, RejectedSubject> summed;
    QHash<QByteArray, quint64> heldGrowth; // per subject, the least count's growth over the intervals it was held
    QHash<QString, quint64> leastGrowth;   // per primary: a subject lives on one
    QHash<QString, qint64> covered;
    for (const Interval &interval : m_intervals) {
        // The interval's rejections fall in the window when most of the interval does.
        if (interval.endMs - from < from - interval.startMs)
            continue;
        for (const RejectedSubject &subject : interval.subjects) {
            RejectedSubject &total = summed[subject.subject];
            total.subject = subject.subject;
            total.node = subject.node;
            total.rejections += subject.rejections;
            total.shortBy += subject.shortBy;
            heldGrowth[subject.subject] += interval.leastGrowth;
        }
        leastGrowth[interval.node] += interval.leastGrowth;
        covered[interval.node] += std::min(interval.endMs - interval.startMs, interval.endMs - from);
    }
    for (const quint64 growth : std::as_const(leastGrowth))
        result.unlistedAtMost = std::max(result.unlistedAtMost, growth);
    // In an interval that ended without it, a subject was rejected at most as often as the least count grew.
    for (auto it = summed.begin(); it != summed.end();) {
        it->shortBy += leastGrowth.value(it->node) - heldGrowth.value(it.key());
        it = it->rejections > 0 ? std::next(it) : summed.erase(it);
    }
    result.coveredMs = covered.isEmpty() ? 0 : windowMs;
    for (const qint64 seen : std::as_const(covered))
        result.coveredMs = std::min(result.coveredMs, seen);
    result.subjects = summed.values().toVector();
    std::sort(result.subjects.begin(), result.subjects.end(), [](const RejectedSubject &a, const RejectedSubject &b) {
        return a.rejections != b.rejections ? a.rejections > b.rejections : a.subject < b.subject;
    });
    return result;
}

void RejectedTally::clear()
{
    m_previous.clear();
    m_intervals.clear();
}

} // namespace sluice::model
