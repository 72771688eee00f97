// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/monitor/key_watch.h"

#include <QPointF>
#include <QVector>

namespace sluice::model {

// The level a bucket would have between two readings if no call came: it climbs back to its
// capacity over the reset time the reading gave, linearly for algorithms that refill or drain
// continuously (token bucket, GCRA, leaky bucket; the sliding ones approximately) and in one
// step at the reset for a fixed window or for leases. Points in time order, x in ms; a reading
// without capacity or reset (seed layouts) stays flat.
QVector<QPointF> projectedLevel(const QString &algorithm, const BoundedRing<KeySample> &samples, qint64 fromMs,
                                qint64 untilMs);

} // namespace sluice::model
