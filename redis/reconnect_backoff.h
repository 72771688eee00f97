// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QRandomGenerator>

#include <algorithm>

namespace sluice::redis {

// Exponential backoff with jitter, so many clients that lost the same server do not return in step.
class ReconnectBackoff {
public:
    ReconnectBackoff(int firstDelayMs = 200, int maxDelayMs = 10000)
        : m_firstDelayMs(firstDelayMs)
        , m_maxDelayMs(maxDelayMs)
    {
    }

    // The next delay: half fixed, half random, of a ceiling that doubles per failed attempt.
    int nextDelayMs()
    {
        const qint64 ceiling = std::min<qint64>(m_maxDelayMs, qint64(m_firstDelayMs) << std::min(m_attempt, 16));
        ++m_attempt;
        const qint64 half = ceiling / 2;
        return static_cast<int>(half + QRandomGenerator::global()->bounded(half + 1));
    }
    void reset() { m_attempt = 0; }

private:
    int m_firstDelayMs;
    int m_maxDelayMs;
    int m_attempt = 0;
};

} // namespace sluice::redis
