// SPDX-License-Identifier: GPL-3.0-or-later
// The charts' scales and empty states, offscreen: time ticks at round times for every span from 30 s
// to a day, value axes from 0 to a round top, an empty chart that says so in words instead of
// 00:00:00 ticks, and a latency histogram whose labels never overlap at any width.

#include "support/widget_driving.h"
#include "ui/fire/latency_bars.h"
#include "ui/widgets/chart_scale.h"
#include "ui/widgets/time_series_chart.h"

#include <QAbstractAxis>
#include <QChart>
#include <QChartView>
#include <QTest>

using namespace sluice;
using ui::TimeTicks;
using ui::ValueScale;

class TestCharts : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void timeTicksAreRound_data()
    {
        QTest::addColumn<qint64>("spanMs");
        QTest::addColumn<qint64>("stepMs");
        QTest::addColumn<QString>("format");
        QTest::newRow("30 s") << qint64(30000) << qint64(5000) << QStringLiteral("HH:mm:ss");
        QTest::newRow("1 min") << qint64(60000) << qint64(10000) << QStringLiteral("HH:mm:ss");
        QTest::newRow("5 min") << qint64(300000) << qint64(60000) << QStringLiteral("HH:mm");
        QTest::newRow("15 min") << qint64(900000) << qint64(300000) << QStringLiteral("HH:mm");
        QTest::newRow("1 h") << qint64(3600000) << qint64(600000) << QStringLiteral("HH:mm");
        QTest::newRow("24 h") << qint64(86400000) << qint64(21600000) << QStringLiteral("HH:mm");
    }

    void timeTicksAreRound()
    {
        QFETCH(qint64, spanMs);
        QFETCH(qint64, stepMs);
        QFETCH(QString, format);
        // An odd start, in a zone an hour and a half from UTC: ticks fall on the local round times.
        const qint64 offset = 90 * 60 * 1000;
        const qint64 from = 1'700'000'123'457;
        const TimeTicks ticks = ui::timeTicks(from, from + spanMs, 7, offset);
        QCOMPARE(ticks.stepMs, stepMs);
        QCOMPARE(ticks.format, format);
        QVERIFY(!ticks.at.isEmpty() && ticks.at.size() <= 8);
        for (qint64 at : ticks.at) {
            QVERIFY(at >= from && at <= from + spanMs);
            QCOMPARE((at + offset) % stepMs, 0);
        }
        QVERIFY(ticks.at.first() - from < stepMs); // the first round time after the start
    }

    void valueScalesAreRound_data()
    {
        QTest::addColumn<double>("peak");
        QTest::addColumn<double>("top");
        QTest::addColumn<double>("step");
        QTest::addColumn<int>("decimals");
        QTest::newRow("nothing") << 0.0 << 1.0 << 0.2 << 1;
        QTest::newRow("0.3") << 0.3 << 0.3 << 0.1 << 1;
        QTest::newRow("near 95") << 95.0 << 100.0 << 20.0 << 0;
        QTest::newRow("101") << 101.0 << 150.0 << 50.0 << 0;
        QTest::newRow("a billion") << 1e9 << 1e9 << 2e8 << 0;
    }

    void valueScalesAreRound()
    {
        QFETCH(double, peak);
        QFETCH(double, top);
        QFETCH(double, step);
        QFETCH(int, decimals);
        const ValueScale scale = ui::valueScale(peak);
        QVERIFY2(qFuzzyCompare(scale.top, top), qPrintable(QString::number(scale.top)));
        QVERIFY2(qFuzzyCompare(scale.step, step), qPrintable(QString::number(scale.step)));
        QCOMPARE(scale.decimals, decimals);
        QVERIFY(scale.top >= peak);
    }

    void anEmptyChartSaysSoInWords()
    {
        ui::TimeSeriesChart chart;
        chart.addSeries({QStringLiteral("allowed/s"), Qt::darkGreen});
        chart.resize(600, 300);
        chart.show();
        QVERIFY(!chart.emptyText().isEmpty()); // before any window or point, too
        QVERIFY(chart.timeLabels().isEmpty());
        const qint64 now = 1'700'000'000'000;
        chart.setTimeWindow(now - 60000, now);
        chart.addSeries({QStringLiteral("rejected/s"), Qt::red, ui::TimeSeriesChart::Axis::Right}); // a new axis
        QVERIFY(!chart.emptyText().isEmpty());
        QVERIFY2(chart.timeLabels().isEmpty(), qPrintable(chart.timeLabels().join(QLatin1Char(' '))));
        // Nothing but the words: an axis title with no labels beside it was drawn as a stray "⋮" or "…".
        const auto axesShowing = [&chart] {
            QStringList showing;
            for (const QAbstractAxis *axis : chart.findChild<QChartView *>()->chart()->axes())
                if (axis->isTitleVisible() || axis->labelsVisible())
                    showing << axis->titleText();
            return showing;
        };
        QVERIFY2(axesShowing().isEmpty(), qPrintable(axesShowing().join(QLatin1String(", "))));
        chart.setEmptyText(QStringLiteral("Waiting for the first sample."));
        QCOMPARE(chart.emptyText(), QStringLiteral("Waiting for the first sample."));

        chart.setPoints(0, {QPointF(now - 30000, 95), QPointF(now - 1000, 40)});
        QVERIFY(chart.emptyText().isEmpty());
        QCOMPARE(axesShowing().size(), 3);
        const QStringList labels = chart.timeLabels();
        QVERIFY(!labels.isEmpty());
        for (const QString &label : labels)
            QVERIFY2(label != QLatin1String("00:00:00") && label.endsWith(QLatin1Char('0')), qPrintable(label));
    }

    // Marks inside the span shown are drawn (a line at their time), the others not; hovering on one adds its
    // text, and only its own.
    void marksAreDrawnWhereTheyHappened()
    {
        ui::TimeSeriesChart chart;
        chart.addSeries({QStringLiteral("allowed/s"), Qt::darkGreen});
        chart.resize(600, 300);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        const qint64 now = 1'700'000'000'000;
        chart.setPoints(0, {QPointF(now - 60000, 5), QPointF(now, 6)});
        chart.setTimeWindow(now - 60000, now);
        chart.setMarks({{now - 30000, QStringLiteral("update by alice: Limit 1 \u2192 2")},
                        {now - 120000, QStringLiteral("publish by bob: published library version 1")},
                        {now - 29000, QStringLiteral("reset by carol: reset the bucket of mallory")}});
        const QVector<ui::TimeSeriesChart::Mark> drawn = chart.drawnMarks();
        QCOMPARE(drawn.size(), 2);
        QCOMPARE(drawn.first().atMs, now - 30000); // in time order
        QVERIFY(chart.valuesAt(now - 30000).contains(QLatin1String("update by alice")));
        QVERIFY(!chart.valuesAt(now - 30000).contains(QLatin1String("reset by carol"))); // 1 s is ~9 px away
        QVERIFY(!chart.valuesAt(now - 10000).contains(QLatin1String("\u25b8")));
        // Hovering on a mark with a long who-and-what wraps the readout: it never asks for a wider chart.
        const QString longChange = QStringLiteral("update by alice@workstation-17 (sluicectl): ")
            + QStringLiteral("Limit 100 \u2192 150, ").repeated(8);
        chart.setMarks({{now - 30000, longChange}});
        auto *canvas = test::child<QChartView>(&chart, "chartView");
        const QRectF plot = canvas->chart()->plotArea(); // the window shown: the last minute, the mark halfway
        const QPointF markAt(plot.left() + plot.width() / 2, plot.center().y());
        // Along the plot from its middle until the readout names the mark, as a pointer would.
        for (int dx = -20; dx <= 20 && !chart.hoverText().contains(longChange); ++dx)
            QTest::mouseMove(canvas->viewport(),
                             canvas->mapFromScene(canvas->chart()->mapToScene(markAt + QPointF(dx, 0))));
        QTRY_VERIFY2(chart.hoverText().contains(longChange), qPrintable(chart.hoverText()));
        QVERIFY2(chart.minimumSizeHint().width() <= 600, qPrintable(QString::number(chart.minimumSizeHint().width())));
        chart.setMarks({{now - 30000, QStringLiteral("update by alice: Limit 1 \u2192 2")},
                        {now - 29000, QStringLiteral("reset by carol: reset the bucket of mallory")}});
        chart.zoomTo(now - 29500, now); // the update leaves the span shown
        QCOMPARE(chart.drawnMarks().size(), 1);
        chart.setMarks({});
        QVERIFY(chart.drawnMarks().isEmpty());
    }

    void latencyLabelsNeverOverlap_data()
    {
        QTest::addColumn<int>("width");
        QTest::newRow("300 px") << 300;
        QTest::newRow("1000 px") << 1000;
    }

    void latencyLabelsNeverOverlap()
    {
        QFETCH(int, width);
        model::LatencyHistogram histogram;
        for (qint64 us : {15, 30, 45, 70, 90, 150, 300, 700, 1500, 4000, 9000, 30000, 120000, 700000, 2000000})
            for (int i = 0; i < 3; ++i)
                histogram.add(us);
        histogram.add(40);
        ui::LatencyBars bars;
        bars.setHistogram(histogram);
        bars.resize(width, 110);
        const QVector<ui::LatencyBars::Label> labels = bars.labels();
        QVERIFY(labels.size() >= 4);
        for (qsizetype i = 0; i < labels.size(); ++i) {
            QVERIFY2(bars.rect().contains(labels.at(i).rect),
                     qPrintable(QStringLiteral("\"%1\" is cut off").arg(labels.at(i).text)));
            QVERIFY2(labels.at(i).rect.width() >= bars.fontMetrics().horizontalAdvance(labels.at(i).text),
                     qPrintable(labels.at(i).text));
            for (qsizetype j = i + 1; j < labels.size(); ++j)
                QVERIFY2(!labels.at(i).rect.intersects(labels.at(j).rect),
                         qPrintable(QStringLiteral("\"%1\" and \"%2\"").arg(labels.at(i).text, labels.at(j).text)));
        }
    }
};

QTEST_MAIN(TestCharts)
#include "tst_charts.moc"
