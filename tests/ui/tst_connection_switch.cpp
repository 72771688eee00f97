// SPDX-License-Identifier: GPL-3.0-or-later
// Switching the dashboard from a live server to a dead one, offscreen, on a real redis-server with
// published policies and traffic: at once and after the connection fails, no tab, status bar or hover
// readout holds a figure, count, name or warning of the old server, and the window says it is
// connecting, then that it cannot reach the new address (shown without its password).

#include "model/connection/connection_session.h"
#include "support/limiter_support.h"
#include "support/publish_support.h"
#include "support/redis_process.h"
#include "support/sync_command.h"
#include "support/test_services.h"
#include "support/traffic_support.h"
#include "support/widget_driving.h"
#include "support/window_support.h"
#include "ui/main_window.h"
#include "ui/policy_live_view.h"
#include "ui/policy_rates_table.h"
#include "ui/server_overview.h"
#include "ui/time_series_chart.h"

#include <QAbstractItemView>
#include <QChartView>
#include <QComboBox>
#include <QLabel>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTest>

using namespace sluice;
using model::Algorithm;

namespace {

QString labelText(const QWidget *window, const char *name)
{
    const auto *label = window->findChild<QLabel *>(QLatin1String(name));
    return label ? label->text() : QStringLiteral("<no label %1>").arg(QLatin1String(name));
}

// Every text the window holds, shown or not: labels and their tooltips, every item view's cells, combo
// boxes' items, the status bar's message and the title.
QStringList heldTexts(const QMainWindow *window)
{
    QStringList texts{window->windowTitle(), window->statusBar()->currentMessage()};
    for (const QLabel *label : window->findChildren<QLabel *>())
        texts << label->text() << label->toolTip();
    for (const QAbstractItemView *view : window->findChildren<QAbstractItemView *>()) {
        const QAbstractItemModel *model = view->model();
        for (int row = 0; model && row < model->rowCount(); ++row)
            for (int column = 0; column < model->columnCount(); ++column)
                texts << model->index(row, column).data().toString()
                      << model->index(row, column).data(Qt::ToolTipRole).toString();
    }
    for (const QComboBox *combo : window->findChildren<QComboBox *>())
        for (int item = 0; item < combo->count(); ++item)
            texts << combo->itemText(item);
    texts.removeAll(QString());
    return texts;
}

// What the window shows of the old server, recorded before the switch.
struct OldFigures {
    // Places that must not hold their old text (a figure can be short: "3 s", "12").
    QHash<QByteArray, QString> byLabel;
    // Texts no place may hold, in part or whole (names, warnings, readouts).
    QStringList anywhere;
};

// Why the window still shows something of the old server; empty when nothing survives.
QString survivors(const ui::MainWindow *window, const OldFigures &old)
{
    QStringList found;
    for (auto it = old.byLabel.cbegin(); it != old.byLabel.cend(); ++it)
        if (labelText(window, it.key().constData()) == it.value())
            found << QStringLiteral("%1 still says \"%2\"").arg(QLatin1String(it.key()), it.value());
    const QStringList texts = heldTexts(window);
    for (const QString &value : old.anywhere)
        for (const QString &text : texts)
            if (text.contains(value))
                found << QStringLiteral("\"%1\" is still in \"%2\"").arg(value, text.left(120));
    if (const auto *warning = window->findChild<QLabel *>(QStringLiteral("persistenceWarning"));
        warning && warning->isVisibleTo(window))
        found << QStringLiteral("the persistence warning is still shown");
    // A readout of values (a hint how to hover is no figure).
    if (window->liveView()->chart()->hoverText().contains(QLatin1String("/s ")))
        found << QStringLiteral("the Live hover readout says \"%1\"").arg(window->liveView()->chart()->hoverText());
    return found.join(QLatin1Char('\n'));
}

} // namespace

class TestConnectionSwitch : public QObject {
    Q_OBJECT

    test::RedisProcess m_server;
    std::unique_ptr<redis::RedisClient> m_traffic;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_traffic = std::make_unique<redis::RedisClient>(m_server.options());
        QVERIFY(test::openAndWait(*m_traffic));
    }

    void nothingOfTheOldServerSurvivesASwitch()
    {
        // Names no other text could hold by chance.
        const QString ns = test::uniqueNamespace("switch-");
        const QString busy = ns + QStringLiteral("-busy");
        const QString calm = ns + QStringLiteral("-calm");
        const QByteArray subject = ns.toUtf8() + "-alice";
        QCOMPARE(test::storeAndPublish(*m_traffic, ns,
                                       {test::makePolicy(busy, Algorithm::TokenBucket, 1, 3600000, 5),
                                        test::makePolicy(calm, Algorithm::TokenBucket, 5, 1000)}),
                 QString());
        model::ConnectionProfile server;
        server.name = QStringLiteral("live server");
        server.options = m_server.options();
        server.ns = ns;
        auto window = test::openMainWindow(server);
        window->resize(1100, 700);

        // Every view shows the server's figures first.
        QCOMPARE(test::fireAcquires(*m_traffic, ns, busy, 20, [&](int) { return subject; }).rejected, 15u);
        QTRY_VERIFY_WITH_TIMEOUT(labelText(window.get(), "overviewVersion").startsWith(QLatin1String("Redis")), 5000);
        QTRY_VERIFY(!labelText(window.get(), "statusMemory").isEmpty());
        QTRY_COMPARE_WITH_TIMEOUT(window->policyRates()->view()->model()->rowCount(), 2, 5000);
        QTRY_COMPARE(labelText(window.get(), "policyStatus"), QStringLiteral("Policies: 2"));
        QTRY_VERIFY(labelText(window.get(), "deploymentWarning").contains(QLatin1String("without persistence")));
        QTRY_VERIFY(window->findChild<QLabel *>(QStringLiteral("persistenceWarning"))->isVisibleTo(window.get()));
        ui::PolicyLiveView *live = window->liveView();
        test::child<QTabWidget>(window.get(), "mainTabs")->setCurrentWidget(live);
        live->showPolicy(busy);
        QTRY_COMPARE_WITH_TIMEOUT(live->topTable()->rowCount(), 1, 5000);
        ui::TimeSeriesChart *chart = live->chart();
        // Samples over a few seconds, so the plot's right edge (a few hundred ms before the newest) has one.
        QTRY_VERIFY_WITH_TIMEOUT(chart->valuesAt(chart->shownSpan().second - 2000).contains(QLatin1String("allowed/s")),
                                 8000);
        // Hovering over the plot's right edge reads the newest sample there.
        auto *canvas = test::child<QChartView>(chart, "chartView");
        const auto hoverRightEdge = [&] {
            const QRectF plot = canvas->chart()->plotArea();
            QTest::mouseMove(
                canvas->viewport(),
                canvas->mapFromScene(canvas->chart()->mapToScene(QPointF(plot.right() - 1, plot.center().y()))));
            return chart->hoverText().contains(QLatin1String("allowed/s"));
        };
        QTRY_VERIFY2(hoverRightEdge(), qPrintable(chart->hoverText()));

        OldFigures old;
        for (const char *name : {"overviewVersion", "overviewUptime", "overviewKeys", "overviewMemory",
                                 "overviewClients", "overviewRdb", "statusVersion", "statusMode", "statusMemory",
                                 "statusClients", "policyStatus", "deploymentWarning", "publishedRecord"})
            old.byLabel.insert(name, labelText(window.get(), name));
        old.anywhere = QStringList{busy,
                                   calm,
                                   QString::fromUtf8(subject),
                                   labelText(window.get(), "overviewVersion"),
                                   labelText(window.get(), "statusMemory"),
                                   labelText(window.get(), "deploymentWarning"),
                                   chart->hoverText()};
        QVERIFY2(!survivors(window.get(), old).isEmpty(), "the check sees the old server's figures");

        // A profile for a dead address, its password never shown.
        model::ConnectionProfile dead;
        dead.options.host = QStringLiteral("127.0.0.1");
        dead.options.port = 1;
        dead.options.password = QStringLiteral("switch-secret");
        window->setSession(new model::ConnectionSession(dead, dead.options));

        const QString banner = window->serverOverview()->bannerText();
        QVERIFY2(banner.startsWith(QLatin1String("Connecting to redis://")), qPrintable(banner));
        QVERIFY(labelText(window.get(), "statusState").contains(QLatin1String("Connecting")));
        QString left = survivors(window.get(), old);
        QVERIFY2(left.isEmpty(), qPrintable(left));

        QTRY_VERIFY_WITH_TIMEOUT(window->serverOverview()->bannerText().startsWith(QLatin1String("Cannot reach")),
                                 5000);
        QVERIFY(labelText(window.get(), "statusState").contains(QLatin1String("Unreachable")));
        QVERIFY(window->serverOverview()->bannerText().contains(QLatin1String("127.0.0.1:1")));
        QVERIFY2(!window->serverOverview()->bannerText().contains(QLatin1String("last ones received")),
                 "nothing was received from this server");
        QTest::qWait(500); // whatever the views do once the connection failed
        left = survivors(window.get(), old);
        QVERIFY2(left.isEmpty(), qPrintable(left));
        for (const QString &text : heldTexts(window.get()))
            QVERIFY2(!text.contains(QLatin1String("switch-secret")), qPrintable(text));
    }
};

QTEST_MAIN(TestConnectionSwitch)
#include "tst_connection_switch.moc"
