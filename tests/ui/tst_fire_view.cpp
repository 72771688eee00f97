// SPDX-License-Identifier: GPL-3.0-or-later
// The test-fire tab, offscreen, on a real redis-server: a run fired from the form draws each
// target's answers beside its model and fills the summary and latency; two targets side by side;
// Stop ends a run at once, and the window keeps answering while the engine fires as fast as it
// can; bad input is shown and sends nothing; real keys ask first on production, read-only refuses;
// the run exports as CSV.

#include "model/limiter/bucket_key.h"
#include "model/monitor/policy_rate_sampler.h"
#include "support/event_loop_watchdog.h"
#include "support/limiter_support.h"
#include "support/publish_support.h"
#include "support/redis_process.h"
#include "support/sync_command.h"
#include "support/test_services.h"
#include "support/widget_driving.h"
#include "support/window_support.h"
#include "ui/fire/fire_target_picker.h"
#include "ui/fire/fire_view.h"
#include "ui/fire/latency_bars.h"
#include "ui/widgets/time_series_chart.h"
#include "ui/window/main_window.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QMessageBox>
#include <QSettings>
#include <QSpinBox>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace sluice;
using model::Algorithm;

class TestFireView : public QObject {
    Q_OBJECT

    test::RedisProcess m_server;
    std::unique_ptr<redis::RedisClient> m_client;
    QString m_namespace;
    model::LibraryOwner owner() const { return {m_namespace, 0}; }

    std::unique_ptr<ui::MainWindow> openWindow(model::ConnectionProfile::Environment environment
                                               = model::ConnectionProfile::Environment::Dev,
                                               bool readOnly = false)
    {
        model::ConnectionProfile profile;
        profile.name = QStringLiteral("fire");
        profile.options = m_server.options();
        profile.ns = m_namespace;
        profile.environment = environment;
        profile.readOnly = readOnly;
        return test::openMainWindow(profile);
    }

    // The tab as an operator opens it: the stored policies are offered once read.
    static ui::FireView *showFire(ui::MainWindow *window)
    {
        test::child<QTabWidget>(window, "mainTabs")->setCurrentWidget(window->fireView());
        ui::FireView *view = window->fireView();
        if (!QTest::qWaitFor([&] { return view->firstTarget()->choose(QStringLiteral("orders-fixed")); }, 5000))
            qWarning("the stored policies were not offered");
        return view;
    }

    static void typeNumber(QWidget *parent, const char *name, const QString &text)
    {
        auto *box = test::child<QAbstractSpinBox>(parent, name);
        box->selectAll();
        QTest::keyClicks(box, text);
        QTest::keyClick(box, Qt::Key_Tab);
    }

    static void chooseData(QWidget *parent, const char *name, int data)
    {
        auto *combo = test::child<QComboBox>(parent, name);
        combo->setCurrentIndex(combo->findData(data));
    }

    static bool finished(ui::FireView *view, int waitMs = 20000)
    {
        return QTest::qWaitFor([&] { return !view->isRunning(); }, waitMs);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_client = std::make_unique<redis::RedisClient>(m_server.options());
        QVERIFY(test::openAndWait(*m_client));
    }

    void init()
    {
        m_namespace = test::uniqueNamespace("firegui-");
        model::Policy trial
            = test::makePolicy(QStringLiteral("orders-trial"), Algorithm::FixedWindow, 40, 2000, 0, true);
        trial.windowStart = model::WindowStart::FirstCall;
        model::Policy quota = test::makePolicy(QStringLiteral("llm-quota"), Algorithm::FixedWindow, 200, 60000);
        quota.maxDebt = 100;
        QVERIFY(
            test::storeAndPublish(
                *m_client, m_namespace,
                {test::makePolicy(QStringLiteral("orders-fixed"), Algorithm::FixedWindow, 40, 2000),
                 test::makePolicy(QStringLiteral("orders-sliding"), Algorithm::SlidingWindow, 40, 2000), trial, quota})
                .isEmpty());
    }

    void theTargetListSaysShadowAndWhereAWindowStarts()
    {
        const auto window = openWindow();
        ui::FireView *view = showFire(window.get());
        auto *choice = test::child<QComboBox>(view, "fireTargetChoice");
        const QString trial = choice->itemText(choice->findData(QStringLiteral("policy:orders-trial")));
        QVERIFY2(trial.endsWith(QLatin1String("from the first call (shadow)")), qPrintable(trial));
        const QString fixed = choice->itemText(choice->findData(QStringLiteral("policy:orders-fixed")));
        QVERIFY2(!fixed.contains(QLatin1String("shadow")) && !fixed.contains(QLatin1String("first call")),
                 qPrintable(fixed));
    }

    // Switching connection with the tab in front: the new connection's policies are offered once it is up,
    // not "not connected" from a read sent before it could answer (what the old per-view setSession did).
    void aConnectionSwitchOffersTheNewConnectionsPolicies()
    {
        const auto window = openWindow();
        showFire(window.get());
        const QString other = test::uniqueNamespace("firegui-other-");
        QVERIFY(
            test::storeAndPublish(*m_client, other,
                                  {test::makePolicy(QStringLiteral("other-bucket"), Algorithm::TokenBucket, 5, 1000)})
                .isEmpty());
        model::ConnectionProfile profile = window->session()->profile();
        profile.ns = other;
        window->setSession(std::make_unique<model::ConnectionSession>(profile, profile.options));
        ui::FireView *view = window->fireView();
        QCOMPARE(test::child<QTabWidget>(window.get(), "mainTabs")->currentWidget(), view);
        QTRY_VERIFY_WITH_TIMEOUT(view->firstTarget()->choose(QStringLiteral("other-bucket")), 5000);
        QVERIFY(!view->firstTarget()->choose(QStringLiteral("orders-fixed"))); // the old namespace's is gone
        QVERIFY2(view->errorText().isEmpty(), qPrintable(view->errorText()));
    }

    // A switch with Test fire in front, to a server that answers only after a connection attempt timed out:
    // its policies offered and no error once it answers; a run under way is stopped with a word; each saved
    // profile keeps the form's choices (never "Fire at real keys").
    void testFireKeepsWorkingAcrossASwitch()
    {
        test::RedisProcess late(test::RedisProcess::Patience::Quick);
        QVERIFY2(late.start(), qPrintable(late.errorString()));
        redis::RedisClient lateClient(late.options());
        QVERIFY(test::openAndWait(lateClient));
        QVERIFY(
            test::storeAndPublish(lateClient, m_namespace,
                                  {test::makePolicy(QStringLiteral("late-bucket"), Algorithm::TokenBucket, 5, 1000)})
                .isEmpty());
        QTemporaryDir dir;
        QSettings settings(dir.filePath(QStringLiteral("Sluice.conf")), QSettings::IniFormat);
        const auto window = openWindow();
        window->setProfileStorage(&settings, nullptr);
        const model::ConnectionProfile first = window->session()->profile();
        window->setSession(std::make_unique<model::ConnectionSession>(first, first.options)); // kept from now on
        QTRY_VERIFY(window->session()->isReady());
        ui::FireView *view = showFire(window.get());
        typeNumber(view, "fireDuration", QStringLiteral("30"));
        typeNumber(view, "fireRate", QStringLiteral("50"));
        test::child<QCheckBox>(view, "fireRealKeys")->setChecked(true);
        test::click(view, "fireStart");
        QTRY_VERIFY(view->isRunning());

        late.freeze(); // it accepts the connection and answers nothing until thawed
        model::ConnectionProfile second = first;
        second.name = QStringLiteral("late");
        second.options = late.options();
        window->setSession(std::make_unique<model::ConnectionSession>(second, second.options));
        QVERIFY2(window->statusBar()->currentMessage().contains(QLatin1String("Test fire stopped")),
                 qPrintable(window->statusBar()->currentMessage()));
        view = window->fireView();
        QCOMPARE(test::child<QTabWidget>(window.get(), "mainTabs")->currentWidget(), view);
        QCOMPARE(test::child<QDoubleSpinBox>(view, "fireDuration")->value(), 10.0); // its own profile's: none yet
        // Thawed only once a connection attempt has timed out, as a slow server makes it.
        QTRY_VERIFY_WITH_TIMEOUT(
            !window->session()->nodes().isEmpty() && !window->session()->nodes().first().lastError.isEmpty(), 10000);
        late.thaw();
        QTRY_VERIFY_WITH_TIMEOUT(view->firstTarget()->choose(QStringLiteral("late-bucket")), 10000);
        QVERIFY2(view->errorText().isEmpty(), qPrintable(view->errorText()));

        window->setSession(std::make_unique<model::ConnectionSession>(first, first.options));
        view = window->fireView();
        QCOMPARE(test::child<QDoubleSpinBox>(view, "fireDuration")->value(), 30.0);
        QCOMPARE(test::child<QDoubleSpinBox>(view, "fireRate")->value(), 50.0);
        QVERIFY(!test::child<QCheckBox>(view, "fireRealKeys")->isChecked());
    }

    void firesFromTheFormAndDrawsTheModelBeside()
    {
        const auto window = openWindow();
        ui::FireView *view = showFire(window.get());
        typeNumber(view, "fireRate", QStringLiteral("200"));
        typeNumber(view, "fireDuration", QStringLiteral("1.5"));
        test::click(view, "fireStart");
        QVERIFY(view->isRunning());
        QVERIFY(!test::child<QPushButton>(view, "fireStart")->isEnabled());
        QTRY_VERIFY_WITH_TIMEOUT(view->statusText().startsWith(QStringLiteral("Firing:")), 5000);
        QVERIFY(finished(view));
        QVERIFY2(view->errorText().isEmpty(), qPrintable(view->errorText()));

        const model::FireSummary summary = view->report().summary(0);
        QCOMPARE(summary.sent, 300);
        QCOMPARE(summary.allowed, summary.expectedAllowed);
        QVERIFY(summary.rejected > 0);
        QVERIFY2(
            view->statusText().contains(
                QStringLiteral("orders-fixed: %1 of 300 calls allowed, the model expected %1").arg(summary.allowed)),
            qPrintable(view->statusText()));
        // The chart: 15 slices of 100 ms, the answers beside the model's curve, as the report has them.
        const QString slice = view->chart(0)->valuesAt(view->chart(0)->shownSpan().first + 50);
        QVERIFY2(slice.contains(QLatin1String("allowed")) && slice.contains(QLatin1String("expected allowed")),
                 qPrintable(slice));
        QVERIFY(!view->chart(1)->isVisible());
        auto *table = test::child<QTableWidget>(view, "fireSummary");
        QCOMPARE(table->rowCount(), 1);
        QCOMPARE(table->item(0, 0)->text(), QStringLiteral("orders-fixed"));
        QCOMPARE(table->item(0, 1)->text(), QStringLiteral("300"));
        QCOMPARE(table->item(0, 2)->text(), QStringLiteral("%1 (%1)").arg(summary.allowed));
        QVERIFY(test::child<QLabel>(view, "fireLatencyText")->text().startsWith(QLatin1String("p50 ")));
        qint64 bars = 0;
        for (const auto &bar : test::child<ui::LatencyBars>(view, "fireLatency")->bars())
            bars += bar.count;
        QCOMPARE(bars, 300);
        // The policy's own counters did not see the test traffic.
        const redis::RedisReply stats
            = test::syncCommand(*m_client, {"FCALL_RO", owner().function("stats"), "0", "9007199254740991"});
        QString problem;
        const auto reading = model::StatsReading::parse(stats.value, &problem);
        QVERIFY(reading && reading->totals.value(QStringLiteral("orders-fixed")).allowed == 0);
    }

    void twoTargetsSideBySideAndTheirCsv()
    {
        const auto window = openWindow();
        ui::FireView *view = showFire(window.get());
        QVERIFY(view->secondTarget()->choose(QStringLiteral("orders-sliding")));
        typeNumber(view, "fireRate", QStringLiteral("100"));
        typeNumber(view, "fireDuration", QStringLiteral("2.5"));
        test::click(view, "fireStart");
        QVERIFY(finished(view));
        QVERIFY(view->chart(1)->isVisible());
        const model::FireSummary fixed = view->report().summary(0), sliding = view->report().summary(1);
        QCOMPARE(fixed.sent, 250);
        QCOMPARE(sliding.sent, 250);
        // The model places each call at the client's estimate of the server's clock; the server decides
        // at its own, a fraction of a ms to a few ms later. A sliding window's room changes every ms, so a
        // call within that of a threshold may go the other way: one call in 250 did, once in about 30
        // runs. More than one is a fault.
        for (const model::FireSummary &summary : {fixed, sliding}) {
            QVERIFY2(std::abs(summary.allowed - summary.expectedAllowed) <= 1,
                     qPrintable(
                         QStringLiteral("%1 allowed, %2 expected").arg(summary.allowed).arg(summary.expectedAllowed)));
        }
        QCOMPARE(test::child<QTableWidget>(view, "fireSummary")->item(1, 0)->text(), QStringLiteral("orders-sliding"));

        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("run.csv"));
        QString error;
        QVERIFY(test::child<QPushButton>(view, "fireExport")->isEnabled());
        QVERIFY2(view->exportCsv(path, &error), qPrintable(error));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray csv = file.readAll();
        QCOMPARE(csv.count("\n0,orders-"), 2);
        QVERIFY(csv.contains("orders-sliding (sliding_window 40/2 seconds): sent 250, allowed "
                             + QByteArray::number(sliding.allowed)));
    }

    // The engine fires on its own thread: the window keeps answering, and Stop ends the run.
    void stopEndsAFullSpeedRunAndTheWindowKeepsAnswering()
    {
        const auto window = openWindow();
        ui::FireView *view = showFire(window.get());
        chooseData(view, "fireShape", int(model::FireShape::Saturate));
        chooseData(view, "fireSubjects", int(model::FireSubjects::Random));
        typeNumber(view, "fireSubjectCount", QStringLiteral("1000"));
        typeNumber(view, "fireConnections", QStringLiteral("4"));
        typeNumber(view, "fireDuration", QStringLiteral("30"));
        test::EventLoopWatchdog watchdog;
        watchdog.start();
        test::click(view, "fireStart");
        QTRY_VERIFY_WITH_TIMEOUT(view->report().summary(0).answered > 20000, 10000);
        QTest::qWait(1500);
        test::click(view, "fireStop");
        QElapsedTimer stopping;
        stopping.start();
        QVERIFY(finished(view, 5000));
        const model::FireSummary summary = view->report().summary(0);
        qInfo("full speed: %lld calls answered, %.0f/s; stop took %lld ms; the GUI thread's longest stall %lld ms "
              "(it waited %lld ms behind the engine's threads, counted, and %lld ms behind other processes, not)",
              summary.answered, summary.achievedRate, stopping.elapsed(), watchdog.longestStallMs(),
              watchdog.waitedBehindOwnThreadsMs(), watchdog.waitedForCpuMs());
        QVERIFY2(watchdog.longestStallMs() <= 50,
                 qPrintable(
                     QStringLiteral("the window stalled %1 ms while the engine fired").arg(watchdog.longestStallMs())));
        QVERIFY(view->report().sendingMs() < 20000);
        QCOMPARE(summary.errors, 0);
        QCOMPARE(summary.answered, summary.sent);
    }

    // The interval-refill bucket's three parameters and its callers' clock skew, from the form.
    void intervalBucketFiresFromTheForm()
    {
        const auto window = openWindow();
        ui::FireView *view = showFire(window.get());
        QVERIFY(view->firstTarget()->choose(QStringLiteral("interval_token_bucket")));
        QVERIFY(test::child<QSpinBox>(view, "fireTargetThird")->isVisible());
        QVERIFY(test::child<QSpinBox>(view, "fireTargetSkew")->isVisible());
        typeNumber(view, "fireTargetFirst", QStringLiteral("10"));
        typeNumber(view, "fireTargetSecond", QStringLiteral("5"));
        typeNumber(view, "fireTargetThird", QStringLiteral("1"));
        QCOMPARE(view->firstTarget()->target()->label(),
                 QStringLiteral("interval_token_bucket (5 every second, capacity 10)"));
        typeNumber(view, "fireRate", QStringLiteral("100"));
        typeNumber(view, "fireDuration", QStringLiteral("1.5"));
        test::click(view, "fireStart");
        QVERIFY(finished(view));
        QVERIFY2(view->errorText().isEmpty(), qPrintable(view->errorText()));
        const model::FireSummary summary = view->report().summary(0);
        QCOMPARE(summary.sent, 150);
        QVERIFY(summary.rejected > 0);
        QCOMPARE(summary.allowed, summary.expectedAllowed);
        QVERIFY(view->firstTarget()->choose(QStringLiteral("scg_token_bucket")));
        QVERIFY(!test::child<QSpinBox>(view, "fireTargetThird")->isVisible());
        QVERIFY(!test::child<QSpinBox>(view, "fireTargetSkew")->isVisible());
    }

    void badInputIsShownAndSendsNothing()
    {
        const auto window = openWindow();
        ui::FireView *view = showFire(window.get());
        const qint64 keysBefore = test::syncCommand(*m_client, {"DBSIZE"}).value.integer;
        test::typeInto(view, "fireSubjectName", QStringLiteral("{tagged}"));
        test::click(view, "fireStart");
        QVERIFY2(view->errorText().contains(QLatin1String("without braces")), qPrintable(view->errorText()));
        QVERIFY(!view->isRunning());
        test::typeInto(view, "fireSubjectName", QStringLiteral("fine"));
        QVERIFY(view->firstTarget()->choose(QStringLiteral("fixed_window_counter")));
        typeNumber(view, "fireCost", QStringLiteral("2"));
        test::click(view, "fireStart");
        QVERIFY2(view->errorText().contains(QLatin1String("cost must be 1")), qPrintable(view->errorText()));
        QVERIFY(!view->isRunning());
        QCOMPARE(test::syncCommand(*m_client, {"DBSIZE"}).value.integer, keysBefore);
    }

    // Reserve then settle from the form: each admitted call reserves its estimate and is settled 600 ms later
    // with an actual cost of 0 to 12, into debt up to 100 units. The first settlement comes after 50 calls
    // have reserved the whole quota, so their actual costs (300 on average) take it into debt whatever the
    // machine's timing (settled after 50 ms, a run on a busy machine admitted 35 whose costs came to 200).
    // In one window of a minute the library's decisions and settlements are the model's exactly, and the
    // summary, the status and the CSV say what they charged. Without real keys it is refused before
    // anything is sent.
    void reservesAndSettlesBesideTheModel()
    {
        const auto window = openWindow();
        ui::FireView *view = showFire(window.get());
        QVERIFY(view->firstTarget()->choose(QStringLiteral("llm-quota")));
        QVERIFY(!test::child<QSpinBox>(view, "fireSettleAfter")->isVisible());
        QTest::mouseClick(test::child<QCheckBox>(view, "fireReserve"), Qt::LeftButton, {}, QPoint(5, 5));
        QVERIFY(test::child<QSpinBox>(view, "fireSettleAfter")->isVisible());
        typeNumber(view, "fireCost", QStringLiteral("4"));
        typeNumber(view, "fireActualMin", QStringLiteral("0"));
        typeNumber(view, "fireActualMax", QStringLiteral("12"));
        typeNumber(view, "fireSettleAfter", QStringLiteral("600"));
        typeNumber(view, "fireRate", QStringLiteral("100"));
        typeNumber(view, "fireDuration", QStringLiteral("1.5"));
        test::typeInto(view, "fireSubjectName", QStringLiteral("assistant"));
        const qint64 keysBefore = test::syncCommand(*m_client, {"DBSIZE"}).value.integer;
        test::click(view, "fireStart");
        QVERIFY2(view->errorText().contains(QLatin1String("reserve then settle fires at real keys")),
                 qPrintable(view->errorText()));
        QVERIFY(!view->isRunning());
        QCOMPARE(test::syncCommand(*m_client, {"DBSIZE"}).value.integer, keysBefore);

        QTest::mouseClick(test::child<QCheckBox>(view, "fireRealKeys"), Qt::LeftButton, {}, QPoint(5, 5));
        // The quota's windows are aligned to the minute: the run and its settlements stay inside one.
        QTRY_VERIFY_WITH_TIMEOUT(QDateTime::currentMSecsSinceEpoch() % 60000 < 50000, 15000);
        test::click(view, "fireStart");
        QVERIFY(finished(view));
        QVERIFY2(view->errorText().isEmpty(), qPrintable(view->errorText()));
        const model::FireSummary summary = view->report().summary(0);
        qInfo("%lld of 150 reservations admitted (the model %lld), %lld settled charging %lld units (the model %lld), "
              "%lld not charged (the model %lld)",
              summary.allowed, summary.expectedAllowed, summary.settled, summary.charged, summary.expectedCharged,
              summary.uncharged, summary.expectedUncharged);
        QCOMPARE(summary.sent, 150);
        QCOMPARE(summary.errors, 0);
        QVERIFY(summary.rejected > 0); // the quota and its debt ran out
        QCOMPARE(summary.allowed, summary.expectedAllowed);
        QCOMPARE(summary.settled, summary.allowed);
        QCOMPARE(summary.settleRefused, 0);
        QVERIFY(summary.charged > 200); // past the quota: into debt
        QCOMPARE(summary.charged, summary.expectedCharged);
        QCOMPARE(summary.uncharged, summary.expectedUncharged);
        const QString charged = QStringLiteral("%1 (%1)").arg(QLocale().toString(summary.charged));
        auto *table = test::child<QTableWidget>(view, "fireSummary");
        QVERIFY(!table->isColumnHidden(7) && table->isColumnHidden(6)); // the units charged, in the rate's place
        QCOMPARE(table->item(0, 7)->text(), charged);
        QVERIFY2(
            view->statusText().contains(QStringLiteral("%1 settled (0 refused, their estimates standing): %2 units "
                                                       "charged, the model %2")
                                            .arg(summary.settled)
                                            .arg(QLocale().toString(summary.charged))),
            qPrintable(view->statusText()));
        // The bucket is in debt: what a call sees now.
        const redis::RedisReply peek
            = test::syncCommand(*m_client,
                                {"FCALL_RO", owner().function("peek"), "1",
                                 model::bucketKey(m_namespace, QStringLiteral("llm-quota"), "assistant"), "llm-quota"});
        QVERIFY2(peek.ok() && peek.value.elements.at(1).integer == 200 - summary.charged,
                 qPrintable(peek.value.toString()));

        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("run.csv"));
        QString error;
        QVERIFY2(view->exportCsv(path, &error), qPrintable(error));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray csv = file.readAll();
        QVERIFY(csv.contains(",settled,settle_refused,charged,uncharged,expected_charged,expected_uncharged\n"));
        QVERIFY(csv.contains(": settled " + QByteArray::number(summary.settled) + " (0 refused), charged "
                             + QByteArray::number(summary.charged) + " units (model "
                             + QByteArray::number(summary.charged) + ")"));
    }

    void realKeysAskOnProductionAndReadOnlyRefuses()
    {
        {
            const auto window = openWindow(model::ConnectionProfile::Environment::Production);
            ui::FireView *view = showFire(window.get());
            typeNumber(view, "fireRate", QStringLiteral("100"));
            typeNumber(view, "fireDuration", QStringLiteral("0.5"));
            test::typeInto(view, "fireSubjectName", QStringLiteral("dave"));
            QTest::mouseClick(test::child<QCheckBox>(view, "fireRealKeys"), Qt::LeftButton, {}, QPoint(5, 5));
            test::click(view, "fireStart");
            QMessageBox *ask = nullptr;
            QTRY_VERIFY((ask = test::openDialog<QMessageBox>("writeConfirmation")));
            ask->button(QMessageBox::Cancel)->click();
            QVERIFY(!view->isRunning());
            const QByteArray key = model::bucketKey(m_namespace, QStringLiteral("orders-fixed"), "dave");
            QCOMPARE(test::syncCommand(*m_client, {"EXISTS", key}).value.integer, 0);
            test::click(view, "fireStart");
            QTRY_VERIFY((ask = test::openDialog<QMessageBox>("writeConfirmation")));
            // orders-fixed's windows are aligned to 2 s: start early in one so the 0.5 s run stays inside it.
            QTRY_VERIFY_WITH_TIMEOUT(QDateTime::currentMSecsSinceEpoch() % 2000 < 200, 3000);
            ask->button(QMessageBox::Yes)->click();
            QVERIFY(view->isRunning());
            QVERIFY(finished(view));
            QCOMPARE(view->report().summary(0).allowed, 40);
            QCOMPARE(test::syncCommand(*m_client, {"EXISTS", key}).value.integer, 1);
            QVERIFY2(view->statusText().contains(QLatin1String("Real keys were used")), qPrintable(view->statusText()));
        }
        const auto readOnly = openWindow(model::ConnectionProfile::Environment::Dev, true);
        ui::FireView *view = showFire(readOnly.get());
        auto *fire = test::child<QPushButton>(view, "fireStart");
        QVERIFY(!fire->isEnabled());
        QVERIFY(fire->toolTip().contains(QLatin1String("read-only")));
    }
};

QTEST_MAIN(TestFireView)
#include "tst_fire_view.moc"
