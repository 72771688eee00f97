// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/replay/replay_job.h"

#include <QTemporaryDir>

#include <vector>

namespace sluice::test {

// One decision of a replay, in the order made.
struct ReplayedCall {
    model::Arrival arrival;
    bool admitted = false;
};

// `text` gzip-compressed, as gzip writes a .gz file.
QByteArray gzipped(const QByteArray &text);

// Writes `text` to `name` in `dir`; its path.
QString writeLog(const QTemporaryDir &dir, const QString &name, const QByteArray &text);

// Replays the logs through the whole pipeline (source, format, reorder, replay) and keeps every
// decision of one candidate; *problem says why when the replay could not run. Buckets are swept
// for full ones from `sweepAt` live ones, so a test can make the replay drop them all the time.
struct ReplayRun {
    std::vector<ReplayedCall> calls;
    model::LogReadStats stats;
    model::SubjectTable subjects;
    QVector<model::CandidateOutcome> outcomes;
    qint64 dropped = 0; // buckets dropped as full again
};
// `lists`: the namespace's allow and deny lists, which every candidate applies.
bool replayLogs(const QStringList &paths, const model::LogSpec &spec, const QVector<model::Policy> &candidates,
                ReplayRun *run, QString *problem, int observedCandidate = 0, size_t sweepAt = 4096,
                const QVector<model::SubjectOverride> &lists = {});

} // namespace sluice::test
