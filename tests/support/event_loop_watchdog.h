// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

namespace sluice::test {

// Measures how long the event loop of the calling thread goes without running a 5 ms timer: the
// largest gap is the longest stall a user would have felt. Time the thread spent ready to run but
// waiting for a CPU (another process had it: a busy machine) is not the program's doing, so it is
// left out where Linux tells it (/proc/thread-self/schedstat); blocking and busy time count.
class EventLoopWatchdog : public QObject {
    Q_OBJECT
public:
    EventLoopWatchdog();
    void start();
    qint64 longestStallMs() const { return m_longest; }
    // The time the thread waited for a CPU while measured (ms), for diagnostics.
    qint64 waitedForCpuMs() const { return m_waitedNs / 1'000'000; }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_last = 0;
    qint64 m_longest = 0;
    qint64 m_lastWaitNs = 0;
    qint64 m_waitedNs = 0;
};

} // namespace sluice::test
