// SPDX-License-Identifier: GPL-3.0-or-later
#include "replay_support.h"

#include <QFile>

namespace sluice::test {

QString writeLog(const QTemporaryDir &dir, const QString &name, const QByteArray &text)
{
    const QString path = dir.filePath(name);
    QFile file(path);
    if (file.open(QIODevice::WriteOnly))
        file.write(text);
    return path;
}

bool replayLogs(const QStringList &paths, const model::LogSpec &spec, const QVector<model::Policy> &candidates,
                ReplayRun *run, QString *problem, int observedCandidate, size_t sweepAt)
{
    model::LogReader reader(spec, 60000, &run->subjects);
    if (const auto failure = reader.open(paths)) {
        *problem = failure->message;
        return false;
    }
    model::Replay replay(candidates, sweepAt);
    replay.observe([&](int candidate, const model::Arrival &arrival, bool admitted) {
        if (candidate == observedCandidate)
            run->calls.push_back({arrival, admitted});
    });
    model::Arrival arrival;
    while (reader.next(&arrival))
        replay.take(arrival);
    run->stats = reader.stats();
    run->outcomes = replay.outcomes(run->subjects);
    run->dropped = replay.droppedBuckets();
    if (reader.failure()) {
        *problem = reader.failure()->message;
        return false;
    }
    return true;
}

} // namespace sluice::test
