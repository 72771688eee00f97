// SPDX-License-Identifier: GPL-3.0-or-later
// The main window, offscreen, on real servers: the status area shows what the server reports, a
// clear message when it cannot be reached, and the GUI event loop never stalls while the server is
// unreachable or frozen with SIGSTOP.

#include "model/connection/connection_session.h"
#include "model/monitor/server_monitor.h"
#include "support/event_loop_watchdog.h"
#include "support/redis_process.h"
#include "support/sync_command.h"
#include "support/test_services.h"
#include "support/window_support.h"
#include "ui/monitor/server_overview.h"
#include "ui/window/main_window.h"
#include "ui/window/window_state.h"

#include <QAbstractButton>
#include <QLabel>
#include <QMenuBar>
#include <QSettings>
#include <QSplitter>
#include <QTabWidget>
#include <QTemporaryDir>
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
        // A healthy connection takes no room for a banner; the status bar and the Address row say it.
        QVERIFY(window.findChild<QWidget *>(QStringLiteral("connectionBanner"))->isHidden());
        QVERIFY(window.windowTitle().contains(url));
    }

    // Before any session the status bar says what the window is doing: "Starting" only while something is
    // on its way, "Not connected" while it waits for the operator (it said "Starting" there).
    void startupStatusSaysWhetherAnythingConnects()
    {
        ui::MainWindow window;
        window.showStartupMessage(QStringLiteral("Starting the sandbox Redis"), ui::MainWindow::StartupState::Starting);
        QCOMPARE(labelText(window, "statusState"), QStringLiteral("\u25cf Starting"));
        window.showStartupMessage(QStringLiteral("Choose a connection"), ui::MainWindow::StartupState::Waiting);
        QCOMPARE(labelText(window, "statusState"), QStringLiteral("\u25cf Not connected"));
        QVERIFY(window.serverOverview()->bannerText().contains(QLatin1String("Choose a connection")));
        window.showStartupMessage(QStringLiteral("redis-server not found"), ui::MainWindow::StartupState::Failed);
        QCOMPARE(labelText(window, "statusState"), QStringLiteral("\u25cf Failed"));
    }

    // Every tab and menu has an Alt+letter of its own, and Ctrl+1..8 open the tabs in order.
    // The size, the splitters and the tab in front come back in the next run; damaged values are ignored.
    void layoutIsRememberedAcrossRuns()
    {
        QTemporaryDir dir;
        QSettings settings(dir.filePath(QStringLiteral("sluice.ini")), QSettings::IniFormat);
        QList<int> splitSizes;
        {
            ui::MainWindow first;
            first.resize(1000, 680);
            first.show();
            QVERIFY(QTest::qWaitForWindowExposed(&first));
            first.findChild<QTabWidget *>(QStringLiteral("mainTabs"))->setCurrentIndex(5);
            auto *split = first.findChild<QSplitter *>(QStringLiteral("watchedKeysSplit"));
            QVERIFY(split);
            split->setSizes({120, 600});
            splitSizes = split->sizes();
            settings.setValue(QStringLiteral("window/splitter0"), QByteArray("an earlier build's, by order"));
            ui::saveWindowState(&first, &settings);
            QVERIFY(!settings.contains(QStringLiteral("window/splitter0")));
        }
        ui::MainWindow second;
        ui::restoreWindowState(&second, &settings);
        second.show();
        QVERIFY(QTest::qWaitForWindowExposed(&second));
        QCOMPARE(second.findChild<QTabWidget *>(QStringLiteral("mainTabs"))->currentIndex(), 5);
        QCOMPARE(second.size(), QSize(1000, 680));
        QCOMPARE(second.findChild<QSplitter *>(QStringLiteral("watchedKeysSplit"))->sizes(), splitSizes);
        // A connection switch builds every view anew: the new ones open as the operator left the old.
        model::ConnectionProfile profile;
        profile.name = QStringLiteral("elsewhere");
        second.setSession(std::make_unique<model::ConnectionSession>(profile, refusedPort()));
        QCOMPARE(second.findChild<QSplitter *>(QStringLiteral("watchedKeysSplit"))->sizes(), splitSizes);

        // A state filed under another splitter's name (the stacked one's under the Live tab's) moves sizes at
        // most: the Live tab stays side by side.
        settings.setValue(QStringLiteral("window/splitters/liveSplit"),
                          settings.value(QStringLiteral("window/splitters/watchedKeysSplit")));
        ui::MainWindow crossed;
        ui::restoreWindowState(&crossed, &settings);
        QCOMPARE(crossed.findChild<QSplitter *>(QStringLiteral("liveSplit"))->orientation(), Qt::Horizontal);
        QCOMPARE(crossed.findChild<QSplitter *>(QStringLiteral("watchedKeysSplit"))->orientation(), Qt::Vertical);

        settings.setValue(QStringLiteral("window/geometry"), QByteArray("not a geometry"));
        settings.setValue(QStringLiteral("window/splitters/liveSplit"), QByteArray("not a state"));
        settings.setValue(QStringLiteral("window/tab"), 99);
        ui::MainWindow damaged;
        ui::restoreWindowState(&damaged, &settings);
        damaged.show();
        QVERIFY(QTest::qWaitForWindowExposed(&damaged));
        QCOMPARE(damaged.findChild<QTabWidget *>(QStringLiteral("mainTabs"))->currentIndex(), 0);
    }

    // Beside the server's facts, Redis's own latency: a monitor that is off says so and how to turn it on; a
    // spike and the slowest command show when they happened, the command without its arguments.
    void overviewShowsRedisLatencyAndTheSlowestCommand()
    {
        test::RedisProcess server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        RedisClient admin(server.options());
        QVERIFY(test::openAndWait(admin));
        QVERIFY(test::syncCommand(admin, {"CONFIG", "SET", "latency-monitor-threshold", "0"}).ok());
        model::ConnectionProfile profile;
        profile.name = QStringLiteral("latency");
        profile.options = server.options();
        auto window = test::openMainWindow(profile);
        ui::ServerOverview *overview = window->serverOverview();
        QTRY_VERIFY_WITH_TIMEOUT(overview->latencyText().contains(QLatin1String("latency-monitor-threshold is 0")),
                                 15000);
        QVERIFY2(overview->slowestText().contains(QLatin1String("none in the slowlog"))
                     || overview->slowestText().contains(QLatin1String("CONFIG")),
                 qPrintable(overview->slowestText()));

        QVERIFY(test::syncCommand(admin, {"CONFIG", "SET", "latency-monitor-threshold", "1"}).ok());
        QVERIFY(test::syncCommand(admin, {"CONFIG", "SET", "slowlog-log-slower-than", "1000"}).ok());
        QVERIFY(test::syncCommand(
                    admin, {"EVAL", "local i = 0 while i < 3000000 do i = i + 1 end return 'secret-subject'", "0"})
                    .ok());
        // The next reading (every 5 s while the Overview is in front).
        QTRY_VERIFY2_WITH_TIMEOUT(overview->latencyText().startsWith(QLatin1String("command ")),
                                  qPrintable(overview->latencyText()), 15000);
        QVERIFY2(overview->latencyText().contains(QLatin1String(" ms at ")), qPrintable(overview->latencyText()));
        QTRY_VERIFY2_WITH_TIMEOUT(overview->slowestText().startsWith(QLatin1String("EVAL, ")),
                                  qPrintable(overview->slowestText()), 15000);
        QVERIFY(!overview->slowestText().contains(QLatin1String("secret")));
        QVERIFY(!overview->findChild<QLabel *>(QStringLiteral("overviewSlowest"))
                     ->toolTip()
                     .contains(QLatin1String("secret")));
    }

    void keyboardReachesEveryTab()
    {
        WatchedWindow watched(refusedPort(), QStringLiteral("redis://127.0.0.1:1"), 1000);
        ui::MainWindow &window = watched.window;
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        auto *tabs = window.findChild<QTabWidget *>();
        QVERIFY(tabs);
        QStringList labels;
        for (const QAction *menu : window.menuBar()->actions())
            labels << menu->text();
        for (int index = 0; index < tabs->count(); ++index)
            labels << tabs->tabText(index);
        QHash<QChar, QString> owners;
        for (const QString &label : labels) {
            const qsizetype mark = label.indexOf(QLatin1Char('&'));
            QVERIFY2(mark >= 0 && mark + 1 < label.size(), qPrintable(label + QLatin1String(" has no mnemonic")));
            const QChar letter = label.at(mark + 1).toLower();
            QVERIFY2(!owners.contains(letter),
                     qPrintable(QStringLiteral("Alt+%1 is both %2 and %3").arg(letter, owners.value(letter), label)));
            owners.insert(letter, label);
        }
        QCOMPARE(tabs->count(), 10);
        for (int index = tabs->count() - 1; index >= 0; --index) {
            // Ctrl+1..9, then Ctrl+0 for the tenth.
            QTest::keyClick(&window, static_cast<Qt::Key>(index < 9 ? Qt::Key_1 + index : Qt::Key_0),
                            Qt::ControlModifier);
            QTRY_COMPARE(tabs->currentIndex(), index);
        }
        QTest::keyClick(&window, Qt::Key_S, Qt::AltModifier);
        QTRY_COMPARE(tabs->tabText(tabs->currentIndex()), QStringLiteral("Hi&story"));

        // On every tab, each Alt+letter of its own buttons and labels is one no other control of it, no tab and
        // no menu takes: Alt+B on the Tune tab was both a tab and its Publish as shadow.
        for (int index = 0; index < tabs->count(); ++index) {
            QHash<QChar, QString> pageOwners = owners;
            QWidget *page = tabs->widget(index);
            QStringList texts;
            for (const QAbstractButton *button : page->findChildren<QAbstractButton *>())
                texts << button->text();
            for (const QLabel *label : page->findChildren<QLabel *>())
                if (label->textFormat() != Qt::RichText)
                    texts << label->text();
            for (const QString &text : std::as_const(texts)) {
                const qsizetype mark = text.indexOf(QLatin1Char('&'));
                if (mark < 0 || mark + 1 >= text.size() || !text.at(mark + 1).isLetterOrNumber())
                    continue;
                const QChar letter = text.at(mark + 1).toLower();
                QVERIFY2(!pageOwners.contains(letter),
                         qPrintable(QStringLiteral("on %1, Alt+%2 is both %3 and %4")
                                        .arg(tabs->tabText(index), letter, pageOwners.value(letter), text)));
                pageOwners.insert(letter, text);
            }
        }
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
