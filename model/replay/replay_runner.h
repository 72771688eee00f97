// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/replay/limit_suggestion.h"
#include "model/replay/replay_job.h"

#include <QObject>
#include <QThread>

#include <atomic>
#include <memory>
#include <optional>

namespace sluice::model {

// A limit to suggest beside the replay: the family it is chosen in and the target.
struct SuggestRequest {
    LimitFamily family;
    double target = 0.001;
    bool ofSubjects = true;
};

struct ReplayProgress {
    LogReadStats stats;   // so far (the preview fills first)
    double fraction = -1; // of the logs read, 0 to 1; -1 when not known (a pipe)
    double linesPerSecond = 0;
    bool suggesting = false; // the logs are read; the suggestion's replays run
};

struct ReplayResult {
    LogReadStats stats;
    quint32 subjects = 0;
    QVector<CandidateOutcome> outcomes;
    std::optional<Suggestion> suggestion;
    // The suggested limit replayed as a candidate of its own ("suggested-N"): both shares, over time, its
    // most rejected subjects.
    std::optional<CandidateOutcome> suggested;
    std::optional<Failure> failure; // the logs could not be read, or held no line to replay
    bool cancelled = false;
    qint64 elapsedMs = 0;
    qint64 liveBuckets = 0; // buckets held at the end (the replay's memory follows them)
};

// Runs a replay (and a suggestion) on a thread of its own, a slice at a time: progress about ten
// times a second, the result once done, and cancel() stops it between slices (within tens of ms).
// The caller's thread never reads a log; destroying the runner cancels and waits for the thread.
class ReplayRunner : public QObject {
    Q_OBJECT
public:
    explicit ReplayRunner(QObject *parent = nullptr);
    ~ReplayRunner() override;

    void start(const ReplayRequest &request, const std::optional<SuggestRequest> &suggest);
    void cancel();
    bool isRunning() const { return m_thread && m_thread->isRunning(); }

Q_SIGNALS:
    void progressed(const sluice::model::ReplayProgress &progress);
    void finished(const sluice::model::ReplayResult &result);

private:
    void stop();

    std::unique_ptr<QThread> m_thread;
    std::shared_ptr<std::atomic<bool>> m_cancel;
};

} // namespace sluice::model

Q_DECLARE_METATYPE(sluice::model::ReplayProgress)
Q_DECLARE_METATYPE(sluice::model::ReplayResult)
