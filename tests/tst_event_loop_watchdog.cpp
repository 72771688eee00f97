// SPDX-License-Identifier: GPL-3.0-or-later
// The watchdog the no-stall tests rely on: a blocked event loop is still seen as a stall, whatever
// it blocks on, while waiting for a CPU on a busy machine is not the program's stall.

#include "support/event_loop_watchdog.h"

#include <QThread>
#include <QtTest>

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
