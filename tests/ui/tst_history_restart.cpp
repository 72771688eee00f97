// SPDX-License-Identifier: GPL-3.0-or-later
// The dashboard restarted on the same profile, offscreen, on a real redis-server with real
// traffic: the Live tab's chart shows the previous hour (written through the history store, as a
// run that closed a minute ago leaves it) and the samples of the run before, with their exact
// counts, and the time the dashboard was closed is a gap in the line, not a line across it.

#include "model/connection/connection_session.h"
#include "model/monitor/rate_history_store.h"
#include "support/limiter_support.h"
#include "support/publish_support.h"
#include "support/redis_process.h"
#include "support/sync_command.h"
#include "support/test_services.h"
#include "support/traffic_support.h"
#include "ui/monitor/policy_live_view.h"
#include "ui/widgets/time_series_chart.h"
#include "ui/window/main_window.h"

#include <QComboBox>
#include <QDateTime>
#include <QFile>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace sluice;
using model::RatePoint;

namespace {

constexpr qint64 kMinute = 60 * 1000;
const QString kPolicy = QStringLiteral("api");

// The points a series was drawn from, as the chart draws them (rates at each point's end).
QVector<QPointF> allowedRates(const QVector<RatePoint> &points)
{
    QVector<QPointF> rates;
    for (const RatePoint &point : points)
        rates << QPointF(point.endMs, point.allowedPerSecond());
    return rates;
}

} // namespace

class TestHistoryRestart : public QObject {
    Q_OBJECT

    test::RedisProcess m_server;
    std::unique_ptr<redis::RedisClient> m_traffic;
    QString m_namespace;
    QTemporaryDir m_historyDir;

    model::ConnectionProfile profile() const
    {
        model::ConnectionProfile profile;
        profile.name = QStringLiteral("restart");
        profile.options = m_server.options();
        profile.ns = m_namespace;
        return profile;
    }

    std::unique_ptr<ui::MainWindow> openDashboard()
    {
        auto window = std::make_unique<ui::MainWindow>();
        window->setRateHistoryDirectory(m_historyDir.path());
        window->show();
        window->openProfileSession(profile(), {});
        if (!test::spinUntil([&] { return window->session()->isReady(); }))
            qWarning("the session did not connect");
        return window;
    }

    // Waits for the session's next sample that counted something.
    static void nextSample(model::ConnectionSession *session)
    {
        bool sampled = false;
        QObject context;
        QObject::connect(session->rates(), &model::PolicyRateSampler::sampled, &context,
                         [&](const model::RateSample &sample) { sampled = sample.spanMs > 0; });
        test::spinUntil([&] { return sampled; }, 5000);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_historyDir.isValid());
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_traffic = std::make_unique<redis::RedisClient>(m_server.options());
        QVERIFY(test::openAndWait(*m_traffic));
        m_namespace = test::uniqueNamespace("restart-");
        // A bucket that refills one token an hour: 30 calls are 10 allowed and 20 rejected.
        const QString error = test::storeAndPublish(
            *m_traffic, m_namespace, {test::makePolicy(kPolicy, model::Algorithm::TokenBucket, 1, 3600000, 10)});
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    void liveTabShowsThePreviousHourAfterARestart()
    {
        // The previous hour, as a run that closed a minute ago left it: ten-second samples.
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        QVector<RatePoint> hour;
        for (qint64 end = now - 59 * kMinute; end <= now - kMinute; end += 10000)
            hour << RatePoint{end, 10000, quint32(hour.size() % 17 * 10 + 3), quint32(hour.size() % 5)};
        const model::RateHistoryStore store(m_historyDir.path(),
                                            {profile().name, m_namespace, 0, profile().options.redactedUrl()});
        QVERIFY(!store.save({{kPolicy, hour}}, now, 60 * kMinute));

        // A run with traffic: it opens with that hour, samples 10 allowed and 20 rejected, and closes.
        QVector<RatePoint> before;
        {
            auto window = openDashboard();
            model::ConnectionSession *session = window->session();
            QTRY_VERIFY_WITH_TIMEOUT(session->rates()->history(kPolicy), 5000);
            nextSample(session);
            const test::Fired fired
                = test::fireAcquires(*m_traffic, m_namespace, kPolicy, 30, [](int) { return QByteArray("a"); });
            QCOMPARE(fired.allowed, 10u);
            nextSample(session);
            nextSample(session);
            before = session->rates()->series().at(kPolicy);
            QVERIFY(before.size() > hour.size());
            QCOMPARE(allowedRates(before.mid(0, hour.size())), allowedRates(hour));
            quint32 allowed = 0, rejected = 0;
            for (const RatePoint &point : before.mid(hour.size())) {
                allowed += point.allowed;
                rejected += point.rejected;
            }
            QCOMPARE(allowed, 10u);
            QCOMPARE(rejected, 20u);
        }
        QCOMPARE(QFile::permissions(store.path()) & (QFileDevice::ReadGroup | QFileDevice::ReadOther), 0);
        QTest::qWait(1500); // closed for longer than a sampling interval

        auto window = openDashboard();
        model::ConnectionSession *session = window->session();
        window->findChild<QTabWidget *>()->setCurrentWidget(window->liveView());
        ui::PolicyLiveView *live = window->liveView();
        auto *span = live->findChild<QComboBox *>(QStringLiteral("liveSpan"));
        span->setCurrentIndex(span->findData(60 * kMinute));
        live->showPolicy(kPolicy);
        nextSample(session);
        nextSample(session);

        // The chart: the hour, the run before (after the minute nobody watched), and this run, each
        // a line of its own.
        QTRY_VERIFY_WITH_TIMEOUT(live->chart()->drawnSegments(0).size() == 3, 5000);
        const QVector<QVector<QPointF>> segments = live->chart()->drawnSegments(0);

        // The sampler holds the earlier run's points exactly, then this run's, none across the closed time.
        const QVector<RatePoint> thisAndBefore = session->rates()->series().at(kPolicy);
        QVERIFY(thisAndBefore.size() > before.size());
        for (int i = 0; i < before.size(); ++i) {
            QCOMPARE(thisAndBefore.at(i).endMs, before.at(i).endMs);
            QCOMPARE(thisAndBefore.at(i).spanMs, before.at(i).spanMs);
            QCOMPARE(thisAndBefore.at(i).allowed, before.at(i).allowed);
            QCOMPARE(thisAndBefore.at(i).rejected, before.at(i).rejected);
        }
        QVERIFY(thisAndBefore.at(before.size()).endMs - thisAndBefore.at(before.size()).spanMs
                > before.last().endMs + 1000);

        QCOMPARE(segments.at(0), allowedRates(hour));
        QVERIFY(segments.at(0).first().x() <= QDateTime::currentMSecsSinceEpoch() - 58 * kMinute);
        QCOMPARE(segments.at(1), allowedRates(before.mid(hour.size())));
        const QVector<QPointF> thisRun = allowedRates(thisAndBefore.mid(before.size()));
        QCOMPARE(segments.at(2), thisRun.mid(0, segments.at(2).size()));
        QCOMPARE(live->chart()->drawnSegments(1).size(), 3);
    }
};

QTEST_MAIN(TestHistoryRestart)
#include "tst_history_restart.moc"
