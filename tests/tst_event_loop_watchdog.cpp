// SPDX-License-Identifier: GPL-3.0-or-later
// The watchdog the no-stall tests rely on: a blocked event loop is still seen as a stall, whatever
// it blocks on, while waiting for a CPU on a busy machine is not the program's stall.

#include "support/event_loop_watchdog.h"

#include <QScopeGuard>
#include <QThread>
#include <QtTest>

#include <atomic>
#include <ctime>
#include <memory>
#include <sched.h>

namespace {

// The calling thread's CPU time, ms.
qint64 threadCpuMs()
{
    timespec used{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &used);
    return qint64(used.tv_sec) * 1000 + used.tv_nsec / 1'000'000;
}

} // namespace

class TestEventLoopWatchdog : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void aBlockedLoopIsAStall()
    {
        sluice::test::EventLoopWatchdog watchdog;
        watchdog.start();
        QTest::qWait(50);
        QTimer::singleShot(0, this, [] { QThread::msleep(150); }); // as a blocking network wait would
        // Until the watchdog's next tick after the block has run (a loaded machine may delay it).
        QTRY_VERIFY2_WITH_TIMEOUT(watchdog.longestStallMs() >= 120,
                                  qPrintable(QString::number(watchdog.longestStallMs())), 5000);
    }

    void aBusyLoopIsAStall()
    {
        sluice::test::EventLoopWatchdog watchdog;
        watchdog.start();
        QTest::qWait(50);
        QTimer::singleShot(0, this, [] {
            QElapsedTimer clock;
            clock.start();
            volatile quint64 sum = 0;
            while (clock.elapsed() < 150)
                sum = sum + 1;
        });
        // Computing counts in full unless another process took the CPU meanwhile, which is left out.
        QTRY_VERIFY2_WITH_TIMEOUT(watchdog.longestStallMs() + watchdog.waitedForCpuMs() >= 120,
                                  qPrintable(QString::number(watchdog.longestStallMs())), 5000);
        QVERIFY(watchdog.longestStallMs() >= 20);
    }

    // A worker thread of the same process that keeps the window's CPU: the wait behind it is the
    // program's stall, not the machine's.
    void waitingBehindTheProcesssOwnThreadIsAStall()
    {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(sched_getcpu(), &one);
        cpu_set_t before;
        QCOMPARE(sched_getaffinity(0, sizeof before, &before), 0);
        QCOMPARE(sched_setaffinity(0, sizeof one, &one), 0);
        const auto restore = qScopeGuard([&] { sched_setaffinity(0, sizeof before, &before); });
        std::atomic<bool> spinning{true};
        std::unique_ptr<QThread> worker(QThread::create([&] {
            sched_setaffinity(0, sizeof one, &one);
            while (spinning)
                ;
        }));
        worker->start();
        const auto stopWorker = qScopeGuard([&] {
            spinning = false;
            worker->wait();
        });
        sluice::test::EventLoopWatchdog watchdog;
        watchdog.start();
        QTest::qWait(50);
        // 150 ms of this thread's own CPU time, shared half and half with the worker: about 300 ms.
        QTimer::singleShot(0, this, [] {
            const qint64 start = threadCpuMs();
            while (threadCpuMs() < start + 150)
                ;
        });
        QTRY_VERIFY2_WITH_TIMEOUT(watchdog.longestStallMs() >= 250,
                                  qPrintable(QStringLiteral("%1 ms, %2 ms behind its own thread, %3 ms behind others")
                                                 .arg(watchdog.longestStallMs())
                                                 .arg(watchdog.waitedBehindOwnThreadsMs())
                                                 .arg(watchdog.waitedForCpuMs())),
                                  5000);
    }

    void anIdleLoopIsNot()
    {
        sluice::test::EventLoopWatchdog watchdog;
        watchdog.start();
        QTest::qWait(200);
        QVERIFY2(watchdog.longestStallMs() < 50, qPrintable(QString::number(watchdog.longestStallMs())));
    }
};

QTEST_GUILESS_MAIN(TestEventLoopWatchdog)
#include "tst_event_loop_watchdog.moc"
