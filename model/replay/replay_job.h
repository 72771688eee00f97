// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/failure.h"
#include "model/replay/log_reader.h"
#include "model/replay/replay.h"

#include <memory>
#include <optional>
#include <vector>

namespace sluice::model {

struct ReplayRequest {
    LogSpec spec;
    QStringList paths; // "-" is standard input
    qint64 reorderWindowMs = 60000;
    quint32 maxSubjects = 10'000'000;
    QVector<Policy> candidates;
    QVector<SubjectOverride> namespaceLists; // applied to every candidate, as the library would
    bool keepArrivals = false;               // for a suggestion, which replays them again at other limits
};

// A replay of logs against candidates, done a slice at a time so that its caller stays responsive
// (sluicectl between slices runs its event loop, the dashboard runs it on a worker thread and asks
// to cancel between slices).
class ReplayJob {
public:
    explicit ReplayJob(ReplayRequest request);
    ~ReplayJob();

    [[nodiscard]] std::optional<Failure> open();
    // Set from another thread, it ends a step even inside a line that never ends.
    void setCancelFlag(const std::atomic<bool> *cancel) { m_reader.setCancelFlag(cancel); }
    // Reads and decides up to `arrivals` more; false once the logs are done or reading failed.
    bool step(int arrivals);
    // Why reading stopped early, or, once done, that no line could be read at all.
    std::optional<Failure> failure() const;

    const LogReadStats &stats() const { return m_reader.stats(); }
    const SubjectTable &subjects() const { return m_subjects; }
    const std::vector<Arrival> &arrivals() const { return m_arrivals; }
    QVector<CandidateOutcome> outcomes(int top = 10) const { return m_replay.outcomes(m_subjects, top); }
    double progress() const { return m_reader.progress(); }
    qint64 liveBuckets() const { return m_replay.liveBuckets(); }

private:
    ReplayRequest m_request;
    SubjectTable m_subjects;
    LogReader m_reader;
    Replay m_replay;
    std::vector<Arrival> m_arrivals;
    bool m_done = false;
};

} // namespace sluice::model
