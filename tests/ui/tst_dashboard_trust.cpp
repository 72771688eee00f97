// SPDX-License-Identifier: GPL-3.0-or-later
// What an operator must be able to trust in the dashboard, offscreen, on a real redis-server with
// published policies and traffic. Switching from a live server to a dead one leaves nothing of the old
// server (no tab, status bar or hover readout holds a figure, count, name or warning of it), and the
// window says it is connecting, then that it cannot reach the new address (shown without its password).
// A shadow policy is marked "shadow - would reject" in the Overview row and the Live tab, "would reject"
// in the Policies list's Shadow column, and the Overview's totals count only real rejections, its
// would-rejects apart.

#include "model/connection/connection_session.h"
#include "model/format/units.h"
#include "model/monitor/top_rejected.h"
#include "model/tables/key_inspector_model.h"
#include "model/tables/policy_list_model.h"
#include "model/tables/policy_rates_model.h"
#include "support/fake_secret_store.h"
#include "support/limiter_support.h"
#include "support/publish_support.h"
#include "support/redis_process.h"
#include "support/sync_command.h"
#include "support/test_services.h"
#include "support/traffic_support.h"
#include "support/widget_driving.h"
#include "support/window_support.h"
#include "ui/deploy/deployment_view.h"
#include "ui/monitor/key_inspector_view.h"
#include "ui/monitor/key_watch_view.h"
#include "ui/monitor/policy_live_view.h"
#include "ui/monitor/policy_rates_table.h"
#include "ui/monitor/server_overview.h"
#include "ui/monitor/subject_view.h"
#include "ui/policy/policy_history_view.h"
#include "ui/policy/policy_panel.h"
#include "ui/widgets/state_palette.h"
#include "ui/widgets/time_series_chart.h"
#include "ui/window/main_window.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAbstractSpinBox>
#include <QAccessible>
#include <QAction>
#include <QApplication>
#include <QChartView>
#include <QComboBox>
#include <QDateTime>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <functional>

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

    // A server of the test's own (to freeze or kill) with one policy `<ns>-busy` of 1000 a second
    // published, a client for its traffic, and the dashboard on it sampling every 250 ms.
    struct OwnServer {
        test::RedisProcess server{test::RedisProcess::Patience::Quick};
        std::unique_ptr<redis::RedisClient> traffic;
        QString ns;
        QString busy;
        std::unique_ptr<ui::MainWindow> window;

        // Empty when all is up, else why not.
        QString open(const char *nsPrefix)
        {
            if (!server.start())
                return server.errorString();
            ns = test::uniqueNamespace(nsPrefix);
            busy = ns + QStringLiteral("-busy");
            traffic = std::make_unique<redis::RedisClient>(server.options());
            if (!test::openAndWait(*traffic))
                return QStringLiteral("the traffic client cannot connect");
            const QString published
                = test::storeAndPublish(*traffic, ns, {test::makePolicy(busy, Algorithm::TokenBucket, 1000, 1000)});
            if (!published.isEmpty())
                return published;
            model::ConnectionProfile profile;
            profile.name = QStringLiteral("live server");
            profile.options = server.options();
            profile.ns = ns;
            window = test::openMainWindow(profile);
            window->session()->rates()->setIntervalMs(250);
            return {};
        }
        // Calls at alice for `milliseconds`, five every 50 ms; how many were not allowed.
        quint64 fireFor(int milliseconds)
        {
            quint64 refused = 0;
            QElapsedTimer clock;
            clock.start();
            while (clock.elapsed() < milliseconds) {
                refused
                    += 5 - test::fireAcquires(*traffic, ns, busy, 5, [](int) { return QByteArray("alice"); }).allowed;
                QTest::qWait(50);
            }
            return refused;
        }
    };

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
        window->setSession(std::make_unique<model::ConnectionSession>(dead, dead.options));

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

    // A server that may evict says so on the Overview (what it may drop, then how many keys it dropped since
    // the dashboard first looked) and on Deployment; one with noeviction says it drops nothing.
    void evictionShowsOnTheOverviewAndDeployment()
    {
        auto calm = test::openMainWindow(profileFor(test::uniqueNamespace("noevict-")));
        QTRY_COMPARE_WITH_TIMEOUT(labelText(calm.get(), "overviewEviction"),
                                  QStringLiteral("noeviction (drops nothing)"), 5000);
        QVERIFY(!calm->findChild<QLabel *>(QStringLiteral("evictionWarning"))->isVisibleTo(calm.get()));
        calm.reset();

        test::RedisProcess evicting(test::RedisProcess::Patience::Quick);
        evicting.setExtraArguments({QStringLiteral("--maxmemory-policy"), QStringLiteral("allkeys-lru"),
                                    QStringLiteral("--maxmemory"), QStringLiteral("8mb")});
        QVERIFY2(evicting.start(), qPrintable(evicting.errorString()));
        redis::RedisClient client(evicting.options());
        QVERIFY(test::openAndWait(client));
        const QString ns = test::uniqueNamespace("evict-");
        QCOMPARE(test::storeAndPublish(client, ns,
                                       {test::makePolicy(QStringLiteral("api"), Algorithm::TokenBucket, 5, 60000)}),
                 QString());
        model::ConnectionProfile profile = profileFor(ns);
        profile.options = evicting.options();
        auto window = test::openMainWindow(profile);
        window->resize(1024, 700);
        auto *warning = window->findChild<QLabel *>(QStringLiteral("evictionWarning"));
        QTRY_COMPARE_WITH_TIMEOUT(labelText(window.get(), "overviewEviction"), QStringLiteral("allkeys-lru"), 5000);
        QTRY_VERIFY(warning->isVisibleTo(window.get()));
        QVERIFY2(warning->text().startsWith(QLatin1String("This server may drop keys: maxmemory-policy allkeys-lru can "
                                                          "evict any key when memory runs out")),
                 qPrintable(warning->text()));
        QVERIFY2(!warning->text().contains(QLatin1String("evicted since")), qPrintable(warning->text()));
        QTRY_VERIFY_WITH_TIMEOUT(
            labelText(window.get(), "deploymentWarning").contains(QLatin1String("allkeys-lru can evict any key")),
            10000);

        const QByteArray filler(64 * 1024, 'x');
        for (int i = 0; i < 400; ++i)
            test::syncCommand(client, {"SET", "filler:" + QByteArray::number(i), filler});
        QTRY_VERIFY2_WITH_TIMEOUT(
            warning->text().contains(QRegularExpression(
                QStringLiteral("\\n\\d+ keys evicted since .*, when this dashboard first looked \\(evicted_keys "
                               "counts the whole server, not only Sluice's keys\\): buckets may have been reset"))),
            qPrintable(warning->text()), 5000);
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
        // "[shadow]", short enough for the Policy column at 1024 pixels ("[shadow – would reject]" was cut).
        QTRY_COMPARE(shown(rates, next, PolicyRatesModel::Name).toString(), next + QStringLiteral(" [shadow]"));
        window->resize(1024, 700);
        QTableView *overview = window->policyRates()->view();
        const int needed = overview->fontMetrics().horizontalAdvance(next + QStringLiteral(" [shadow]"));
        QTRY_VERIFY2(
            overview->columnWidth(PolicyRatesModel::Name) > needed,
            qPrintable(QStringLiteral("%1 px for %2").arg(overview->columnWidth(PolicyRatesModel::Name)).arg(needed)));
        QVERIFY(!shown(rates, real, PolicyRatesModel::Name).toString().contains(QLatin1String("shadow")));
        const double perSecond = 15 * 1000.0 / sample.spanMs;
        const QString figure = model::formatDecimal(perSecond);
        QTRY_COMPARE(shown(rates, next, PolicyRatesModel::RejectedPerSecond).toString(),
                     QStringLiteral("(%1)").arg(figure));
        QCOMPARE(shown(rates, real, PolicyRatesModel::RejectedPerSecond).toString(), figure);
        QCOMPARE(shown(rates, next, PolicyRatesModel::RejectedPerSecond, PolicyRatesModel::SortRole).toDouble(), 0.0);
        // Its sparkline draws them as would-rejects (muted, dashed), never on the rejected line.
        QVERIFY(shown(rates, next, PolicyRatesModel::Trend, PolicyRatesModel::RejectedTrendRole)
                    .value<QList<qreal>>()
                    .isEmpty());
        QVERIFY(shown(rates, next, PolicyRatesModel::Trend, PolicyRatesModel::WouldRejectTrendRole)
                    .value<QList<qreal>>()
                    .contains(perSecond));
        QVERIFY(shown(rates, real, PolicyRatesModel::Trend, PolicyRatesModel::RejectedTrendRole)
                    .value<QList<qreal>>()
                    .contains(perSecond));
        QCOMPARE(rates->index(0, 0).data(PolicyRatesModel::NameRole).toString(), real);
        QVERIFY(shown(rates, next, PolicyRatesModel::AllowedPerSecond, Qt::ToolTipRole)
                    .toString()
                    .startsWith(QLatin1String("Shadow policy: it rejects nothing.")));

        // The totals: the real rejections alone, the would-rejects apart.
        const QString totals = window->policyRates()->totalsText();
        QVERIFY2(totals.startsWith(
                     QStringLiteral("Rejected %1/s of %2/s")
                         .arg(model::formatDecimal(perSecond), model::formatDecimal(40 * 1000.0 / sample.spanMs))),
                 qPrintable(totals));
        QVERIFY2(
            totals.contains(QStringLiteral("shadow policies would reject %1/s").arg(model::formatDecimal(perSecond))),
            qPrintable(totals));

        // The Live tab: a badge on the shadow policy, none on the other.
        ui::PolicyLiveView *live = window->liveView();
        live->showPolicy(next);
        QTRY_VERIFY(live->shadowBadgeText().contains(QStringLiteral("Shadow \u2013 would reject")));
        QCOMPARE(live->topTable()->horizontalHeaderItem(1)->text(), QStringLiteral("Would reject"));
        QVERIFY2(live->definitionText().contains(QLatin1String("shadow")), qPrintable(live->definitionText()));
        live->showPolicy(real);
        QVERIFY(live->shadowBadgeText().isEmpty());
        QCOMPARE(live->topTable()->horizontalHeaderItem(1)->text(), QStringLiteral("Rejected"));
        // The definition the figures are held to, as published; the policies in name order.
        QTRY_VERIFY2(live->definitionText().contains(QLatin1String("enforcing"))
                         && live->definitionText().contains(QLatin1String("published version 1")),
                     qPrintable(live->definitionText()));
        // The drop-down marks the shadow policy, as the Overview does.
        auto *choice = test::child<QComboBox>(live, "livePolicy");
        QStringList listed;
        for (int item = 0; item < choice->count(); ++item) {
            const QString name = choice->itemData(item).toString();
            listed << name;
            QCOMPARE(choice->itemText(item), name == next ? next + QStringLiteral(" [shadow]") : name);
        }
        QStringList sorted = listed;
        sorted.sort();
        QCOMPARE(listed, sorted);

        // Watched keys: its list marks the shadow policy, watching from it names the policy (not the mark),
        // and the watched row says shadow.
        auto *source = test::child<QComboBox>(window->keyWatchView(), "watchSource");
        const int shadowItem = source->findData(next);
        QVERIFY(shadowItem >= 0);
        QTRY_COMPARE(source->itemText(shadowItem), next + QStringLiteral(" [shadow]"));
        QCOMPARE(source->itemText(source->findData(real)), real);
        source->setCurrentIndex(shadowItem);
        test::child<QLineEdit>(window->keyWatchView(), "watchSubject")->setText(QStringLiteral("s0"));
        test::child<QPushButton>(window->keyWatchView(), "watchAdd")->click();
        QVERIFY2(window->keyWatchView()->errorText().isEmpty(), qPrintable(window->keyWatchView()->errorText()));
        QCOMPARE(window->keyWatchView()->watch()->keys().last().policy, next);
        QTRY_VERIFY(window->keyWatchView()->table()->item(0, 0)->text().endsWith(QLatin1String("[shadow]")));

        // The key inspector: its filter and its Policy column, and a filter on the marked item finds the policy's
        // buckets.
        ui::KeyInspectorView *inspector = window->keyInspector();
        auto *filter = test::child<QComboBox>(inspector, "inspectPolicy");
        QTRY_VERIFY(filter->findData(next) > 0);
        QTRY_COMPARE(filter->itemText(filter->findData(next)), next + QStringLiteral(" [shadow]"));
        filter->setCurrentIndex(filter->findData(next));
        test::child<QTabWidget>(window.get(), "mainTabs")->setCurrentWidget(inspector);
        test::child<QPushButton>(inspector, "inspectScan")->click();
        QTRY_VERIFY(inspector->model()->rowCount() > 0);
        for (int row = 0; row < inspector->model()->rowCount(); ++row)
            QCOMPARE(inspector->model()->index(row, model::KeyInspectorModel::PolicyColumn).data().toString(),
                     next + QStringLiteral(" [shadow]"));
        // With room for the mark at 1024 pixels (it was cut to "api-ne…hadow]").
        // An item view leaves a margin of the focus frame's plus one on each side of a cell's text.
        const int cellMargin
            = inspector->table()->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, inspector->table()) + 1;
        const int inspectorNeeds
            = inspector->table()->fontMetrics().horizontalAdvance(next + QStringLiteral(" [shadow]")) + 2 * cellMargin;
        QVERIFY2(inspector->table()->columnWidth(model::KeyInspectorModel::PolicyColumn) > inspectorNeeds,
                 qPrintable(QStringLiteral("%1 px for %2")
                                .arg(inspector->table()->columnWidth(model::KeyInspectorModel::PolicyColumn))
                                .arg(inspectorNeeds)));

        // The Policies list.
        const model::PolicyListModel *list = window->policyPanel()->listModel();
        QTRY_COMPARE(list->rowCount(), 2);
        for (int row = 0; row < list->rowCount(); ++row) {
            const QString name = list->index(row, model::PolicyListModel::Name).data().toString();
            const QString mark = list->index(row, model::PolicyListModel::Shadow).data().toString();
            QCOMPARE(mark, name == next ? QStringLiteral("would reject") : QString());
        }

        // A republish that swaps them: every list and the watched row follow at the next check.
        QCOMPARE(test::storeAndPublish(*m_traffic, ns,
                                       {test::makePolicy(next, Algorithm::TokenBucket, 1, 3600000, 5),
                                        test::makePolicy(real, Algorithm::TokenBucket, 1, 3600000, 5, true)}),
                 QString());
        window->session()->libraryWatch()->checkNow();
        for (const QComboBox *box : {choice, source, filter}) {
            QTRY_COMPARE(box->itemText(box->findData(real)), real + QStringLiteral(" [shadow]"));
            QCOMPARE(box->itemText(box->findData(next)), next);
        }
        QTRY_COMPARE(window->keyWatchView()->table()->item(0, 0)->text().contains(QLatin1String("[shadow]")), false);
        QCOMPARE(inspector->model()->index(0, model::KeyInspectorModel::PolicyColumn).data().toString(), next);
    }

    // The window at 1024x700, every tab in front in turn, on a server with a long policy name: the
    // window stays that size, and every widget shown lies inside it at no less than its minimum size.
    void everyTabFitsAt1024x700()
    {
        const QString ns = test::uniqueNamespace("fit-");
        // As long as a name may be (64 characters).
        const QString longName
            = (QStringLiteral("checkout.payments.card-authorisation.retry-after-decline.") + ns).right(64);
        QCOMPARE(test::storeAndPublish(
                     *m_traffic, ns,
                     {test::makePolicy(longName, Algorithm::TokenBucket, 1, 3600000, 5),
                      test::makePolicy(ns + QStringLiteral("-next"), Algorithm::FixedWindow, 1, 3600000, 0, true)}),
                 QString());
        auto window = test::openMainWindow(profileFor(ns));
        window->session()->rates()->setIntervalMs(250);
        window->resize(1024, 700);
        // Figures in every place, the longest totals line included (rejections and would-rejects).
        QTRY_VERIFY_WITH_TIMEOUT(
            (test::fireAcquires(*m_traffic, ns, longName, 10, [](int) { return QByteArray("alice"); }),
             test::fireAcquires(*m_traffic, ns, ns + QStringLiteral("-next"), 10,
                                [](int) { return QByteArray("bob"); }),
             window->policyRates()->totalsText().contains(QLatin1String("would reject"))),
            8000);
        auto *tabs = test::child<QTabWidget>(window.get(), "mainTabs");
        QTRY_COMPARE_WITH_TIMEOUT(window->policyRates()->view()->model()->rowCount(), 2, 5000);
        QStringList problems;
        for (int index = 0; index < tabs->count(); ++index) {
            tabs->setCurrentIndex(index);
            QTest::qWait(150);
            const QSize needed = window->minimumSizeHint();
            if (needed.width() > 1024 || needed.height() > 700)
                problems << QStringLiteral("%1: the window needs at least %2x%3")
                                .arg(tabs->tabText(index))
                                .arg(needed.width())
                                .arg(needed.height());
            if (window->size() != QSize(1024, 700))
                problems << QStringLiteral("%1: the window grew to %2x%3")
                                .arg(tabs->tabText(index))
                                .arg(window->width())
                                .arg(window->height());
            const QRect inside = window->rect();
            for (const QWidget *widget : window->findChildren<QWidget *>()) {
                if (!widget->isVisibleTo(window.get()) || widget->isWindow() || widget->inherits("QMenu"))
                    continue;
                // A header's and an editor's inner line edit's size follow their view and box, whatever
                // their own hints say.
                const bool sizedByParent = widget->inherits("QHeaderView")
                    || (widget->inherits("QLineEdit") && widget->parentWidget()
                        && (widget->parentWidget()->inherits("QAbstractSpinBox")
                            || widget->parentWidget()->inherits("QComboBox")));
                const QRect shownAt(widget->mapTo(window.get(), QPoint(0, 0)), widget->size());
                const QSize least = widget->minimumSizeHint();
                const QString name = QStringLiteral("%1 %2 \"%3\"")
                                         .arg(tabs->tabText(index), QLatin1String(widget->metaObject()->className()),
                                              widget->objectName());
                if (!inside.contains(shownAt))
                    problems << QStringLiteral("%1 at %2,%3 %4x%5 is outside the window")
                                    .arg(name)
                                    .arg(shownAt.x())
                                    .arg(shownAt.y())
                                    .arg(shownAt.width())
                                    .arg(shownAt.height());
                else if (!sizedByParent && least.isValid()
                         && (widget->width() < least.width() || widget->height() < least.height()))
                    problems << QStringLiteral("%1 is %2x%3, less than its minimum %4x%5")
                                    .arg(name)
                                    .arg(widget->width())
                                    .arg(widget->height())
                                    .arg(least.width())
                                    .arg(least.height());
            }
        }
        // The long name keeps its start and end wherever it is listed, whole in its tooltip, and no
        // drop-down grows with it.
        for (const char *name : {"policyRatesTable", "policyTable", "inspectTable", "topRejectedTable"}) {
            const auto *view = test::child<QAbstractItemView>(window.get(), name);
            if (view && view->textElideMode() != Qt::ElideMiddle)
                problems << QStringLiteral("%1 does not elide in the middle").arg(QLatin1String(name));
        }
        int combosListingIt = 0;
        for (const QComboBox *combo : window->findChildren<QComboBox *>()) {
            for (int item = 0; item < combo->count(); ++item) {
                if (!combo->itemText(item).contains(longName))
                    continue;
                ++combosListingIt;
                if (combo->itemData(item, Qt::ToolTipRole).toString() != combo->itemText(item)
                    || combo->view()->textElideMode() != Qt::ElideMiddle || combo->sizeHint().width() > 400)
                    problems << QStringLiteral("%1 shows the long name whole or without its tooltip")
                                    .arg(combo->objectName());
            }
        }
        if (combosListingIt < 3) // Live, Key inspector and Test fire at least
            problems << QStringLiteral("only %1 drop-downs list the long name").arg(combosListingIt);
        problems.removeDuplicates();
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    }

    // A server frozen with SIGSTOP for a few seconds: while it does not answer, the Overview's rows,
    // sparklines and totals are marked stale and say since when; afterwards the Live chart and the
    // sparklines show the pause as a gap, not a line drawn across it.
    void aPausedServerIsAGapNotTraffic()
    {
        OwnServer own;
        const QString opened = own.open("pause-");
        QVERIFY2(opened.isEmpty(), qPrintable(opened));
        test::RedisProcess &server = own.server;
        const QString &busy = own.busy;
        const std::unique_ptr<ui::MainWindow> &window = own.window;
        ui::PolicyLiveView *live = window->liveView();
        test::child<QTabWidget>(window.get(), "mainTabs")->setCurrentWidget(live);
        live->showPolicy(busy);
        const auto fireFor = [&](int milliseconds) { QCOMPARE(own.fireFor(milliseconds), 0u); };
        // The watched keys' table shows its readings while its tab is in front.
        auto *tabs = test::child<QTabWidget>(window.get(), "mainTabs");
        auto *watched = test::child<QTableWidget>(window->keyWatchView(), "watchTable");
        const auto checkWatched = [&](const std::function<bool()> &shows) {
            tabs->setCurrentWidget(window->keyWatchView());
            const bool shown = QTest::qWaitFor(shows, 5000);
            tabs->setCurrentWidget(live);
            return shown;
        };
        QVERIFY(window->keyWatchView()->watchSubject(busy, "alice"));
        fireFor(1500);
        QVERIFY(checkWatched([&] { return watched->rowCount() == 1 && !watched->item(0, 2)->text().isEmpty(); }));
        const QAbstractItemModel *shownRates = window->policyRates()->view()->model();
        QTRY_COMPARE(shownRates->rowCount(), 1);
        QVERIFY(!shownRates->index(0, 0).data(PolicyRatesModel::StaleRole).toBool());

        server.freeze();
        const QTime frozenAt = QTime::currentTime();
        // The first sample that fails marks every figure as from before, and says since when.
        QTRY_VERIFY_WITH_TIMEOUT(shownRates->index(0, 0).data(PolicyRatesModel::StaleRole).toBool(), 5000);
        QVERIFY2(shownRates->index(0, 0).data().toString().endsWith(QLatin1String("(stale)")),
                 qPrintable(shownRates->index(0, 0).data().toString()));
        QCOMPARE(shownRates->index(0, PolicyRatesModel::AllowedPerSecond).data(Qt::ForegroundRole).value<QColor>(),
                 ui::toneColor(ui::Tone::Muted));
        const QString tip = shownRates->index(0, PolicyRatesModel::AllowedPerSecond).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("no answer from %1 since").arg(server.options().address())),
                 qPrintable(tip));
        QTRY_VERIFY(window->policyRates()->totalsText().startsWith(QLatin1String("(stale)")));
        QVERIFY2(window->policyRates()->statusText().contains(QLatin1String("Not the present")),
                 qPrintable(window->policyRates()->statusText()));
        // The watched bucket's last figures stay, greyed, saying as of when.
        QVERIFY(checkWatched([&] {
            return watched->item(0, 2)->toolTip().contains(QLatin1String("Not the present"))
                && watched->item(0, 2)->foreground().color() == ui::toneColor(ui::Tone::Muted);
        }));
        QTest::qWait(std::max(0, 3000 - frozenAt.msecsTo(QTime::currentTime())));
        server.thaw();

        // Live again: nothing stale, and both the chart and the sparkline break over the pause.
        fireFor(1500);
        QTRY_VERIFY_WITH_TIMEOUT(!shownRates->index(0, 0).data(PolicyRatesModel::StaleRole).toBool(), 5000);
        QVERIFY(!window->policyRates()->totalsText().startsWith(QLatin1String("(stale)")));
        QVERIFY(checkWatched([&] { return watched->item(0, 2)->toolTip().isEmpty(); }));
        const QList<qreal> trend = shownRates->index(0, PolicyRatesModel::Trend)
                                       .data(PolicyRatesModel::AllowedTrendRole)
                                       .value<QList<qreal>>();
        const qsizetype empty
            = std::count_if(trend.cbegin(), trend.cend(), [](qreal value) { return std::isnan(value); });
        QVERIFY2(empty >= 8, qPrintable(QStringLiteral("%1 empty slots of 250 ms in the sparkline").arg(empty)));
        QTRY_VERIFY_WITH_TIMEOUT(live->chart()->drawnSegments(0).size() >= 2, 5000);
        const QVector<QVector<QPointF>> segments = live->chart()->drawnSegments(0);
        qreal widest = 0;
        for (qsizetype i = 1; i < segments.size(); ++i)
            widest = std::max(widest, segments.at(i).first().x() - segments.at(i - 1).last().x());
        QVERIFY2(widest >= 2000, qPrintable(QStringLiteral("the widest break is %1 ms").arg(widest)));
    }

    // A server shut down, not frozen, closes the connection: no reading times out, none is sent. The
    // Overview's figures must still turn stale, saying since when, within an interval or two, not stay in
    // normal type as the present (17 s later in the report).
    void aServerShutDownIsStaleNotThePresent()
    {
        OwnServer own;
        const QString opened = own.open("down-");
        QVERIFY2(opened.isEmpty(), qPrintable(opened));
        test::RedisProcess &server = own.server;
        const QString &busy = own.busy;
        const std::unique_ptr<ui::MainWindow> &window = own.window;
        const QAbstractItemModel *shownRates = window->policyRates()->view()->model();
        QCOMPARE(own.fireFor(1500), 0u);
        QTRY_COMPARE(shownRates->rowCount(), 1);
        QTRY_VERIFY(!shownRates->index(0, 0).data(PolicyRatesModel::StaleRole).toBool());
        // The watched bucket and the Live tab's most rejected list read on their own timers.
        auto *tabs = test::child<QTabWidget>(window.get(), "mainTabs");
        auto *watched = test::child<QTableWidget>(window->keyWatchView(), "watchTable");
        QVERIFY(window->keyWatchView()->watchSubject(busy, "alice"));
        tabs->setCurrentWidget(window->keyWatchView());
        QTRY_VERIFY(watched->rowCount() == 1 && !watched->item(0, 2)->text().isEmpty());
        ui::PolicyLiveView *live = window->liveView();
        tabs->setCurrentWidget(live);
        live->showPolicy(busy);
        auto *topNote = test::child<QLabel>(live, "topNote");
        QTRY_VERIFY_WITH_TIMEOUT(topNote->text().startsWith(QLatin1String("Nobody was rejected")), 5000);
        ui::SubjectView *subject = window->subjectView();
        tabs->setCurrentWidget(subject);
        QTRY_COMPARE(subject->table()->rowCount(), 1);
        QVERIFY(subject->showSubject("alice"));
        QTRY_VERIFY(subject->statusText().startsWith(QLatin1String("Read at")));
        tabs->setCurrentWidget(live);

        // Gone just after a reading came back, so no reading is under way to fail: the case that stayed fresh.
        window->session()->rates()->setIntervalMs(1000);
        QSignalSpy read(window->session()->rates(), &model::PolicyRateSampler::sampled);
        QVERIFY(read.wait(5000));
        server.kill(); // the connection closes, as after `redis-cli shutdown`
        QElapsedTimer since;
        since.start();
        // Within the sample interval plus one.
        QTRY_VERIFY_WITH_TIMEOUT(shownRates->index(0, 0).data(PolicyRatesModel::StaleRole).toBool(), 2000);
        qInfo("marked stale %lld ms after the server went away (sampling every 1000 ms)", since.elapsed());
        const QString tip = shownRates->index(0, PolicyRatesModel::AllowedPerSecond).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("no answer from %1 since").arg(server.options().address())),
                 qPrintable(tip));
        QTRY_VERIFY(window->policyRates()->totalsText().startsWith(QLatin1String("(stale)")));
        QVERIFY2(window->policyRates()->statusText().contains(QLatin1String("Not the present")),
                 qPrintable(window->policyRates()->statusText()));
        QTRY_VERIFY2_WITH_TIMEOUT(topNote->text().contains(QLatin1String("not connected")), qPrintable(topNote->text()),
                                  3000);
        // Deployment says it cannot read the deployment, and lists no primary as if it knew.
        QTRY_VERIFY2_WITH_TIMEOUT(labelText(window.get(), "publishedRecord")
                                      .startsWith(QLatin1String("Cannot read the deployment: not connected")),
                                  qPrintable(labelText(window.get(), "publishedRecord")), 3000);
        QCOMPARE(
            test::child<QTableView>(window->findChild<ui::DeploymentView *>(), "deploymentTable")->model()->rowCount(),
            0);
        QCOMPARE(live->topTable()->rowCount(), 0);
        tabs->setCurrentWidget(window->keyWatchView());
        QTRY_VERIFY2_WITH_TIMEOUT(watched->item(0, 2)->toolTip().contains(QLatin1String("Not the present"))
                                      && watched->item(0, 2)->foreground().color() == ui::toneColor(ui::Tone::Muted),
                                  qPrintable(watched->item(0, 2)->toolTip()), 3000);
        // The By subject tab keeps alice's last figures, greyed and dated, and says why.
        tabs->setCurrentWidget(subject);
        QTableWidgetItem *available = subject->table()->item(0, ui::SubjectView::AvailableColumn);
        QTRY_VERIFY2_WITH_TIMEOUT(subject->statusText().startsWith(QLatin1String("Not the present"))
                                      && available->foreground().color() == ui::toneColor(ui::Tone::Muted),
                                  qPrintable(subject->statusText()), 3000);
        QVERIFY(!available->text().isEmpty());
        QVERIFY2(available->toolTip().contains(QLatin1String("These are the figures read at")),
                 qPrintable(available->toolTip()));
    }

    // The menus hold the main actions, each pressing its tab's own button: Connections, Import and Export
    // (File), Refresh on F5 where the tab in front reads again (View), Publish and Dry run (Limiter); every
    // entry has a mnemonic no other entry of its menu takes.
    // A library that goes away (deleted, or a restart without persistence) takes no decisions and
    // gives no counts: the last figures stay, marked as from before and saying why once, and the drift
    // banner says so at once, not at the library watch's next interval (30 s). A publish from elsewhere
    // is seen as soon: no policy of it shows without its limit.
    void aLibraryThatChangesUnderTheDashboardIsSeenAtOnce()
    {
        test::RedisProcess server(test::RedisProcess::Patience::Quick);
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        const QString ns = test::uniqueNamespace("gone-");
        const QString busy = ns + QStringLiteral("-busy"), added = ns + QStringLiteral("-added");
        QVector<model::Policy> policies{test::makePolicy(busy, Algorithm::TokenBucket, 1000, 1000)};
        redis::RedisClient traffic(server.options());
        QVERIFY(test::openAndWait(traffic));
        QCOMPARE(test::storeAndPublish(traffic, ns, policies), QString());
        model::ConnectionProfile profile = profileFor(ns);
        profile.options = server.options();
        auto window = test::openMainWindow(profile);
        window->session()->rates()->setIntervalMs(250);
        auto *banner = test::child<QLabel>(window.get(), "driftBanner");
        const QAbstractItemModel *shownRates = window->policyRates()->view()->model();
        QCOMPARE(test::fireAcquires(traffic, ns, busy, 20, [](int) { return QByteArray("alice"); }).allowed, 20u);
        QTRY_COMPARE_WITH_TIMEOUT(shownRates->rowCount(), 1, 5000);
        QTRY_VERIFY(window->session()->libraryWatch()->checks() > 0);
        QVERIFY(!shownRates->index(0, 0).data(PolicyRatesModel::StaleRole).toBool());
        QVERIFY(banner->isHidden());

        QVERIFY(test::syncCommand(traffic, {"FUNCTION", "FLUSH"}).ok());
        QTRY_VERIFY_WITH_TIMEOUT(shownRates->index(0, 0).data(PolicyRatesModel::StaleRole).toBool(), 5000);
        QCOMPARE(shownRates->rowCount(), 1);
        QVERIFY2(shownRates->index(0, 0).data().toString().endsWith(QLatin1String("(stale)")),
                 qPrintable(shownRates->index(0, 0).data().toString()));
        const QString tip = shownRates->index(0, PolicyRatesModel::AllowedPerSecond).data(Qt::ToolTipRole).toString();
        const QString problem = QLatin1String("no limiter library (publish it first)");
        QVERIFY2(tip.contains(QLatin1String("nothing counted since")) && tip.contains(problem), qPrintable(tip));
        QTRY_VERIFY(window->policyRates()->totalsText().startsWith(QLatin1String("(stale)")));
        QTRY_VERIFY(window->policyRates()->statusText().contains(problem));
        QCOMPARE(window->policyRates()->statusText().count(problem), 1);
        QTRY_VERIFY_WITH_TIMEOUT(!banner->isHidden(), 5000);
        QVERIFY2(banner->text().contains(QLatin1String("now has none")), qPrintable(banner->text()));

        policies << test::makePolicy(added, Algorithm::FixedWindow, 7, 60000);
        QCOMPARE(test::storeAndPublish(traffic, ns, policies), QString());
        QTRY_VERIFY_WITH_TIMEOUT(!shownRates->index(0, 0).data(PolicyRatesModel::StaleRole).toBool(), 5000);
        QVERIFY(!window->policyRates()->totalsText().startsWith(QLatin1String("(stale)")));
        QTRY_VERIFY_WITH_TIMEOUT(banner->isHidden(), 5000);
        QTRY_COMPARE_WITH_TIMEOUT(shown(shownRates, added, PolicyRatesModel::Limit).toString(),
                                  QStringLiteral("7 per minute"), 5000);
    }

    void menusHoldTheMainActions()
    {
        const QString ns = test::uniqueNamespace("menu-");
        QCOMPARE(test::storeAndPublish(
                     *m_traffic, ns, {test::makePolicy(ns + QStringLiteral("-api"), Algorithm::TokenBucket, 5, 60000)}),
                 QString());
        auto window = test::openMainWindow(profileFor(ns));
        window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(window.get()));
        QStringList names;
        for (const QAction *title : window->menuBar()->actions()) {
            QHash<QChar, QString> owners;
            for (const QAction *entry : title->menu()->actions()) {
                if (entry->isSeparator())
                    continue;
                names << entry->objectName();
                const QString text = entry->text();
                const qsizetype mark = text.indexOf(QLatin1Char('&'));
                QVERIFY2(mark >= 0 && mark + 1 < text.size(), qPrintable(text + QLatin1String(" has no mnemonic")));
                const QChar letter = text.at(mark + 1).toLower();
                QVERIFY2(!owners.contains(letter),
                         qPrintable(QStringLiteral("%1 and %2 both take %3 in %4")
                                        .arg(owners.value(letter), text, letter, title->text())));
                owners.insert(letter, text);
            }
        }
        for (const char *name : {"connectionsAction", "importPoliciesAction", "exportPoliciesAction", "refreshAction",
                                 "publishAction", "dryRunAction"})
            QVERIFY2(names.contains(QLatin1String(name)), name);

        // F5 presses the Refresh of the tab in front, and is off where there is nothing to read again.
        auto *tabs = test::child<QTabWidget>(window.get(), "mainTabs");
        auto *refresh = window->findChild<QAction *>(QStringLiteral("refreshAction"));
        const std::pair<QWidget *, QAction *> tabRefreshes[]
            = {{window->keyInspector(), window->keyInspector()->refreshAction()},
               {window->deploymentView(), window->deploymentView()->refreshAction()},
               {window->historyView(), window->historyView()->refreshAction()}};
        for (const auto &[tab, tabRefresh] : tabRefreshes) {
            tabs->setCurrentWidget(tab);
            auto *button = test::child<QPushButton>(tab, "refreshButton");
            QTRY_VERIFY(button->isEnabled() && refresh->isEnabled());
            QSignalSpy pressed(tabRefresh, &QAction::triggered);
            QTest::keyClick(window.get(), Qt::Key_F5);
            QTRY_COMPARE(pressed.count(), 1);
        }
        tabs->setCurrentIndex(0);
        QVERIFY(!refresh->isEnabled());

        // Dry run from the Limiter menu: the Deployment tab in front, its review open.
        auto *dryRun = window->findChild<QAction *>(QStringLiteral("dryRunAction"));
        QTRY_VERIFY(test::child<QPushButton>(window->deploymentView(), "dryRunButton")->isEnabled());
        QCOMPARE(dryRun, window->deploymentView()->dryRunAction()); // the menu entry is the button's own command
        QVERIFY(dryRun->isEnabled());
        dryRun->trigger();
        QDialog *review = nullptr;
        QTRY_VERIFY((review = test::openDialog<QDialog>("dryRunDialog")));
        QCOMPARE(tabs->currentWidget(), static_cast<QWidget *>(window->deploymentView()));
        review->reject();

        // Import and Export from the File menu ask for their file, on the Policies tab.
        for (const char *name : {"importPoliciesAction", "exportPoliciesAction"}) {
            auto *action = window->findChild<QAction *>(QLatin1String(name));
            QTRY_VERIFY(test::child<QPushButton>(window->policyPanel(),
                                                 QByteArray(name).replace("Action", "Button").constData())
                            ->isEnabled());
            QVERIFY2(action->isEnabled(), name);
            bool asked = false;
            QTimer answer;
            connect(&answer, &QTimer::timeout, [&] {
                if (auto *dialog = qobject_cast<QFileDialog *>(QApplication::activeModalWidget())) {
                    asked = true;
                    dialog->reject();
                }
            });
            answer.start(100);
            action->trigger(); // returns once the file dialog is answered
            answer.stop();
            QVERIFY2(asked, name);
            QCOMPARE(tabs->currentWidget(), static_cast<QWidget *>(window->policyPanel()));
        }

        // After a connection switch the menus hold the new views' commands, once each, in the same places.
        const auto entries = [&window] {
            QStringList found;
            for (const QAction *title : window->menuBar()->actions())
                for (const QAction *entry : title->menu()->actions())
                    found << (entry->isSeparator() ? QStringLiteral("-") : entry->objectName());
            return found;
        };
        const QStringList before = entries();
        window->setSession(std::make_unique<model::ConnectionSession>(profileFor(ns), profileFor(ns).options));
        QCOMPARE(entries(), before);
        auto *fileMenu = window->menuBar()->actions().constFirst()->menu();
        QVERIFY(fileMenu->actions().contains(window->policyPanel()->importAction()));
        QVERIFY(window->findChild<QAction *>(QStringLiteral("dryRunAction"))
                == window->deploymentView()->dryRunAction());
    }

    // The Overview counts the subjects a penalty blocks now, per policy, and says what the rules did.
    void overviewCountsBlockedSubjects()
    {
        const QString ns = test::uniqueNamespace("blocked-");
        const QString login = ns + QStringLiteral("-login");
        const QString plain = ns + QStringLiteral("-plain");
        auto penalised = test::makePolicy(login, Algorithm::TokenBucket, 1, 60000);
        penalised.blockMs = 600000;
        penalised.overrides = {{"abuser-7", false, model::SubjectOverride::Kind::Deny, 0, 0}};
        QCOMPARE(test::storeAndPublish(*m_traffic, ns,
                                       {penalised, test::makePolicy(plain, Algorithm::FixedWindow, 5, 60000)}),
                 QString());
        auto window = test::openMainWindow(profileFor(ns));
        window->session()->rates()->setIntervalMs(250);
        const QAbstractItemModel *rates = window->policyRates()->view()->model();
        QTRY_COMPARE_WITH_TIMEOUT(rates->rowCount(), 2, 5000);
        for (const QByteArray &subject : {QByteArray("alice"), QByteArray("bob")})
            QCOMPARE(test::fireAcquires(*m_traffic, ns, login, 2, [subject](int) { return subject; }).rejected, 1u);
        QCOMPARE(test::fireAcquires(*m_traffic, ns, login, 3, [](int) { return QByteArray("abuser-7"); }).rejected, 3u);
        QTRY_COMPARE_WITH_TIMEOUT(shown(rates, login, PolicyRatesModel::Blocked).toString(), QStringLiteral("2"),
                                  12000);
        const QString tip = shown(rates, login, PolicyRatesModel::Blocked, Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QLatin1String("3 rejected by deny rules, 2 penalties started")), qPrintable(tip));
        QCOMPARE(shown(rates, plain, PolicyRatesModel::Blocked).toString(), QStringLiteral("\u2013"));
    }

    // The Overview row alone says who is limited, by which limit and why: the policy's limit in words
    // and the subject it rejects most now; its one action shows that subject's bucket.
    void overviewRowSaysWhoIsLimited()
    {
        const QString ns = test::uniqueNamespace("who-");
        const QString busy = ns + QStringLiteral("-busy");
        QCOMPARE(test::storeAndPublish(*m_traffic, ns, {test::makePolicy(busy, Algorithm::TokenBucket, 5, 60000, 10)}),
                 QString());
        auto window = test::openMainWindow(profileFor(ns));
        window->session()->rates()->setIntervalMs(250);
        const QAbstractItemModel *rates = window->policyRates()->view()->model();
        QTRY_COMPARE_WITH_TIMEOUT(rates->rowCount(), 1, 5000);
        QTRY_COMPARE(shown(rates, busy, PolicyRatesModel::Limit).toString(), QStringLiteral("5 per minute, burst 10"));
        QCOMPARE(shown(rates, busy, PolicyRatesModel::TopSubject).toString(), QStringLiteral("\u2013"));

        // Mallory is rejected 30 times, bob twice.
        QCOMPARE(test::fireAcquires(*m_traffic, ns, busy, 12, [](int) { return QByteArray("bob"); }).rejected, 2u);
        QCOMPARE(test::fireAcquires(*m_traffic, ns, busy, 40, [](int) { return QByteArray("mallory"); }).rejected, 30u);
        QTRY_COMPARE_WITH_TIMEOUT(shown(rates, busy, PolicyRatesModel::TopSubject).toString(),
                                  QStringLiteral("mallory (%1 rejected)").arg(model::formatCount(30)), 8000);
        QVERIFY(shown(rates, busy, PolicyRatesModel::TopSubject, Qt::ToolTipRole)
                    .toString()
                    .contains(QLatin1String("rejections in the minute before")));

        // The action: Watched keys, on mallory's bucket.
        auto *watch = test::child<QPushButton>(window.get(), "watchOverviewTopSubject");
        QVERIFY(!watch->isEnabled()); // nothing selected yet
        window->policyRates()->view()->selectRow(0);
        QTRY_VERIFY(watch->isEnabled());
        watch->click();
        auto *tabs = test::child<QTabWidget>(window.get(), "mainTabs");
        QTRY_COMPARE(tabs->currentWidget(), static_cast<QWidget *>(window->keyWatchView()));
        auto *watched = test::child<QTableWidget>(window->keyWatchView(), "watchTable");
        QTRY_VERIFY(watched->rowCount() == 1);
        QStringList cells;
        for (int column = 0; column < watched->columnCount(); ++column)
            cells << (watched->item(0, column) ? watched->item(0, column)->text() : QString());
        QVERIFY2(cells.join(QLatin1Char(' ')).contains(QLatin1String("mallory")),
                 qPrintable(cells.join(QLatin1Char('|'))));
    }

    // The controls under `root` a keyboard can reach that a screen reader would have no name for.
    static QStringList unnamedControls(QWidget *root, const QString &where)
    {
        QStringList unnamed;
        for (QWidget *widget : root->findChildren<QWidget *>()) {
            const bool control = qobject_cast<QAbstractButton *>(widget) || qobject_cast<QComboBox *>(widget)
                || qobject_cast<QAbstractSpinBox *>(widget) || qobject_cast<QAbstractItemView *>(widget)
                || (qobject_cast<QLineEdit *>(widget) && !qobject_cast<QAbstractSpinBox *>(widget->parentWidget())
                    && !qobject_cast<QComboBox *>(widget->parentWidget()));
            if (!control || !widget->isVisibleTo(root) || widget->focusPolicy() == Qt::NoFocus)
                continue;
            QAccessibleInterface *accessible = QAccessible::queryAccessibleInterface(widget);
            if (!accessible || accessible->text(QAccessible::Name).trimmed().isEmpty())
                unnamed << QStringLiteral("%1: %2 \"%3\"")
                               .arg(where, QLatin1String(widget->metaObject()->className()), widget->objectName());
        }
        return unnamed;
    }

    // The same walk through every dialog and window the dashboard opens: each is opened as an operator would,
    // walked and closed.
    void everyDialogControlHasAnAccessibleName()
    {
        const QString ns = test::uniqueNamespace("a11y-dialogs-");
        QCOMPARE(test::storeAndPublish(
                     *m_traffic, ns, {test::makePolicy(ns + QStringLiteral("-api"), Algorithm::TokenBucket, 5, 1000)}),
                 QString());
        auto window = test::openMainWindow(profileFor(ns));
        QTemporaryDir settingsDir;
        QSettings settings(settingsDir.filePath(QStringLiteral("sluice.conf")), QSettings::IniFormat);
        test::FakeSecretStore secrets;
        window->setProfileStorage(&settings, &secrets);
        auto *tabs = test::child<QTabWidget>(window.get(), "mainTabs");
        QStringList unnamed;
        const auto walk = [&](const char *name, const std::function<void()> &open) {
            open();
            QWidget *dialog = nullptr;
            QTRY_VERIFY2((dialog = window->findChild<QWidget *>(QLatin1String(name))) && dialog->isVisible(), name);
            unnamed << unnamedControls(dialog, QLatin1String(name));
            // Every button with words has an Alt+letter (the dialogs' keyboard issue: "Publish version N" had none).
            for (const QAbstractButton *button : dialog->findChildren<QAbstractButton *>())
                if (button->isVisibleTo(dialog) && !button->text().isEmpty()
                    && !QString(button->text()).remove(QLatin1String("&&")).contains(QLatin1Char('&')))
                    unnamed
                        << QStringLiteral("%1: button \"%2\" has no mnemonic").arg(QLatin1String(name), button->text());
            dialog->close();
            QTRY_VERIFY2(!dialog->isVisible() || !window->findChild<QWidget *>(QLatin1String(name)), name);
        };
        tabs->setCurrentWidget(window->policyPanel());
        walk("policyEditor", [&] { test::child<QPushButton>(window.get(), "newPolicyButton")->click(); });
        walk("namespaceListsDialog", [&] { test::child<QPushButton>(window.get(), "namespaceListsButton")->click(); });
        walk("publishReview", [&] { window->publishLibrary(); });
        walk("dryRunDialog", [&] { window->deploymentView()->dryRunAction()->trigger(); });
        walk("connectionManager", [&] { window->openConnectionManager(); });
        walk("shortcutsDialog", [&] { window->findChild<QAction *>(QStringLiteral("shortcutsAction"))->trigger(); });
        walk("helpWindow", [&] { window->findChild<QAction *>(QStringLiteral("userGuideAction"))->trigger(); });
        // The Live tab's range picker, once something of the policy is kept to pick from.
        const QString api = ns + QStringLiteral("-api");
        tabs->setCurrentWidget(window->liveView());
        window->liveView()->showPolicy(api);
        QTRY_VERIFY_WITH_TIMEOUT(
            window->session()->rates()->history(api) && window->session()->rates()->history(api)->latest(), 10000);
        walk("timeRangeDialog", [&] {
            auto *span = test::child<QComboBox>(window->liveView(), "liveSpan");
            span->setCurrentIndex(span->count() - 1);
        });
        QVERIFY2(unnamed.isEmpty(), qPrintable(unnamed.join(QLatin1Char('\n'))));
    }

    // Every control an operator can reach has a name a screen reader says: its own text, a buddy
    // label's, or an accessible name; the test walks every tab and names the ones without.
    void everyControlHasAnAccessibleName()
    {
        const QString ns = test::uniqueNamespace("a11y-");
        QCOMPARE(test::storeAndPublish(
                     *m_traffic, ns, {test::makePolicy(ns + QStringLiteral("-api"), Algorithm::TokenBucket, 5, 1000)}),
                 QString());
        auto window = test::openMainWindow(profileFor(ns));
        auto *tabs = test::child<QTabWidget>(window.get(), "mainTabs");
        QStringList unnamed;
        for (int index = 0; index < tabs->count(); ++index) {
            tabs->setCurrentIndex(index);
            QTest::qWait(50);
            unnamed << unnamedControls(tabs->currentWidget(), tabs->tabText(index));
        }
        QVERIFY2(unnamed.isEmpty(), qPrintable(unnamed.join(QLatin1Char('\n'))));
    }

    // The Live tab's most rejected list is the difference of the library's summaries between its polls, over
    // the window picked. When the rejections stop, it keeps the last names, greyed and dated. (The summaries
    // are given at the poller's signal, the poller stopped: the test decides what was counted when.)
    void mostRejectedListOutlastsTheTraffic()
    {
        const QString ns = test::uniqueNamespace("quiet-");
        const QString busy = ns + QStringLiteral("-busy");
        QCOMPARE(test::storeAndPublish(*m_traffic, ns, {test::makePolicy(busy, Algorithm::TokenBucket, 1, 60000)}),
                 QString());
        auto window = test::openMainWindow(profileFor(ns));
        ui::PolicyLiveView *live = window->liveView();
        test::child<QTabWidget>(window.get(), "mainTabs")->setCurrentWidget(live);
        live->showPolicy(busy);
        auto *poller = live->findChild<model::TopRejectedPoller *>();
        QVERIFY(poller);
        poller->stop();
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        const auto summary = [&](qint64 at, quint64 count) {
            model::MostRejectedReading reading;
            reading.epochMs = now - 4000; // loaded as the first summary was read
            reading.nowMs = at;
            reading.subjects.insert("mallory", {count, 0});
            return model::TopRejected{busy, at, {{QStringLiteral("node"), reading}}, {}};
        };
        auto *note = test::child<QLabel>(live, "topNote");
        Q_EMIT poller->updated(summary(now - 4000, 10));
        QCOMPARE(live->topTable()->rowCount(), 0); // read as the library was loaded: nothing counted yet
        QVERIFY2(note->text().startsWith(QLatin1String("Reading")), qPrintable(note->text()));
        Q_EMIT poller->updated(summary(now - 2000, 40));
        QCOMPARE(live->topTable()->item(0, 0)->text(), QStringLiteral("mallory"));
        QCOMPARE(live->topTable()->item(0, 1)->text(), QLocale().toString(30));
        QVERIFY(live->topTable()->item(0, 0)->foreground().color() != ui::toneColor(ui::Tone::Muted));

        Q_EMIT poller->updated(summary(now + 12000, 40)); // 14 s without a rejection: nobody in the last 10 s
        QCOMPARE(live->topTable()->rowCount(), 1);
        QCOMPARE(live->topTable()->item(0, 0)->text(), QStringLiteral("mallory"));
        QCOMPARE(live->topTable()->item(0, 0)->foreground().color(), ui::toneColor(ui::Tone::Muted));
        QVERIFY2(note->text().contains(QLatin1String("10 s")) && note->text().contains(QLatin1String("until")),
                 qPrintable(note->text()));

        // Over the last minute: every difference the tab saw, each counted once.
        Q_EMIT poller->updated(summary(now + 14000, 44));
        auto *over = test::child<QComboBox>(live, "topWindow");
        over->setCurrentIndex(over->findData(60 * 1000));
        QCOMPARE(live->topTable()->rowCount(), 1);
        QCOMPARE(live->topTable()->item(0, 1)->text(), QLocale().toString(34));
        QVERIFY2(note->text().startsWith(QLatin1String("Rejections in the")), qPrintable(note->text()));
    }
};

QTEST_MAIN(TestDashboardTrust)
#include "tst_dashboard_trust.moc"
