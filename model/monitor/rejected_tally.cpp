// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/monitor/rejected_tally.h"

#include <QHash>

#include <algorithm>

namespace sluice::model {

void RejectedTally::add(const TopRejected &reply)
{
    if (reply.nowMs == 0 || !reply.problems.isEmpty())
        return; // nothing read, or not from every primary: it would undercount
    m_replies[reply.sinceMs] = reply;
    // An hour and a pair of periods is the longest window asked for.
    const qint64 oldest = reply.nowMs - 60 * 60 * 1000 - 2 * kPeriodMs;
    while (!m_replies.empty() && m_replies.begin()->first < oldest)
        m_replies.erase(m_replies.begin());
}

RejectedTally::Result RejectedTally::over(qint64 windowMs) const
{
    Result result;
    if (m_replies.empty())
        return result;
    const qint64 now = m_replies.rbegin()->second.nowMs;
    QHash<QByteArray, RejectedSubject> summed;
    qint64 next = m_replies.rbegin()->first; // the start a reply must have to tile on from the newest
    for (auto it = m_replies.rbegin(); it != m_replies.rend() && it->first >= now - windowMs; ++it) {
        if (it->first > next)
            continue; // overlaps the pair already counted
        const TopRejected &reply = it->second;
        for (const RejectedSubject &subject : reply.subjects) {
            RejectedSubject &total = summed[subject.subject];
            total.subject = subject.subject;
            total.node = subject.node;
            total.rejections += subject.rejections;
            total.overestimate += subject.overestimate;
        }
        result.coveredMs += reply.nowMs - reply.sinceMs;
        next = it->first - 2 * kPeriodMs;
    }
    result.coveredMs = std::min(result.coveredMs, windowMs);
    result.subjects = summed.values().toVector();
    std::sort(result.subjects.begin(), result.subjects.end(), [](const RejectedSubject &a, const RejectedSubject &b) {
        return a.rejections != b.rejections ? a.rejections > b.rejections : a.subject < b.subject;
    });
    return result;
}

} // namespace sluice::model
