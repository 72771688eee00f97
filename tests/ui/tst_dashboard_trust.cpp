// SPDX-License-Identifier: GPL-3.0-or-later
// What an operator must be able to trust in the dashboard, offscreen, on a real redis-server with
// published policies and traffic. Switching from a live server to a dead one leaves nothing of the old
// server (no tab, status bar or hover readout holds a figure, count, name or warning of it), and the
// window says it is connecting, then that it cannot reach the new address (shown without its password).
// A shadow policy is marked "shadow - would reject" in the Overview row, the Live tab and the Policies
// list, and the Overview's totals count only real rejections, its would-rejects apart.

#include "model/connection/connection_session.h"
#include "model/tables/policy_list_model.h"
#include "model/tables/policy_rates_model.h"
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
#include "ui/policy_panel.h"
#include "ui/policy_rates_table.h"
#include "ui/server_overview.h"
#include "ui/time_series_chart.h"

#include <QAbstractItemView>
#include <QChartView>
#include <QComboBox>
#include <QLabel>
#include <QLocale>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTest>

using namespace sluice;
using model::Algorithm;
using model::PolicyRatesModel;

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

QVariant shown(const QAbstractItemModel *model, const QString &policy, int column, int role = Qt::DisplayRole)
{
    for (int row = 0; row < model->rowCount(); ++row)
        if (model->index(row, 0).data(PolicyRatesModel::NameRole).toString() == policy)
            return model->index(row, column).data(role);
    return {};
}

} // namespace

class TestDashboardTrust : public QObject {
    Q_OBJECT

    test::RedisProcess m_server;
    std::unique_ptr<redis::RedisClient> m_traffic;

    model::ConnectionProfile profileFor(const QString &ns) const
    {
        model::ConnectionProfile profile;
        profile.name = QStringLiteral("live server");
        profile.options = m_server.options();
        profile.ns = ns;
        return profile;
    }

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
        auto window = test::openMainWindow(profileFor(ns));
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

    void shadowPolicyIsMarkedAndKeptApartFromRejections()
    {
        const QString ns = test::uniqueNamespace("shadow-");
        const QString next = QStringLiteral("api-next");
        const QString real = QStringLiteral("api");
        // Buckets of 5 that refill one token an hour: 20 calls are 15 rejections, or 15 would-rejects.
        QCOMPARE(test::storeAndPublish(*m_traffic, ns,
                                       {test::makePolicy(next, Algorithm::TokenBucket, 1, 3600000, 5, true),
                                        test::makePolicy(real, Algorithm::TokenBucket, 1, 3600000, 5)}),
                 QString());
        auto window = test::openMainWindow(profileFor(ns));
        model::PolicyRateSampler *sampler = window->session()->rates();
        QTRY_VERIFY_WITH_TIMEOUT(sampler->lastSample().spanMs > 0, 5000);

        // Both policies' traffic in one sample (fired right after one; tried again if a tick split it).
        model::RateSample sample;
        for (int attempt = 0; attempt < 3; ++attempt) {
            const qint64 after = sampler->lastSample().endMs;
            QTRY_VERIFY_WITH_TIMEOUT(sampler->lastSample().endMs > after, 5000);
            const qint64 fired = sampler->lastSample().endMs;
            const QByteArray subject = "s" + QByteArray::number(attempt);
            QCOMPARE(test::fireAcquires(*m_traffic, ns, next, 20, [&](int) { return subject; }).allowed, 20u);
            QCOMPARE(test::fireAcquires(*m_traffic, ns, real, 20, [&](int) { return subject; }).rejected, 15u);
            QTRY_VERIFY_WITH_TIMEOUT(sampler->lastSample().endMs > fired, 5000);
            sample = sampler->lastSample();
            const auto rejectedOf = [&](const QString &policy) -> quint64 {
                for (const model::PolicyRate &rate : sample.policies)
                    if (rate.policy == policy)
                        return rate.point.rejected;
                return 0;
            };
            if (rejectedOf(next) == 15 && rejectedOf(real) == 15)
                break;
            sample = {};
        }
        QVERIFY2(sample.spanMs > 0, "no sample held both policies' traffic");
        sampler->stop(); // the figures below stay this sample's

        // The Overview: the row says shadow, brackets its would-rejects and ranks it as rejecting nothing.
        const QAbstractItemModel *rates = window->policyRates()->view()->model();
        QTRY_VERIFY(shown(rates, next, PolicyRatesModel::Name).toString().contains(QLatin1String("would reject")));
        QVERIFY(shown(rates, next, PolicyRatesModel::Name).toString().contains(QLatin1String("shadow")));
        QVERIFY(!shown(rates, real, PolicyRatesModel::Name).toString().contains(QLatin1String("shadow")));
        const QLocale locale;
        const double perSecond = 15 * 1000.0 / sample.spanMs;
        const QString figure = locale.toString(perSecond, 'f', perSecond < 10 ? 1 : 0);
        QTRY_COMPARE(shown(rates, next, PolicyRatesModel::RejectedPerSecond).toString(),
                     QStringLiteral("(%1)").arg(figure));
        QCOMPARE(shown(rates, real, PolicyRatesModel::RejectedPerSecond).toString(), figure);
        QCOMPARE(shown(rates, next, PolicyRatesModel::RejectedPerSecond, PolicyRatesModel::SortRole).toDouble(), 0.0);
        QCOMPARE(rates->index(0, 0).data(PolicyRatesModel::NameRole).toString(), real);
        QVERIFY(shown(rates, next, PolicyRatesModel::AllowedPerSecond, Qt::ToolTipRole)
                    .toString()
                    .startsWith(QLatin1String("Shadow policy: it rejects nothing.")));

        // The totals: the real rejections alone, the would-rejects apart.
        const QString totals = window->policyRates()->totalsText();
        QVERIFY2(totals.startsWith(QStringLiteral("Rejected %1/s of %2/s")
                                       .arg(locale.toString(perSecond, 'f', 1),
                                            locale.toString(40 * 1000.0 / sample.spanMs, 'f', 1))),
                 qPrintable(totals));
        QVERIFY2(totals.contains(
                     QStringLiteral("shadow policies would reject %1/s").arg(locale.toString(perSecond, 'f', 1))),
                 qPrintable(totals));

        // The Live tab: a badge on the shadow policy, none on the other.
        ui::PolicyLiveView *live = window->liveView();
        live->showPolicy(next);
        QTRY_VERIFY(live->shadowBadgeText().contains(QStringLiteral("Shadow \u2013 would reject")));
        live->showPolicy(real);
        QVERIFY(live->shadowBadgeText().isEmpty());

        // The Policies list.
        const model::PolicyListModel *list = window->policyPanel()->listModel();
        QTRY_COMPARE(list->rowCount(), 2);
        for (int row = 0; row < list->rowCount(); ++row) {
            const QString name = list->index(row, model::PolicyListModel::Name).data().toString();
            const QString mark = list->index(row, model::PolicyListModel::Shadow).data().toString();
            QCOMPARE(mark, name == next ? QStringLiteral("shadow \u2013 would reject") : QString());
        }
    }
};

QTEST_MAIN(TestDashboardTrust)
#include "tst_dashboard_trust.moc"
