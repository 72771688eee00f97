// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/monitor/level_projection.h"

#include <algorithm>

namespace sluice::model {

namespace {

bool refillsInOneStep(const QString &algorithm)
{
    return algorithm == QLatin1String("fixed_window") || algorithm == QLatin1String("concurrency");
}

} // namespace

QVector<QPointF> projectedLevel(const QString &algorithm, const BoundedRing<KeySample> &samples, qint64 fromMs,
                                qint64 untilMs)
{
    QVector<QPointF> points;
    const bool step = refillsInOneStep(algorithm);
    for (int i = 0; i < samples.size(); ++i) {
        const KeySample &sample = samples.at(i);
        const qint64 end = i + 1 < samples.size() ? samples.at(i + 1).timeMs : untilMs;
        if (end < fromMs || sample.timeMs > untilMs || end <= sample.timeMs)
            continue;
        points << QPointF(sample.timeMs, sample.level);
        if (sample.capacity < 0 || sample.resetAfterMs <= 0 || sample.level >= sample.capacity) {
            points << QPointF(end, sample.level);
            continue;
        }
        const qint64 full = sample.timeMs + sample.resetAfterMs;
        if (step) {
            points << QPointF(std::min(full, end), sample.level);
            if (full < end)
                points << QPointF(full, sample.capacity) << QPointF(end, sample.capacity);
            continue;
        }
        const double share = std::min(1.0, double(end - sample.timeMs) / double(sample.resetAfterMs));
        points << QPointF(std::min(full, end), sample.level + (sample.capacity - sample.level) * share);
        if (full < end)
            points << QPointF(end, sample.capacity);
    }
    return points;
}

} // namespace sluice::model
