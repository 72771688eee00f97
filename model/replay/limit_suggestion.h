// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/policy/policy.h"
#include "model/replay/log_reader.h"
#include "model/replay/subject_table.h"

#include <QVector>

#include <functional>
#include <map>
#include <optional>
#include <vector>

namespace sluice::model {

// The family of policies a limit is chosen in: an algorithm, a window and a burst rule.
struct LimitFamily {
    Algorithm algorithm = Algorithm::TokenBucket;
    qint64 windowMs = 1000;
    qint64 burst = 0;         // a fixed burst; 0: burstFactor times the limit
    double burstFactor = 1.0; // burst = ceil(limit * burstFactor), at least 1
    WindowStart windowStart = WindowStart::Aligned;

    Policy policyAt(qint64 limit) const; // named "limit-N"
};

struct CurvePoint {
    qint64 limit = 0;
    double rejectedShare = 0; // of requests or of subjects, as asked
};

// Per subject, the most units it sent in one window (aligned to the epoch, as the fixed window's are),
// and where the subjects stand by that figure (nearest rank).
struct RatePercentiles {
    qint64 p50 = 0, p90 = 0, p99 = 0, p999 = 0, max = 0;
};
RatePercentiles ratePercentiles(const std::vector<Arrival> &arrivals, quint32 subjects, qint64 windowMs);

struct Suggestion {
    std::optional<qint64> limit; // none when no limit up to the largest a policy takes meets the target
    QVector<CurvePoint> curve;   // every limit replayed, by limit
    RatePercentiles percentiles;
    int passes = 0; // replays of the whole log, each over up to kLimitsPerPass limits
};

// The smallest limit in `family` whose replay rejects at most `target` (a fraction) of the requests,
// or of the subjects when `ofSubjects`. The curve is replayed on a geometric grid, then narrowed
// between the last limit that misses the target and the first that meets it until they are one
// apart, so the answer meets the target and the limit one below it was replayed and does not.
// `cancelled` is asked between passes and every 65536 arrivals.
class LimitSuggester {
public:
    static constexpr int kLimitsPerPass = 16;

    LimitSuggester(const std::vector<Arrival> &arrivals, const SubjectTable &subjects, const LimitFamily &family);
    std::optional<Suggestion> suggest(double target, bool ofSubjects, const std::function<bool()> &cancelled = {});

private:
    // The shares at these limits, replayed together; none when cancelled.
    bool replayAt(const std::vector<qint64> &limits, bool ofSubjects, const std::function<bool()> &cancelled);

    const std::vector<Arrival> &m_arrivals;
    const SubjectTable &m_subjects;
    LimitFamily m_family;
    std::map<qint64, double> m_shares;
    int m_passes = 0;
};

} // namespace sluice::model
