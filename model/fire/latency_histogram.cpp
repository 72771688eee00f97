// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/fire/latency_histogram.h"

#include <algorithm>
#include <cmath>

namespace sluice::model {

namespace {

constexpr int exactBelow = 64; // values below are their own bucket
constexpr int subBuckets = 32; // per power of two above
constexpr int exactBits = 6;   // log2(exactBelow)

int floorLog2(quint64 value)
{
    int bits = -1;
    while (value) {
        value >>= 1;
        ++bits;
    }
    return bits;
}

} // namespace

int LatencyHistogram::bucketOf(qint64 microseconds)
{
    const qint64 value = std::max<qint64>(0, microseconds);
    if (value < exactBelow)
        return static_cast<int>(value);
    const int power = floorLog2(static_cast<quint64>(value));
    const int shift = power - (exactBits - 1);
    return exactBelow + (power - exactBits) * subBuckets + static_cast<int>((value >> shift) - subBuckets);
}

qint64 LatencyHistogram::bucketHigh(int bucket)
{
    if (bucket < exactBelow)
        return bucket;
    const int power = (bucket - exactBelow) / subBuckets + exactBits;
    const qint64 mantissa = (bucket - exactBelow) % subBuckets + subBuckets;
    const int shift = power - (exactBits - 1);
    return ((mantissa + 1) << shift) - 1;
}

void LatencyHistogram::add(qint64 microseconds)
{
    const int bucket = bucketOf(microseconds);
    if (bucket >= m_counts.size())
        m_counts.resize(bucket + 1);
    ++m_counts[bucket];
    ++m_count;
    m_max = std::max(m_max, microseconds);
    m_sum += std::max<qint64>(0, microseconds);
}

void LatencyHistogram::merge(const LatencyHistogram &other)
{
    if (other.m_counts.size() > m_counts.size())
        m_counts.resize(other.m_counts.size());
    for (int i = 0; i < other.m_counts.size(); ++i)
        m_counts[i] += other.m_counts.at(i);
    m_count += other.m_count;
    m_max = std::max(m_max, other.m_max);
    m_sum += other.m_sum;
}

qint64 LatencyHistogram::percentile(double fraction) const
{
    if (m_count == 0)
        return 0;
    const qint64 wanted = std::max<qint64>(1, static_cast<qint64>(std::ceil(fraction * m_count)));
    qint64 seen = 0;
    for (int bucket = 0; bucket < m_counts.size(); ++bucket) {
        seen += m_counts.at(bucket);
        if (seen >= wanted)
            return std::min(bucketHigh(bucket), m_max);
    }
    return m_max;
}

QVector<LatencyHistogram::Bar> LatencyHistogram::bars() const
{
    QVector<Bar> bars;
    if (m_count == 0)
        return bars;
    // Bucket bounds fall between 1-2-5 steps above 64 µs; a bucket counts toward the step holding
    // its highest value, so steps are exact below 64 µs and within a bucket's width above.
    qint64 from = 0, to = 10;
    int step = 0; // 10, 20, 50, 100, ...
    int bucket = 0;
    do {
        Bar bar{from, to, 0};
        for (; bucket < m_counts.size() && bucketHigh(bucket) <= to; ++bucket)
            bar.count += m_counts.at(bucket);
        bars << bar;
        from = to;
        to = (step % 3 == 1) ? to / 2 * 5 : to * 2;
        ++step;
    } while (from < m_max);
    // What is left (the last bucket may straddle the largest value's step).
    for (; bucket < m_counts.size(); ++bucket)
        bars.last().count += m_counts.at(bucket);
    return bars;
}

} // namespace sluice::model
