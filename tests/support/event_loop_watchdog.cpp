// SPDX-License-Identifier: GPL-3.0-or-later
#include "support/event_loop_watchdog.h"

#include <QDir>
#include <QFile>

#include <algorithm>
#include <unistd.h>

namespace sluice::test {

namespace {

struct ThreadTimes {
    qint64 runNs = 0;  // time on a CPU (schedstat, first field)
    qint64 waitNs = 0; // time runnable but waiting for a CPU (schedstat, second field)
    int cpu = -1;      // the CPU it last ran on (stat, field 39)
};

QList<QByteArray> fieldsOf(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return file.readAll().simplified().split(' ');
}

// Zeros and no CPU where the kernel does not say (or the thread has ended).
ThreadTimes threadTimes(const QString &taskDir)
{
    ThreadTimes times;
    const QList<QByteArray> schedstat = fieldsOf(taskDir + QStringLiteral("/schedstat"));
    if (schedstat.size() >= 2) {
        times.runNs = schedstat.at(0).toLongLong();
        times.waitNs = schedstat.at(1).toLongLong();
    }
    // The command name may hold spaces: fields are counted after its closing parenthesis (field 3 on).
    QFile stat(taskDir + QStringLiteral("/stat"));
    if (stat.open(QIODevice::ReadOnly)) {
        const QByteArray text = stat.readAll();
        const QList<QByteArray> after = text.mid(text.lastIndexOf(')') + 1).simplified().split(' ');
        if (after.size() > 36)
            times.cpu = after.at(36).toInt();
    }
    return times;
}

QString taskDir(int tid)
{
    return QStringLiteral("/proc/self/task/%1").arg(tid);
}

} // namespace

EventLoopWatchdog::EventLoopWatchdog()
{
    m_timer.setInterval(5);
    m_timer.setTimerType(Qt::PreciseTimer);
    connect(&m_timer, &QTimer::timeout, this, &EventLoopWatchdog::tick);
}

void EventLoopWatchdog::start()
{
    m_tid = static_cast<int>(gettid());
    m_clock.start();
    m_last = 0;
    m_longest = 0;
    m_waitedBehindOthersNs = 0;
    m_waitedBehindOwnNs = 0;
    m_lastWaitNs = threadTimes(taskDir(m_tid)).waitNs;
    m_threadRunNs.clear();
    otherThreadsRanOn(-1);
    m_timer.start();
}

void EventLoopWatchdog::tick()
{
    const qint64 now = m_clock.elapsed();
    const ThreadTimes self = threadTimes(taskDir(m_tid));
    const qint64 waitedNs = self.waitNs - m_lastWaitNs;
    const qint64 behindOwnNs = std::min(waitedNs, otherThreadsRanOn(self.cpu));
    m_waitedBehindOwnNs += behindOwnNs;
    m_waitedBehindOthersNs += waitedNs - behindOwnNs;
    // A tick is due every 5 ms; anything beyond that is time the loop was busy or blocked (or
    // behind its own threads), less the time another process had the CPU.
    m_longest = std::max(m_longest, now - m_last - 5 - (waitedNs - behindOwnNs) / 1'000'000);
    m_last = now;
    m_lastWaitNs = self.waitNs;
}

qint64 EventLoopWatchdog::otherThreadsRanOn(int cpu)
{
    qint64 ranNs = 0;
    QHash<int, qint64> runNs;
    const QStringList tasks = QDir(QStringLiteral("/proc/self/task")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString &task : tasks) {
        const int tid = task.toInt();
        if (tid == m_tid)
            continue;
        const ThreadTimes times = threadTimes(taskDir(tid));
        runNs.insert(tid, times.runNs);
        // A thread new since the last tick ran all its time since then.
        if (times.cpu == cpu)
            ranNs += times.runNs - m_threadRunNs.value(tid, 0);
    }
    m_threadRunNs = runNs;
    return ranNs;
}

} // namespace sluice::test
