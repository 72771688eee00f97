// SPDX-License-Identifier: GPL-3.0-or-later
#include "support/event_loop_watchdog.h"

#include <QFile>

#include <algorithm>

namespace sluice::test {

namespace {

// Nanoseconds this thread has spent runnable but waiting for a CPU (the run-queue delay, the
// second field of /proc/thread-self/schedstat); 0 where the kernel does not say.
qint64 runQueueWaitNs()
{
    QFile file(QStringLiteral("/proc/thread-self/schedstat"));
    if (!file.open(QIODevice::ReadOnly))
        return 0;
    const QList<QByteArray> fields = file.readAll().simplified().split(' ');
    return fields.size() >= 2 ? fields.at(1).toLongLong() : 0;
}

} // namespace

EventLoopWatchdog::EventLoopWatchdog()
{
    m_timer.setInterval(5);
    m_timer.setTimerType(Qt::PreciseTimer);
    connect(&m_timer, &QTimer::timeout, this, [this] {
        const qint64 now = m_clock.elapsed();
        const qint64 waitNs = runQueueWaitNs();
        const qint64 waitedNs = waitNs - m_lastWaitNs;
        m_waitedNs += waitedNs;
        // A tick is due every 5 ms; anything beyond that is time the loop was busy or blocked,
        // less the time it could not run because another process had the CPU.
        m_longest = std::max(m_longest, now - m_last - 5 - waitedNs / 1'000'000);
        m_last = now;
        m_lastWaitNs = waitNs;
    });
}

void EventLoopWatchdog::start()
{
    m_clock.start();
    m_last = 0;
    m_longest = 0;
    m_waitedNs = 0;
    m_lastWaitNs = runQueueWaitNs();
    m_timer.start();
}

} // namespace sluice::test
