// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/monitor/top_rejected.h"

#include <deque>

namespace sluice::model {

// One policy's most rejected subjects over a window (the last minute, 5 minutes, an hour), from the
// differences of the library's summaries between this reader's own successive polls, primary by primary.
// A subject the summary held through an interval is counted exactly there; one that entered it in the
// interval is counted from its entry, short by at most what it inherited minus the summary's least
// count at the interval's start; one the interval ended without, by at most the least count's growth
// (`shortBy` sums these); a subject not listed had at most `unlistedAtMost` rejections in the window.
// A primary's first reading, and one of a copy loaded since the reading before, count from the copy's
// load (its epoch); the time nobody polled counts nothing (coveredMs says how much was seen).
class RejectedTally {
public:
    static constexpr qint64 kLongestWindowMs = 60 * 60 * 1000;

    void add(const TopRejected &poll);
    struct Result {
        QVector<RejectedSubject> subjects; // most rejected first
        quint64 unlistedAtMost = 0;
        qint64 coveredMs = 0;
    };
    // The intervals within `windowMs` of the newest reading; one across the window's start counts whole
    // when most of it is inside, else not at all (the edge is as sharp as the polls are frequent).
    Result over(qint64 windowMs) const;
    void clear();

private:
    struct Interval {
        QString node;
        qint64 startMs = 0;
        qint64 endMs = 0;
        QVector<RejectedSubject> subjects;
        quint64 leastGrowth = 0;
    };
    QHash<QString, MostRejectedReading> m_previous; // per primary, its last reading
    std::deque<Interval> m_intervals;               // oldest first
};

} // namespace sluice::model
