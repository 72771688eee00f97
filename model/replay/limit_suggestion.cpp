// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/replay/limit_suggestion.h"

#include "model/replay/replay.h"

#include <algorithm>
#include <cmath>

namespace sluice::model {

Policy LimitFamily::policyAt(qint64 limit) const
{
    Policy policy;
    policy.name = QStringLiteral("limit-%1").arg(limit);
    policy.algorithm = algorithm;
    policy.limit = limit;
    policy.windowMs = windowMs;
    policy.windowStart = windowStart;
    if (algorithmUsesBurst(algorithm))
        policy.burst = burst > 0
            ? burst
            : std::clamp<qint64>(qint64(std::ceil(double(limit) * burstFactor)), 1, policy_limits::maxBurst);
    return policy;
}

RatePercentiles ratePercentiles(const std::vector<Arrival> &arrivals, quint32 subjects, qint64 windowMs)
{
    std::vector<qint64> window(subjects, std::numeric_limits<qint64>::min()), sum(subjects, 0), most(subjects, 0);
    for (const Arrival &arrival : arrivals) {
        const qint64 id = arrival.ms >= 0 ? arrival.ms / windowMs : (arrival.ms - windowMs + 1) / windowMs;
        if (window[arrival.subject] != id) {
            window[arrival.subject] = id;
            sum[arrival.subject] = 0;
        }
        sum[arrival.subject] += arrival.cost;
        most[arrival.subject] = std::max(most[arrival.subject], sum[arrival.subject]);
    }
    RatePercentiles percentiles;
    if (most.empty())
        return percentiles;
    std::sort(most.begin(), most.end());
    const auto rank = [&](double fraction) {
        const size_t index = size_t(std::ceil(fraction * double(most.size())));
        return most[std::clamp<size_t>(index, 1, most.size()) - 1];
    };
    percentiles.p50 = rank(0.5);
    percentiles.p90 = rank(0.9);
    percentiles.p99 = rank(0.99);
    percentiles.p999 = rank(0.999);
    percentiles.max = most.back();
    return percentiles;
}

LimitSuggester::LimitSuggester(const std::vector<Arrival> &arrivals, const SubjectTable &subjects,
                               const LimitFamily &family)
    : m_arrivals(arrivals)
    , m_subjects(subjects)
    , m_family(family)
{
}

bool LimitSuggester::replayAt(const std::vector<qint64> &limits, bool ofSubjects,
                              const std::function<bool()> &cancelled)
{
    QVector<Policy> candidates;
    for (const qint64 limit : limits)
        if (!m_shares.count(limit))
            candidates.append(m_family.policyAt(limit));
    if (candidates.isEmpty())
        return true;
    Replay replay(candidates);
    for (size_t i = 0; i < m_arrivals.size(); ++i) {
        if ((i & 0xffff) == 0 && cancelled && cancelled())
            return false;
        replay.take(m_arrivals[i]);
    }
    ++m_passes;
    for (const CandidateOutcome &outcome : replay.outcomes(m_subjects, 0))
        m_shares[outcome.policy.limit] = ofSubjects ? outcome.subjectsRejectedShare() : outcome.rejectedShare();
    return true;
}

std::optional<Suggestion> LimitSuggester::suggest(double target, bool ofSubjects,
                                                  const std::function<bool()> &cancelled)
{
    Suggestion suggestion;
    suggestion.percentiles = ratePercentiles(m_arrivals, m_subjects.size(), m_family.windowMs);
    const auto meets = [&](qint64 limit) { return m_shares.at(limit) <= target; };
    // The largest limit a policy of this algorithm takes (one entry a unit for a log or leases).
    const bool storesEntries
        = m_family.algorithm == Algorithm::SlidingLog || m_family.algorithm == Algorithm::Concurrency;
    const qint64 ceiling = storesEntries ? policy_limits::maxStoredEntries : policy_limits::maxLimit;
    // A geometric grid from 1 to twice the busiest subject's window (a sliding window can see two).
    qint64 high = std::clamp<qint64>(2 * suggestion.percentiles.max, 1, ceiling);
    std::vector<qint64> grid;
    for (int i = 0; i < kLimitsPerPass; ++i)
        grid.push_back(
            std::max<qint64>(1, qint64(std::llround(std::pow(double(high), double(i) / (kLimitsPerPass - 1))))));
    if (!replayAt(grid, ofSubjects, cancelled))
        return std::nullopt;
    while (!meets(high) && high < ceiling) {
        high = std::min<qint64>(ceiling, high * 4);
        if (!replayAt({high}, ofSubjects, cancelled))
            return std::nullopt;
    }
    if (meets(high)) {
        // The first limit replayed that meets the target, and the largest replayed below it (which misses).
        const auto first = [&] {
            qint64 meeting = high, below = 0;
            for (const auto &[limit, share] : m_shares)
                if (share <= target) {
                    meeting = limit;
                    break;
                }
            for (const auto &[limit, share] : m_shares)
                if (limit < meeting)
                    below = limit;
            return std::make_pair(below, meeting);
        };
        for (auto [below, meeting] = first(); meeting - below > 1; std::tie(below, meeting) = first()) {
            std::vector<qint64> between;
            const qint64 gap = meeting - below;
            for (int i = 1; i <= kLimitsPerPass; ++i)
                between.push_back(below + std::max<qint64>(1, gap * i / (kLimitsPerPass + 1)));
            between.erase(std::unique(between.begin(), between.end()), between.end());
            if (!replayAt(between, ofSubjects, cancelled))
                return std::nullopt;
        }
        suggestion.limit = first().second;
    }
    for (const auto &[limit, share] : m_shares)
        suggestion.curve.append({limit, share});
    suggestion.passes = m_passes;
    return suggestion;
}

} // namespace sluice::model
