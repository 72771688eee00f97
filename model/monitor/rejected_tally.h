// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/monitor/top_rejected.h"

#include <map>

namespace sluice::model {

// One policy's most rejected subjects over a longer window than the library keeps (last minute,
// 5 minutes, an hour), put together from its `_top` replies while they are polled. Each reply sums
// the library's previous and current 10-second periods from its `sinceMs`; the last reply for each
// start covers nearly 20 s, so every other start, going back from the newest, tiles the window
// without counting a period twice. What falls between a period pair's last poll and its end (up to
// one poll interval in 20 s), and any time nobody polled, is not counted: the totals are "about",
// and coveredMs says how much of the window was seen.
class RejectedTally {
public:
    static constexpr qint64 kPeriodMs = 10000; // the library's TOP_PERIOD_MS

    void add(const TopRejected &reply);
    struct Result {
        QVector<RejectedSubject> subjects; // most rejected first
        qint64 coveredMs = 0;
    };
    Result over(qint64 windowMs) const;
    void clear() { m_replies.clear(); }

private:
    std::map<qint64, TopRejected> m_replies; // the last reply for each start, oldest first
};

} // namespace sluice::model
