// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/limiter/reference_limiter.h"
#include "model/policy/policy.h"
#include "model/replay/log_reader.h"
#include "model/replay/subject_table.h"

#include <QVector>

#include <array>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

namespace sluice::model {

struct ReplayedSubject {
    QByteArray subject;
    quint64 rejected = 0;
};

// What one candidate policy would have done with the replayed requests.
struct CandidateOutcome {
    static constexpr int kTimeBins = 600;

    Policy policy;
    quint64 requests = 0;
    quint64 rejected = 0;
    quint64 subjects = 0;
    quint64 subjectsRejected = 0;
    QVector<ReplayedSubject> topRejected; // most rejected first
    // Rejections over time, in bins of binMs from the first request (at most kTimeBins).
    qint64 firstMs = 0;
    qint64 binMs = 1000;
    QVector<quint64> rejectedPerBin;
    QVector<quint64> requestsPerBin;
    // How far subjects got into their limit: by their highest use, in tenths (0: under 10%, ..., 9: 90% to
    // 100% but never rejected), and [10] the subjects rejected at least once.
    std::array<quint64, 11> subjectsByPeakUse{};

    double rejectedShare() const { return requests ? double(rejected) / double(requests) : 0.0; }
    double subjectsRejectedShare() const { return subjects ? double(subjectsRejected) / double(subjects) : 0.0; }
};

// Decides every arrival for each candidate with the reference model, one bucket per subject as the
// library keeps one key, and a bucket is dropped once it is full again, as its key would expire:
// memory follows the subjects active within a window, not all subjects ever seen. Concurrency
// candidates hold each lease until it expires (a log does not say when a request ended).
class Replay {
public:
    // Full buckets are looked for once a candidate holds `sweepAt` live ones, then each time they have doubled.
    // `subjects` names the arrivals' subjects, for candidates with overrides (which decide by the subject);
    // `lists`, the namespace's allow and deny lists, join every candidate's overrides as they would once published.
    static constexpr size_t kFirstSweepAt = 4096;
    explicit Replay(const QVector<Policy> &candidates, size_t sweepAt = kFirstSweepAt,
                    const SubjectTable *subjects = nullptr, const QVector<SubjectOverride> &lists = {});
    ~Replay();
    Replay(const Replay &) = delete;
    Replay &operator=(const Replay &) = delete;

    void take(const Arrival &arrival);
    // Told every decision as it is made, by candidate index (for checking the replay call by call).
    using DecisionObserver = std::function<void(int candidate, const Arrival &arrival, bool admitted)>;
    void observe(DecisionObserver observer) { m_observer = std::move(observer); }
    QVector<CandidateOutcome> outcomes(const SubjectTable &subjects, int top = 10) const;
    qint64 liveBuckets() const;
    qint64 droppedBuckets() const; // dropped as full again, over all candidates

private:
    struct Run;
    std::vector<std::unique_ptr<Run>> m_runs;
    DecisionObserver m_observer;
};

} // namespace sluice::model
