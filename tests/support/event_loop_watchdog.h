// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QTimer>

namespace sluice::test {

// Measures how long the event loop of the calling thread goes without running a 5 ms timer: the
// largest gap is the longest stall a user would have felt. Time the thread spent ready to run but
// waiting for a CPU that another process had (a busy machine) is not the program's doing, so it is
// left out where Linux tells it (/proc/thread-self/schedstat). Blocking and busy time count, and so
// does waiting for a CPU behind this process's own threads (a worker that starves the window is the
// program's stall): each tick, the wait is charged to this process up to what its other threads ran
// on the CPU this thread is on.
class EventLoopWatchdog : public QObject {
    Q_OBJECT
public:
    EventLoopWatchdog();
    void start();
    qint64 longestStallMs() const { return m_longest; }
    // The time the thread waited for a CPU another process had while measured (ms), left out.
    qint64 waitedForCpuMs() const { return m_waitedBehindOthersNs / 1'000'000; }
    // The time it waited behind this process's own threads (ms), counted in the stalls.
    qint64 waitedBehindOwnThreadsMs() const { return m_waitedBehindOwnNs / 1'000'000; }

private:
    void tick();
    // CPU time (ns) the process's other threads ran on `cpu` since the last tick.
    qint64 otherThreadsRanOn(int cpu);

    QTimer m_timer;
    QElapsedTimer m_clock;
    int m_tid = 0;
    qint64 m_last = 0;
    qint64 m_longest = 0;
    qint64 m_lastWaitNs = 0;
    qint64 m_waitedBehindOthersNs = 0;
    qint64 m_waitedBehindOwnNs = 0;
    QHash<int, qint64> m_threadRunNs; // the other threads' run time at the last tick, by thread id
};

} // namespace sluice::test
