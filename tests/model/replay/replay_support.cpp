// SPDX-License-Identifier: GPL-3.0-or-later
#include "replay_support.h"

#include <QFile>

#include <zlib.h>

namespace sluice::test {

QByteArray gzipped(const QByteArray &text)
{
    QByteArray out(int(compressBound(uLong(text.size()))) + 64, '\0');
    z_stream stream{};
    deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    stream.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(text.constData()));
    stream.avail_in = uInt(text.size());
    stream.next_out = reinterpret_cast<Bytef *>(out.data());
    stream.avail_out = uInt(out.size());
    deflate(&stream, Z_FINISH);
    out.resize(int(stream.total_out));
    deflateEnd(&stream);
    return out;
}

QString writeLog(const QTemporaryDir &dir, const QString &name, const QByteArray &text)
{
    const QString path = dir.filePath(name);
    QFile file(path);
    if (file.open(QIODevice::WriteOnly))
        file.write(text);
    return path;
}

bool replayLogs(const QStringList &paths, const model::LogSpec &spec, const QVector<model::Policy> &candidates,
                ReplayRun *run, QString *problem, int observedCandidate, size_t sweepAt,
                const QVector<model::SubjectOverride> &lists)
{
    model::LogReader reader(spec, 60000, &run->subjects);
    if (const auto failure = reader.open(paths)) {
        *problem = failure->message;
        return false;
    }
    model::Replay replay(candidates, sweepAt, &run->subjects, lists);
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
