// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QVector>
#include <QtGlobal>

namespace sluice::model {

// Latencies in microseconds, in log-linear buckets the way HdrHistogram keeps them (exact below
// 64 µs, then 32 buckets per power of two: within about 3%), so any number of calls costs the same
// small, fixed memory. Debian packages no C or C++ HdrHistogram.
class LatencyHistogram {
public:
    void add(qint64 microseconds);
    void merge(const LatencyHistogram &other);

    qint64 count() const { return m_count; }
    qint64 max() const { return m_max; }
    double mean() const { return m_count ? double(m_sum) / m_count : 0; }
    // The latency `fraction` (0.5, 0.99) of the calls did not exceed, as the highest value of its
    // bucket (never above the largest seen); 0 when empty.
    qint64 percentile(double fraction) const;

    // For drawing: calls per 1-2-5 step (<= 10 µs, 10-20 µs, 20-50 µs, ... ) up to the largest.
    struct Bar {
        qint64 fromUs; // exclusive (0 for the first bar)
        qint64 toUs;   // inclusive
        qint64 count;
    };
    QVector<Bar> bars() const;

private:
    static int bucketOf(qint64 microseconds);
    static qint64 bucketHigh(int bucket);

    QVector<qint64> m_counts;
    qint64 m_count = 0;
    qint64 m_max = 0;
    qint64 m_sum = 0;
};

} // namespace sluice::model
