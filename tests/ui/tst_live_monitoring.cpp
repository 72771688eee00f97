// SPDX-License-Identifier: GPL-3.0-or-later
// Live monitoring in the dashboard, offscreen, on a real redis-server with real traffic: the
// overview's rates match the decisions taken, most rejections first as they change, and the
// dashboard's own load is shown; the policy chart follows, pauses, zooms and exports; the most
// rejected list names the subjects rejected; the per-key view watches typed subjects, subjects
// from that list and keys of the seed layouts.

#include "model/connection/connection_session.h"
#include "model/limiter/bucket_key.h"
#include "model/limiter/seed_layouts.h"
#include "model/monitor/key_watch.h"
#include "model/policy/policy_store.h"
#include "model/tables/policy_rates_model.h"
#include "support/limiter_support.h"
#include "support/publish_support.h"
#include "support/redis_process.h"
#include "support/sync_command.h"
#include "support/test_services.h"
#include "support/traffic_support.h"
#include "support/widget_driving.h"
#include "support/window_support.h"
#include "ui/monitor/key_watch_view.h"
#include "ui/monitor/policy_live_view.h"
#include "ui/monitor/policy_rates_table.h"
#include "ui/widgets/time_series_chart.h"
#include "ui/window/main_window.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QChartView>
#include <QComboBox>
#include <QCursor>
#include <QDateTime>
#include <QDateTimeEdit>
#include <QDialog>
#include <QDialogButtonBox>
#include <QElapsedTimer>
#include <QFile>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>

#include <algorithm>
#include <limits>

using namespace sluice;
using model::Algorithm;
using model::ConnectionProfile;
using model::PolicyRatesModel;

using test::Fired;

class TestLiveMonitoring : public QObject {
    Q_OBJECT

    test::RedisProcess m_server;
    std::unique_ptr<redis::RedisClient> m_traffic;
    QString m_namespace;
    model::LibraryOwner owner() const { return {m_namespace, 0}; }

    ConnectionProfile profile() const
    {
        ConnectionProfile profile;
        profile.name = QStringLiteral("live");
        profile.options = m_server.options();
        profile.ns = m_namespace;
        return profile;
    }

    void publish(const QVector<model::Policy> &policies)
    {
        const QString error = test::storeAndPublish(*m_traffic, m_namespace, policies);
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    // Pipelined acquires at one subject; waits for every reply.
    Fired fire(const QString &policy, const QByteArray &subject, int calls)
    {
        return test::fireAcquires(*m_traffic, m_namespace, policy, calls, [&](int) { return subject; });
    }

    // Waits for the session's next sample; returns it.
    static model::RateSample nextSample(model::ConnectionSession *session)
    {
        std::optional<model::RateSample> next;
        QObject context;
        QObject::connect(session->rates(), &model::PolicyRateSampler::sampled, &context,
                         [&](const model::RateSample &sample) { next = sample; });
        test::spinUntil([&] { return next.has_value(); }, 5000);
        return next.value_or(model::RateSample{});
    }

    static QStringList shownOrder(QTableView *view)
    {
        QStringList names;
        for (int row = 0; row < view->model()->rowCount(); ++row)
            names << view->model()->index(row, PolicyRatesModel::Name).data().toString();
        return names;
    }

    static QVariant shown(QTableView *view, const QString &policy, int column, int role = Qt::DisplayRole)
    {
        for (int row = 0; row < view->model()->rowCount(); ++row)
            if (view->model()->index(row, PolicyRatesModel::Name).data().toString() == policy)
                return view->model()->index(row, column).data(role);
        return {};
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_traffic = std::make_unique<redis::RedisClient>(m_server.options());
        QVERIFY(test::openAndWait(*m_traffic));
    }

    void init() { m_namespace = test::uniqueNamespace("live-"); }

    void overviewRanksByRejectionsAndMatchesTheTraffic()
    {
        // Buckets that refill one token an hour: the counts below do not depend on when they run.
        publish({test::makePolicy(QStringLiteral("api"), Algorithm::TokenBucket, 1, 3600000, 10),
                 test::makePolicy(QStringLiteral("search"), Algorithm::TokenBucket, 1, 3600000, 100),
                 test::makePolicy(QStringLiteral("quiet"), Algorithm::TokenBucket, 5, 1000)});
        auto window = test::openMainWindow(profile());
        QTableView *view = window->policyRates()->view();
        // The rates model and the ranking proxy the overview shows it through, checked on every change below.
        auto *ranked = qobject_cast<QSortFilterProxyModel *>(view->model());
        QVERIFY(ranked && qobject_cast<PolicyRatesModel *>(ranked->sourceModel()));
        QAbstractItemModelTester ratesTester(ranked->sourceModel(),
                                             QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester rankedTester(ranked, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model::ConnectionSession *session = window->session();
        QTRY_VERIFY_WITH_TIMEOUT(session->rates()->lastSample().spanMs > 0, 5000);
        QCOMPARE(view->model()->rowCount(), 3);

        // Traffic right after a sample lands whole in the next one.
        nextSample(session);
        const Fired api = fire(QStringLiteral("api"), "a", 50);
        const Fired search = fire(QStringLiteral("search"), "s", 30);
        QCOMPARE(api.rejected, 40u);
        QCOMPARE(search.rejected, 0u);
        model::RateSample sample = nextSample(session);
        QVERIFY(sample.spanMs > 0);
        QCOMPARE(shownOrder(view),
                 (QStringList{QStringLiteral("api"), QStringLiteral("search"), QStringLiteral("quiet")}));
        QCOMPARE(shown(view, QStringLiteral("api"), PolicyRatesModel::RejectedPerSecond, PolicyRatesModel::SortRole)
                     .toDouble(),
                 40 * 1000.0 / sample.spanMs);
        QCOMPARE(shown(view, QStringLiteral("api"), PolicyRatesModel::AllowedPerSecond, PolicyRatesModel::SortRole)
                     .toDouble(),
                 10 * 1000.0 / sample.spanMs);
        QCOMPARE(shown(view, QStringLiteral("search"), PolicyRatesModel::AllowedPerSecond, PolicyRatesModel::SortRole)
                     .toDouble(),
                 30 * 1000.0 / sample.spanMs);
        QCOMPARE(shown(view, QStringLiteral("api"), PolicyRatesModel::RejectedShare).toString(),
                 QStringLiteral("80.0%"));
        QCOMPARE(shown(view, QStringLiteral("quiet"), PolicyRatesModel::RejectedShare).toString(),
                 QStringLiteral("\u2013"));
        QVERIFY(shown(view, QStringLiteral("api"), PolicyRatesModel::AllowedPerSecond, Qt::ToolTipRole)
                    .toString()
                    .startsWith(QLatin1String("10 allowed and 40 rejected")));

        // What matters now changes: search is rejected most, api not at all. While the pointer is over the rows
        // they keep their places (the row under it stays the one it points at) and their figures change; once
        // it leaves, the order follows.
        QEvent enter(QEvent::Enter);
        QCoreApplication::sendEvent(view->viewport(), &enter);
        const Fired searchAgain = fire(QStringLiteral("search"), "s", 90);
        QCOMPARE(searchAgain.rejected, 20u);
        sample = nextSample(session);
        QCOMPARE(shown(view, QStringLiteral("search"), PolicyRatesModel::RejectedPerSecond, PolicyRatesModel::SortRole)
                     .toDouble(),
                 20 * 1000.0 / sample.spanMs);
        QCOMPARE(shownOrder(view),
                 (QStringList{QStringLiteral("api"), QStringLiteral("search"), QStringLiteral("quiet")}));
        QEvent leave(QEvent::Leave);
        QCoreApplication::sendEvent(view->viewport(), &leave);
        QCOMPARE(shownOrder(view),
                 (QStringList{QStringLiteral("search"), QStringLiteral("api"), QStringLiteral("quiet")}));

        // The trend holds one value per sample so far, newest last.
        const QList<qreal> trend
            = shown(view, QStringLiteral("search"), PolicyRatesModel::Trend, PolicyRatesModel::RejectedTrendRole)
                  .value<QList<qreal>>();
        QVERIFY(trend.size() >= 3);
        QCOMPARE(trend.last(), 20 * 1000.0 / sample.spanMs);
        QCOMPARE(trend.at(trend.size() - 2), 0.0);

        // The dashboard says what it costs Redis, and it is small.
        QTRY_VERIFY(window->policyRates()->loadText().contains(QLatin1String("commands/s")));
        const double load
            = window->policyRates()->loadText().section(QLatin1Char(':'), 1).section(QLatin1Char(' '), 1, 1).toDouble();
        QVERIFY2(load > 0.5 && load < 10, qPrintable(window->policyRates()->loadText()));
        QVERIFY(window->policyRates()->statusText().isEmpty());

        // A tooltip shown over a cell follows the cell's figure at the next sample (it kept the old one).
        const auto searchCell = [view] { return view->model()->index(0, PolicyRatesModel::AllowedPerSecond); };
        const QPoint over = view->viewport()->mapToGlobal(view->visualRect(searchCell()).center());
        QCursor::setPos(over);
        const QString tipBefore = searchCell().data(Qt::ToolTipRole).toString();
        QToolTip::showText(over, tipBefore, view->viewport());
        QTRY_VERIFY(QToolTip::isVisible());
        QCOMPARE(fire(QStringLiteral("search"), "s", 7).rejected, 7u);
        nextSample(session);
        QCOMPARE(shownOrder(view).value(0), QStringLiteral("search"));
        QVERIFY(searchCell().data(Qt::ToolTipRole).toString() != tipBefore);
        QTRY_COMPARE(QToolTip::text(), searchCell().data(Qt::ToolTipRole).toString());
        QToolTip::hideText();

        // A wider window widens the trend too, not only the names (at 1920 pixels the sparklines stayed 160 wide).
        const auto trendWidth = [view] { return view->horizontalHeader()->sectionSize(PolicyRatesModel::Trend); };
        window->resize(1024, 700);
        QTRY_VERIFY2(trendWidth() >= 140 && trendWidth() <= 200, qPrintable(QString::number(trendWidth())));
        window->resize(1920, 1080);
        QTRY_VERIFY2(trendWidth() >= 500, qPrintable(QString::number(trendWidth())));
        QCOMPARE(shown(view, QStringLiteral("api"), PolicyRatesModel::RejectedPerSecond, PolicyRatesModel::SortRole)
                     .toDouble(),
                 0.0);
    }

    void policyChartFollowsPausesZoomsAndExports()
    {
        publish({test::makePolicy(QStringLiteral("api"), Algorithm::TokenBucket, 1, 3600000, 10),
                 test::makePolicy(QStringLiteral("other"), Algorithm::TokenBucket, 1, 3600000, 10)});
        auto window = test::openMainWindow(profile());
        window->resize(1100, 700);
        model::ConnectionSession *session = window->session();
        ui::PolicyLiveView *live = window->liveView();
        // Double-click on the overview's row opens the policy's chart.
        QTRY_VERIFY_WITH_TIMEOUT(window->policyRates()->view()->model()->rowCount() == 2, 5000);
        QTableView *overview = window->policyRates()->view();
        const QModelIndex apiRow = overview->model()->index(
            overview->model()->index(0, 0).data().toString() == QLatin1String("api") ? 0 : 1, 0);
        Q_EMIT overview->activated(apiRow);
        QCOMPARE(test::child<QTabWidget>(window.get(), "mainTabs")->currentWidget(), live);
        QCOMPARE(live->policy(), QStringLiteral("api"));

        nextSample(session);
        const Fired fired = fire(QStringLiteral("api"), "alice", 50);
        QCOMPARE(fired.rejected, 40u);
        fire(QStringLiteral("api"), "bob", 13); // 10 pass, 3 rejected
        const model::RateSample sample = nextSample(session);
        const double rejectedPerSecond = 43 * 1000.0 / sample.spanMs;
        ui::TimeSeriesChart *chart = live->chart();
        QTRY_COMPARE(chart->shownSpan().second, sample.endMs);
        QVERIFY2(chart->valuesAt(sample.endMs)
                     .contains(QStringLiteral("rejected/s %1").arg(QLocale().toString(rejectedPerSecond, 'f', 0))),
                 qPrintable(chart->valuesAt(sample.endMs)));

        // Hovering over the plot says the time and values there.
        auto *canvas = test::child<QChartView>(chart, "chartView");
        const QRectF plot = canvas->chart()->plotArea();
        QTest::mouseMove(
            canvas->viewport(),
            canvas->mapFromScene(canvas->chart()->mapToScene(QPointF(plot.right() - 1, plot.center().y()))));
        QTRY_VERIFY2(chart->hoverText().contains(QLatin1String("allowed/s")), qPrintable(chart->hoverText()));
        QTest::mouseMove(
            canvas->viewport(),
            canvas->mapFromScene(canvas->chart()->mapToScene(QPointF(plot.left() + 1, plot.center().y()))));
        QTRY_VERIFY2(chart->hoverText().endsWith(QLatin1String("no samples yet")), qPrintable(chart->hoverText()));

        // The top list names the subjects actually rejected, most first.
        QTableWidget *top = live->topTable();
        QTRY_COMPARE_WITH_TIMEOUT(top->rowCount(), 2, 5000);
        QCOMPARE(top->item(0, 0)->text(), QStringLiteral("alice"));
        QCOMPARE(top->item(0, 1)->text(), QStringLiteral("40"));
        QCOMPARE(top->item(1, 0)->text(), QStringLiteral("bob"));
        QCOMPARE(top->item(1, 1)->text(), QStringLiteral("3"));
        QSignalSpy watch(live, &ui::PolicyLiveView::watchRequested);
        top->selectRow(1);
        test::click(live, "watchTopSubject");
        QCOMPARE(watch.size(), 1);
        QCOMPARE(watch.first().at(1).toByteArray(), QByteArray("bob"));

        // Paused, the chart stays as it was while sampling goes on; resumed, it catches up.
        test::click(live, "livePause");
        QVERIFY(live->isPaused());
        QVERIFY(live->stateText().startsWith(QLatin1String("Paused at")));
        const model::RateSample later = nextSample(session);
        QCOMPARE(chart->shownSpan().second, sample.endMs);
        test::click(live, "livePause");
        QCOMPARE(chart->shownSpan().second, later.endMs);

        // Dragging across the plot zooms into that span; Reset zoom goes back to the window.
        const QPoint left = canvas->mapFromScene(
            canvas->chart()->mapToScene(QPointF(plot.left() + plot.width() * 0.6, plot.center().y())));
        const QPoint right
            = canvas->mapFromScene(canvas->chart()->mapToScene(QPointF(plot.right() - 5, plot.center().y())));
        QTest::mousePress(canvas->viewport(), Qt::LeftButton, {}, left);
        // A drag: a move with the button held (QTest::mouseMove would send none).
        QMouseEvent drag(QEvent::MouseMove, right, canvas->viewport()->mapToGlobal(right), Qt::NoButton, Qt::LeftButton,
                         Qt::NoModifier);
        QApplication::sendEvent(canvas->viewport(), &drag);
        QTest::mouseRelease(canvas->viewport(), Qt::LeftButton, {}, right);
        QTRY_VERIFY(chart->isZoomed());
        const auto zoomed = chart->shownSpan();
        QVERIFY2(zoomed.second - zoomed.first < 5 * 60 * 1000 / 2, "zoomed in");
        QVERIFY(test::child<QPushButton>(live, "liveResetZoom")->isEnabled());
        nextSample(session);
        QCOMPARE(chart->shownSpan(), zoomed); // new samples do not move a zoomed chart
        test::click(live, "liveResetZoom");
        QVERIFY(!chart->isZoomed());
        QCOMPARE(chart->shownSpan().second - chart->shownSpan().first, 5 * 60 * 1000);
        chart->zoomTo(zoomed.first, zoomed.second);
        QTest::mouseClick(canvas->viewport(), Qt::RightButton, {}, left); // right-click goes back too
        QVERIFY(!chart->isZoomed());
        QVERIFY(!test::child<QPushButton>(live, "liveResetZoom")->isEnabled());

        // Exports: the chart as an image, the shown samples as CSV with exact counts.
        QTemporaryDir dir;
        QString error;
        QVERIFY2(live->exportPng(dir.filePath(QStringLiteral("api.png")), &error), qPrintable(error));
        const QImage image(dir.filePath(QStringLiteral("api.png")));
        QVERIFY(image.width() > 300 && image.height() > 200);
        QVERIFY2(live->exportCsv(dir.filePath(QStringLiteral("api.csv")), &error), qPrintable(error));
        QFile csv(dir.filePath(QStringLiteral("api.csv")));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = csv.readAll().trimmed().split('\n');
        QCOMPARE(lines.first(), QByteArray("time,span_ms,allowed,rejected,allowed_per_s,rejected_per_s"));
        const QByteArray expected
            = QStringLiteral("%1,%2,20,43,")
                  .arg(QDateTime::fromMSecsSinceEpoch(sample.endMs, Qt::UTC).toString(Qt::ISODateWithMs))
                  .arg(sample.spanMs)
                  .toUtf8();
        QVERIFY2(std::any_of(lines.cbegin(), lines.cend(),
                             [&](const QByteArray &line) { return line.startsWith(expected); }),
                 expected.constData());
        QVERIFY(!live->exportCsv(dir.filePath(QStringLiteral("missing/folder/api.csv")), &error));
        QVERIFY2(error.contains(QLatin1String("cannot write")), qPrintable(error));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("missing/folder/api.csv"))));
        QVERIFY(!live->exportPng(dir.filePath(QStringLiteral("missing/folder/api.png")), &error));
        QVERIFY2(error.contains(QLatin1String("cannot write")), qPrintable(error));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("missing/folder/api.png"))));

        // Interval and retention are the session's.
        test::child<QComboBox>(live, "liveInterval")->setCurrentText(QStringLiteral("250 ms"));
        QCOMPARE(session->rates()->intervalMs(), 250);
        test::child<QComboBox>(live, "liveRetention")->setCurrentText(QStringLiteral("24 hours"));
        QCOMPARE(session->rates()->retentionMs(), 24LL * 3600 * 1000);
        // The shortest of a few spans: a busy machine delays a timer now and then, never all of them
        // by the 750 ms that would make a 250 ms interval look like the old 1 s one.
        qint64 shortest = std::numeric_limits<qint64>::max();
        for (int i = 0; i < 3; ++i)
            shortest = std::min(shortest, qint64(nextSample(session).spanMs));
        QVERIFY2(shortest < 750, qPrintable(QString::number(shortest)));
    }

    // A saved profile's watch list survives a switch to another profile and back, and a restart (a new
    // window on the same settings); deleting the profile's list leaves the next window's empty.
    // What changed how a policy decides is marked on its chart, from the audit log whoever wrote it: its own
    // creation and edits, and every publish; another policy's edit is not. Hovering on a mark says who did what.
    void liveChartMarksWhatChangedThePolicy()
    {
        const model::Policy api = test::makePolicy(QStringLiteral("api"), Algorithm::TokenBucket, 1, 3600000, 10);
        model::Policy other = test::makePolicy(QStringLiteral("other"), Algorithm::TokenBucket, 1, 3600000, 10);
        publish({api, other});
        auto window = test::openMainWindow(profile());
        ui::PolicyLiveView *live = window->liveView();
        test::child<QTabWidget>(window.get(), "mainTabs")->setCurrentWidget(live);
        live->showPolicy(QStringLiteral("api"));
        nextSample(window->session());
        ui::TimeSeriesChart *chart = live->chart();
        const auto markTexts = [chart] {
            QStringList texts;
            for (const ui::TimeSeriesChart::Mark &mark : chart->drawnMarks())
                texts << mark.text;
            return texts;
        };
        QTRY_COMPARE_WITH_TIMEOUT(markTexts().size(), 2, 15000);
        QVERIFY2(markTexts().filter(QRegularExpression(QStringLiteral("^create by .+: created$"))).size() == 1,
                 qPrintable(markTexts().join(QLatin1Char('|'))));
        QVERIFY2(markTexts()
                         .filter(QRegularExpression(QStringLiteral("^publish by .+: published library version 1$")))
                         .size()
                     == 1,
                 qPrintable(markTexts().join(QLatin1Char('|'))));

        // An edit by someone else, while the chart is shown: marked within the audit follower's interval.
        model::Policy edited = api;
        edited.limit = 2;
        QCOMPARE(test::storePolicy(*m_traffic, m_namespace, edited), QString());
        other.limit = 3;
        QCOMPARE(test::storePolicy(*m_traffic, m_namespace, other), QString());
        QTRY_VERIFY2_WITH_TIMEOUT(markTexts().filter(QStringLiteral("Limit 1 \u2192 2")).size() == 1,
                                  qPrintable(markTexts().join(QLatin1Char('|'))), 15000);
        QVERIFY2(markTexts().filter(QStringLiteral("Limit 1 \u2192 3")).isEmpty(),
                 qPrintable(markTexts().join(QLatin1Char('|'))));
        for (const ui::TimeSeriesChart::Mark &mark : chart->drawnMarks())
            QVERIFY2(chart->valuesAt(mark.atMs).contains(mark.text), qPrintable(chart->valuesAt(mark.atMs)));
        // Who is shown as written, a space as a space, and a control character a writer planted made visible.
        const QByteArray at = QByteArray::number(QDateTime::currentMSecsSinceEpoch());
        test::syncCommand(*m_traffic,
                          {"XADD", model::AdminKeys(m_namespace).audit(), "*", "policy", "", "action", "publish", "who",
                           "alice smith\x1b[2J", "at", at, "version", "9"});
        QTRY_VERIFY2_WITH_TIMEOUT(!markTexts().filter(QStringLiteral("publish by alice smith\\u001b[2J:")).isEmpty(),
                                  qPrintable(markTexts().join(QLatin1Char('|'))), 15000);

        // The other policy's chart has its own edit, and not api's.
        live->showPolicy(QStringLiteral("other"));
        QTRY_VERIFY_WITH_TIMEOUT(markTexts().filter(QStringLiteral("Limit 1 \u2192 3")).size() == 1, 15000);
        QVERIFY(markTexts().filter(QStringLiteral("Limit 1 \u2192 2")).isEmpty());
    }

    // Another policy on the same chart, faint and named after it, with its own figures in the readout; none
    // when "no other policy" (or the policy shown itself) is chosen.
    void anotherPolicyIsDrawnBeside()
    {
        publish({test::makePolicy(QStringLiteral("api"), Algorithm::TokenBucket, 1, 3600000, 10),
                 test::makePolicy(QStringLiteral("other"), Algorithm::TokenBucket, 1, 3600000, 5)});
        auto window = test::openMainWindow(profile());
        ui::PolicyLiveView *live = window->liveView();
        test::child<QTabWidget>(window.get(), "mainTabs")->setCurrentWidget(live);
        live->showPolicy(QStringLiteral("api"));
        auto *beside = test::child<QComboBox>(live, "liveCompare");
        QTRY_VERIFY_WITH_TIMEOUT(beside->findData(QStringLiteral("other")) > 0, 5000);
        beside->setCurrentIndex(beside->findData(QStringLiteral("other")));

        model::RateSample sample;
        for (int attempt = 0; attempt < 3 && sample.spanMs == 0; ++attempt) {
            nextSample(window->session());
            fire(QStringLiteral("api"), "a" + QByteArray::number(attempt), 12);   // 10 pass, 2 rejected
            fire(QStringLiteral("other"), "o" + QByteArray::number(attempt), 20); // 5 pass, 15 rejected
            sample = nextSample(window->session());
            for (const model::PolicyRate &rate : sample.policies)
                if (rate.point.allowed + rate.point.rejected != (rate.policy == QLatin1String("api") ? 12u : 20u))
                    sample = {}; // a tick split the traffic: again
        }
        QVERIFY2(sample.spanMs > 0, "no sample held both policies' traffic");
        ui::TimeSeriesChart *chart = live->chart();
        QTRY_COMPARE(chart->shownSpan().second, sample.endMs);
        const auto perSecond
            = [&sample](int count) { return QLocale().toString(count * 1000.0 / sample.spanMs, 'f', 0); };
        const QString readout = chart->valuesAt(sample.endMs);
        for (const QString &expected :
             {QStringLiteral("allowed/s %1").arg(perSecond(10)), QStringLiteral("other allowed/s %1").arg(perSecond(5)),
              QStringLiteral("other rejected/s %1").arg(perSecond(15))})
            QVERIFY2(readout.contains(expected), qPrintable(readout + QLatin1String(" lacks ") + expected));
        QVERIFY(!chart->drawnSegments(4).isEmpty());

        beside->setCurrentIndex(beside->findData(QStringLiteral("api"))); // the policy shown: nothing beside it
        QVERIFY(chart->drawnSegments(3).isEmpty() && chart->drawnSegments(4).isEmpty());
        QVERIFY(!chart->valuesAt(sample.endMs).contains(QLatin1String("other")));
        beside->setCurrentIndex(0);
        QVERIFY(chart->drawnSegments(4).isEmpty());
    }

    // A chosen range of the kept history: From and To within what is kept, refused while From is not before To;
    // shown until another span is picked, whatever samples come meanwhile, and exported as shown. Cancel keeps
    // what was shown, and picking the range again picks another.
    void aChosenRangeOfTheKeptHistoryStaysPut()
    {
        publish({test::makePolicy(QStringLiteral("api"), Algorithm::TokenBucket, 1, 3600000, 10)});
        auto window = test::openMainWindow(profile());
        model::ConnectionSession *session = window->session();
        session->rates()->setIntervalMs(250);
        ui::PolicyLiveView *live = window->liveView();
        test::child<QTabWidget>(window.get(), "mainTabs")->setCurrentWidget(live);
        live->showPolicy(QStringLiteral("api"));
        ui::TimeSeriesChart *chart = live->chart();
        auto *span = test::child<QComboBox>(live, "liveSpan");
        const int fiveMinutes = span->currentIndex();
        const int chosen = span->count() - 1;

        nextSample(session);
        fire(QStringLiteral("api"), "alice", 30); // 10 pass, 20 rejected
        const model::RateSample busy = nextSample(session);
        // Samples on either side of the busy one, a second or more away.
        QElapsedTimer waited;
        waited.start();
        while (waited.elapsed() < 2500)
            nextSample(session);

        // Cancel: the span stays as it was, following live.
        span->setCurrentIndex(chosen);
        auto *dialog = test::openDialog<QDialog>("timeRangeDialog");
        QVERIFY(dialog);
        dialog->reject();
        QCOMPARE(span->currentIndex(), fiveMinutes);
        QTRY_COMPARE(chart->shownSpan().second - chart->shownSpan().first, 5 * 60 * 1000);

        span->setCurrentIndex(chosen);
        QTRY_VERIFY((dialog = test::openDialog<QDialog>("timeRangeDialog")));
        auto *from = test::child<QDateTimeEdit>(dialog, "rangeFrom");
        auto *to = test::child<QDateTimeEdit>(dialog, "rangeTo");
        auto *show = dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
        // Nothing outside what is kept, and From must come first.
        QVERIFY(from->minimumDateTime().toMSecsSinceEpoch() <= busy.endMs - busy.spanMs);
        QVERIFY(to->maximumDateTime().toMSecsSinceEpoch() >= busy.endMs);
        QVERIFY(to->maximumDateTime().toMSecsSinceEpoch() <= QDateTime::currentMSecsSinceEpoch() + 1000);
        const qint64 rangeFrom = (busy.endMs - busy.spanMs) / 1000 * 1000;
        const qint64 rangeTo = rangeFrom + 2000;
        to->setDateTime(QDateTime::fromMSecsSinceEpoch(rangeFrom));
        from->setDateTime(QDateTime::fromMSecsSinceEpoch(rangeTo));
        QVERIFY(!show->isEnabled());
        QVERIFY(test::child<QLabel>(dialog, "rangeProblem")->isVisible());
        from->setDateTime(QDateTime::fromMSecsSinceEpoch(rangeFrom));
        to->setDateTime(QDateTime::fromMSecsSinceEpoch(rangeTo));
        QVERIFY(show->isEnabled());
        QVERIFY(show->isDefault()); // it only changes what is shown
        show->click();

        const std::pair<qint64, qint64> range{rangeFrom, rangeTo};
        QTRY_COMPARE(chart->shownSpan(), range);
        QVERIFY2(
            chart->valuesAt(busy.endMs)
                .contains(QStringLiteral("rejected/s %1").arg(QLocale().toString(20 * 1000.0 / busy.spanMs, 'f', 0))),
            qPrintable(chart->valuesAt(busy.endMs)));
        for (const QVector<QPointF> &segment : chart->drawnSegments(0))
            for (const QPointF &point : segment)
                QVERIFY2(point.x() >= rangeFrom && point.x() <= rangeTo, qPrintable(QString::number(point.x())));
        QVERIFY(test::child<QLabel>(live, "liveRangeNote")->text().contains(QLatin1String("not following live")));
        nextSample(session);
        nextSample(session);
        QCOMPARE(chart->shownSpan(), range); // samples come, the range stays

        // The export is the range's samples, the busy one among them.
        QTemporaryDir folder;
        QString error;
        QVERIFY2(live->exportCsv(folder.filePath(QStringLiteral("range.csv")), &error), qPrintable(error));
        QFile csv(folder.filePath(QStringLiteral("range.csv")));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = csv.readAll().trimmed().split('\n');
        QVERIFY(lines.size() > 2);
        for (int i = 1; i < lines.size(); ++i) {
            const qint64 at
                = QDateTime::fromString(QString::fromUtf8(lines.at(i).split(',').first()), Qt::ISODateWithMs)
                      .toMSecsSinceEpoch();
            QVERIFY2(at >= rangeFrom && at <= rangeTo, lines.at(i).constData());
        }
        QVERIFY(
            std::any_of(lines.cbegin(), lines.cend(), [](const QByteArray &line) { return line.contains(",10,20,"); }));

        // The range again: another one. Then a span follows live once more.
        Q_EMIT span->activated(chosen);
        QTRY_VERIFY((dialog = test::openDialog<QDialog>("timeRangeDialog")));
        test::child<QDateTimeEdit>(dialog, "rangeTo")->setDateTime(QDateTime::fromMSecsSinceEpoch(rangeTo + 1000));
        dialog->accept();
        QTRY_COMPARE(chart->shownSpan().second, rangeTo + 1000);
        span->setCurrentIndex(fiveMinutes);
        const model::RateSample last = nextSample(session);
        QTRY_COMPARE(chart->shownSpan().second, last.endMs);
        QVERIFY(!test::child<QLabel>(live, "liveRangeNote")->isVisible());
    }

    void watchListOutlivesSwitchesAndRestarts()
    {
        publish({test::makePolicy(QStringLiteral("api"), Algorithm::TokenBucket, 1, 3600000, 10)});
        QTemporaryDir dir;
        QSettings settings(dir.filePath(QStringLiteral("Sluice.conf")), QSettings::IniFormat);
        ConnectionProfile mine = profile(), other = profile();
        mine.name = QStringLiteral("mine");
        other.name = QStringLiteral("other");
        const auto openOn = [&](ui::MainWindow &window, const ConnectionProfile &chosen) {
            window.setSession(std::make_unique<model::ConnectionSession>(chosen, chosen.options));
            return window.keyWatchView();
        };
        const auto watchedLabels = [](ui::KeyWatchView *view) {
            QStringList labels;
            for (const model::WatchedKey &key : view->watch()->keys())
                labels << key.label();
            return labels;
        };
        {
            ui::MainWindow window;
            window.setProfileStorage(&settings, nullptr);
            window.show();
            ui::KeyWatchView *view = openOn(window, mine);
            QVERIFY(view->watchSubject(QStringLiteral("api"), "erin"));
            QVERIFY(view->watchSubject(QStringLiteral("api"), "user:1 \xc3\xa9"));
            QVERIFY(view->watchSeedKey(model::SeedLayout::ScgTokenBucket, "gw-1", model::SeedParameters{5, 1000, 10}));
            QVERIFY(view->watchSubject(QStringLiteral("api"), "frank"));
            view->watch()->remove(view->watch()->keys().last().id);
            const QStringList kept = watchedLabels(view);
            QCOMPARE(kept.size(), 3);

            view = openOn(window, other);
            QVERIFY(watchedLabels(view).isEmpty()); // another profile's list is its own
            QVERIFY(view->watchSubject(QStringLiteral("api"), "zoe"));
            view = openOn(window, mine);
            QCOMPARE(watchedLabels(view), kept);
            QTRY_VERIFY_WITH_TIMEOUT(!view->watch()->keys().first().samples.isEmpty(), 5000); // read again
            const model::WatchedKey &seed = view->watch()->keys().at(2);
            QVERIFY(seed.parameters && seed.parameters->limit == 5 && seed.parameters->burst == 10);
        }
        ui::MainWindow restarted;
        restarted.setProfileStorage(&settings, nullptr);
        restarted.show();
        QCOMPARE(watchedLabels(openOn(restarted, mine)).size(), 3);
        QCOMPARE(watchedLabels(openOn(restarted, other)), QStringList{QStringLiteral("api \u00b7 zoe")});
        model::ProfileSettings(&settings).forgetKept(mine.name);
        QVERIFY(watchedLabels(openOn(restarted, mine)).isEmpty());
    }

    void perKeyViewWatchesTypedAndTopListSubjects()
    {
        publish({test::makePolicy(QStringLiteral("api"), Algorithm::TokenBucket, 1, 3600000, 10)});
        auto window = test::openMainWindow(profile());
        QCOMPARE(fire(QStringLiteral("api"), "erin", 14).rejected, 4u);

        // From the Live tab's most rejected list to the watch list.
        ui::PolicyLiveView *live = window->liveView();
        test::child<QTabWidget>(window.get(), "mainTabs")->setCurrentWidget(live);
        live->showPolicy(QStringLiteral("api"));
        QTRY_COMPARE_WITH_TIMEOUT(live->topTable()->rowCount(), 1, 5000);
        live->topTable()->selectRow(0);
        test::click(live, "watchTopSubject");
        ui::KeyWatchView *watched = window->keyWatchView();
        QCOMPARE(test::child<QTabWidget>(window.get(), "mainTabs")->currentWidget(), watched);
        QTableWidget *table = watched->table();
        QCOMPARE(table->rowCount(), 1);
        QCOMPARE(table->item(0, 0)->text(), QStringLiteral("api \u00b7 erin"));
        QTRY_COMPARE_WITH_TIMEOUT(table->item(0, 2)->text(), QStringLiteral("0 of 10"), 5000);
        QCOMPARE(table->item(0, 4)->text(), QStringLiteral("10"));
        QCOMPARE(table->item(0, 5)->text(), QStringLiteral("4"));
        const redis::RedisReply peek
            = test::syncCommand(*m_traffic,
                                {"FCALL_RO", owner().function("peek"), "1",
                                 model::bucketKey(m_namespace, QStringLiteral("api"), "erin"), "api"});
        QCOMPARE(peek.value.elements.value(1).integer, 0);
        QTRY_VERIFY(watched->chart()
                        ->valuesAt(watched->watch()->keys().first().samples.last().timeMs)
                        .contains(QLatin1String("available 0")));

        // Typed: the policy from the list, the subject in the field, Enter.
        auto *source = test::child<QComboBox>(watched, "watchSource");
        QTRY_VERIFY(source->findText(QStringLiteral("api")) >= 0);
        source->setCurrentText(QStringLiteral("api"));
        test::typeInto(watched, "watchSubject", QStringLiteral("frank"));
        QTest::keyClick(test::child<QLineEdit>(watched, "watchSubject"), Qt::Key_Return);
        QCOMPARE(table->rowCount(), 2);
        QVERIFY(test::child<QLineEdit>(watched, "watchSubject")->text().isEmpty());
        QTRY_COMPARE_WITH_TIMEOUT(table->item(1, 2)->text(), QStringLiteral("10 of 10"), 5000);
        QCOMPARE(watched->selectedId(), watched->watch()->keys().last().id);

        // Refused entries say why and add nothing.
        test::click(watched, "watchAdd");
        QVERIFY2(watched->errorText().contains(QLatin1String("no { or }")), qPrintable(watched->errorText()));
        test::typeInto(watched, "watchSubject", QStringLiteral("frank"));
        test::click(watched, "watchAdd");
        QVERIFY2(watched->errorText().contains(QLatin1String("already watched")), qPrintable(watched->errorText()));
        QCOMPARE(table->rowCount(), 2);

        // A key of an existing deployment's layout, by name.
        const QByteArrayList counter = model::seedKeys(model::SeedLayout::FixedWindowCounter, "orders:svc");
        for (int i = 0; i < 3; ++i)
            QVERIFY(test::syncCommand(*m_traffic,
                                      {"EVAL", model::seedScript(model::SeedLayout::FixedWindowCounter), "1",
                                       counter.first(), "100", "60"})
                        .ok());
        source->setCurrentIndex(source->findText(QStringLiteral("INCR + EXPIRE counter (key)")));
        test::typeInto(watched, "watchSubject", QStringLiteral("orders:svc"));
        test::click(watched, "watchAdd");
        QCOMPARE(table->rowCount(), 3);
        QTRY_COMPARE_WITH_TIMEOUT(table->item(2, 2)->text(), QStringLiteral("3"), 5000);
        QCOMPARE(table->item(2, 1)->text(), QStringLiteral("fixed_window_counter"));

        // An interval-refill bucket with the parameters its callers use (capacity 10, 2 every 60 s),
        // emptied 130 s ago: refilled to now, two whole batches.
        const QByteArrayList quota = model::seedKeys(model::SeedLayout::IntervalTokenBucket, "quota:svc");
        QVERIFY(test::syncCommand(*m_traffic,
                                  {"EVAL", model::seedScript(model::SeedLayout::IntervalTokenBucket), "2", quota.at(0),
                                   quota.at(1), "10", "2", "60",
                                   QByteArray::number(QDateTime::currentSecsSinceEpoch() - 130), "10"})
                    .ok());
        source->setCurrentIndex(source->findText(QStringLiteral("Interval-refill token bucket (key)")));
        auto *parameters = test::child<QLineEdit>(watched, "watchParameters");
        QVERIFY(parameters->isVisible());
        const QString hint = QStringLiteral("capacity:add:interval_seconds (optional: to refill it to now)");
        QCOMPARE(parameters->placeholderText(), hint);
        test::typeInto(watched, "watchSubject", QStringLiteral("quota:svc"));
        test::typeInto(watched, "watchParameters", QStringLiteral("10:2"));
        test::click(watched, "watchAdd");
        QVERIFY2(watched->errorText().contains(QLatin1String("capacity:add:interval_seconds")),
                 qPrintable(watched->errorText()));
        QCOMPARE(table->rowCount(), 3);
        test::typeInto(watched, "watchParameters", QStringLiteral("10:2:60"));
        test::click(watched, "watchAdd");
        QCOMPARE(table->rowCount(), 4);
        QTRY_COMPARE_WITH_TIMEOUT(table->item(3, 2)->text(), QStringLiteral("4 of 10"), 5000);
        QCOMPARE(table->item(3, 1)->text(), QStringLiteral("interval_token_bucket"));
        QVERIFY2(table->item(3, 6)->text().contains(QLatin1String("min")), qPrintable(table->item(3, 6)->text()));
        QVERIFY(parameters->text().isEmpty());
        source->setCurrentIndex(source->findText(QStringLiteral("api")));
        QVERIFY(!parameters->isVisible());

        // Remove the selected one.
        table->selectRow(0);
        test::click(watched, "watchRemove");
        QCOMPARE(table->rowCount(), 3);
        QCOMPARE(watched->watch()->keys().size(), 3);
    }

    void aServerWithoutTheLibrarySaysSo()
    {
        test::RedisProcess bare;
        QVERIFY(bare.start());
        ConnectionProfile target = profile();
        target.options = bare.options();
        ui::MainWindow window;
        window.setSession(std::make_unique<model::ConnectionSession>(target, target.options));
        QTRY_VERIFY_WITH_TIMEOUT(
            window.policyRates()->statusText().contains(QLatin1String("no limiter library (publish it first)")), 5000);
        QCOMPARE(window.policyRates()->view()->model()->rowCount(), 0);
    }
};

QTEST_MAIN(TestLiveMonitoring)
#include "tst_live_monitoring.moc"
