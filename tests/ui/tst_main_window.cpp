// The main window, offscreen, on real servers: the status area shows what the server reports, a
// clear message when it cannot be reached, and the GUI event loop never stalls while the server is
// unreachable or frozen with SIGSTOP.

#include "model/monitor/server_monitor.h"
#include "support/event_loop_watchdog.h"
#include "support/redis_process.h"
#include "support/test_services.h"
#include "ui/main_window.h"
#include "ui/server_overview.h"

#include <QLabel>
#include <QTest>

using namespace sluice;
using model::ServerMonitor;
using redis::RedisClient;

namespace {

QString labelText(const QWidget &window, const char *name)
{
    const auto *label = window.findChild<QLabel *>(QLatin1String(name));
    return label ? label->text() : QStringLiteral("<no label %1>").arg(QLatin1String(name));
}

// A shown main window watching one server, as the app wires it.
struct WatchedWindow {
    WatchedWindow(const redis::ConnectionOptions &options, const QString &label, int intervalMs)
        : connection(options)
        , monitor(&connection, label, intervalMs)
    {
        window.setMonitor(&monitor);
        window.show();
        monitor.start();
    }
    QString banner() const { return window.serverOverview()->bannerText(); }

    ui::MainWindow window;
    RedisClient connection;
    ServerMonitor monitor;
};

redis::ConnectionOptions refusedPort()
{
    redis::ConnectionOptions options;
    options.port = 1;
    return options;
}

// Runs the event loop for the given time while the watchdog measures it.
qint64 longestStallOver(int milliseconds)
{
    test::EventLoopWatchdog watchdog;
    watchdog.start();
    QTest::qWait(milliseconds);
    return watchdog.longestStallMs();
}

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void statusAreaShowsServer()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_REDIS_URL", "Redis standalone");
        WatchedWindow watched(test::optionsFor(url), url, 200);
        const ui::MainWindow &window = watched.window;
        QTRY_VERIFY(labelText(window, "statusVersion").startsWith(QLatin1String("Redis 7")));
        QCOMPARE(labelText(window, "statusMode"), QStringLiteral("standalone"));
        QVERIFY(labelText(window, "statusMemory").contains(QLatin1String("iB")));
        QVERIFY(labelText(window, "statusClients").startsWith(QLatin1String("Clients ")));
        QVERIFY(labelText(window, "statusState").contains(QLatin1String("Connected")));
        QVERIFY(watched.banner().startsWith(QLatin1String("Connected to")));
        QVERIFY(window.windowTitle().contains(url));
    }

    void unreachableServerIsExplained()
    {
        WatchedWindow watched(refusedPort(), QStringLiteral("redis://127.0.0.1:1"), 200);
        QTRY_VERIFY(watched.banner().startsWith(QLatin1String("Cannot reach")));
        QVERIFY2(watched.banner().contains(QLatin1String("refused")), qPrintable(watched.banner()));
        QVERIFY2(!watched.banner().contains(QLatin1String("last ones received")), "nothing was received yet");
        QVERIFY(labelText(watched.window, "statusState").contains(QLatin1String("Unreachable")));
    }

    void staysResponsiveWhileUnreachable()
    {
        WatchedWindow watched(refusedPort(), QStringLiteral("redis://127.0.0.1:1"), 250);
        const qint64 stall = longestStallOver(4000);
        qInfo("longest event-loop stall while unreachable: %lld ms", stall);
        QVERIFY2(stall < 50, qPrintable(QStringLiteral("the GUI stalled %1 ms").arg(stall)));
    }

    void staysResponsiveWhileFrozen()
    {
        test::RedisProcess server(test::RedisProcess::Patience::Quick);
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        WatchedWindow watched(server.options(), QStringLiteral("frozen"), 250);
        const ServerMonitor &monitor = watched.monitor;
        QTRY_VERIFY(monitor.hasStatus());

        server.freeze();
        const qint64 stall = longestStallOver(4000);
        qInfo("longest event-loop stall while frozen: %lld ms", stall);
        QVERIFY2(stall < 50, qPrintable(QStringLiteral("the GUI stalled %1 ms").arg(stall)));
        QCOMPARE(monitor.health(), ServerMonitor::Health::Unreachable);
        QVERIFY2(watched.banner().contains(QLatin1String("1000 ms")), qPrintable(watched.banner()));
        QVERIFY(watched.banner().contains(QLatin1String("last ones received")));

        server.thaw();
        QTRY_COMPARE_WITH_TIMEOUT(monitor.health(), ServerMonitor::Health::Ready, 15000);
        QVERIFY(watched.banner().startsWith(QLatin1String("Connected to")));
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
