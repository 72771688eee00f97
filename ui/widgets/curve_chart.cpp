// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/widgets/curve_chart.h"

#include <QChart>
#include <QChartView>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace sluice::ui {

CurveChart::CurveChart(QWidget *parent)
    : QWidget(parent)
    , m_chart(new QChart)
{
    // The theme first: it sets the axes' and background's colours, and would reset the series'.
    if (isDarkPalette())
        m_chart->setTheme(QChart::ChartThemeDark);
    m_chart->legend()->setAlignment(Qt::AlignTop);
    m_chart->setMargins(QMargins(4, 4, 4, 4));
    m_x = new QLogValueAxis(m_chart);
    m_x->setBase(10);
    m_x->setLabelFormat(QStringLiteral("%g"));
    m_x->setMinorTickCount(8);
    m_chart->addAxis(m_x, Qt::AlignBottom);
    m_y = new QValueAxis(m_chart);
    m_y->setLabelFormat(QStringLiteral("%.1f%%"));
    m_chart->addAxis(m_y, Qt::AlignLeft);
    m_curve = new QLineSeries(m_chart);
    m_curve->setPointsVisible(true);
    m_curve->setPen(QPen(toneColor(Tone::Rejected), 2));
    m_chart->addSeries(m_curve);
    m_curve->attachAxis(m_x);
    m_curve->attachAxis(m_y);

    m_view = new QChartView(m_chart, this);
    m_view->setObjectName(QStringLiteral("curveView"));
    m_view->setRenderHint(QPainter::Antialiasing);
    m_empty = new QLabel(tr("No curve yet."), m_view);
    m_empty->setObjectName(QStringLiteral("curveEmpty"));
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setWordWrap(true);
    m_empty->setStyleSheet(textStyle(Tone::Muted));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view);
    redraw();
}

void CurveChart::setAxisTitles(const QString &x, const QString &y)
{
    m_x->setTitleText(x);
    m_y->setTitleText(y);
}

void CurveChart::setPoints(const QVector<QPointF> &points)
{
    m_points = points;
    redraw();
}

void CurveChart::setMarks(const QVector<Mark> &marks)
{
    m_marks = marks;
    redraw();
}

void CurveChart::setEmptyText(const QString &text)
{
    m_empty->setText(text);
}

QString CurveChart::emptyText() const
{
    return m_points.isEmpty() ? m_empty->text() : QString();
}

void CurveChart::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    m_empty->resize(m_view->size());
}

void CurveChart::redraw()
{
    // An empty chart says so in words, without axes or a legend for nothing.
    const bool empty = m_points.isEmpty();
    m_empty->setVisible(empty);
    m_empty->resize(m_view->size());
    m_x->setVisible(!empty);
    m_y->setVisible(!empty);
    m_chart->legend()->setVisible(!empty);
    QVector<QPointF> percent;
    qreal lowest = 1, highest = 10, top = 0;
    for (const QPointF &point : m_points) {
        percent.append({point.x(), point.y() * 100.0});
        top = std::max(top, point.y() * 100.0);
    }
    if (!empty) {
        lowest = m_points.first().x();
        highest = m_points.last().x();
    }
    m_curve->replace(percent);
    for (QLineSeries *line : std::as_const(m_markLines)) {
        m_chart->removeSeries(line);
        delete line;
    }
    m_markLines.clear();
    const qreal ceiling = std::max<qreal>(top * 1.1, 0.1);
    for (const Mark &mark : std::as_const(m_marks)) {
        auto *line = new QLineSeries(m_chart);
        line->setName(mark.label);
        line->setPen(QPen(toneColor(mark.tone), 2, Qt::DashLine));
        line->append(mark.x, 0);
        line->append(mark.x, ceiling);
        m_chart->addSeries(line);
        line->attachAxis(m_x);
        line->attachAxis(m_y);
        m_markLines.append(line);
        lowest = std::min(lowest, mark.x);
        highest = std::max(highest, mark.x);
    }
    m_curve->setName(tr("share rejected"));
    // Whole decades around every point and mark, so the log axis labels read 1, 10, 100...
    m_x->setRange(std::pow(10.0, std::floor(std::log10(std::max<qreal>(1, lowest)))),
                  std::pow(10.0, std::ceil(std::log10(std::max<qreal>(10, highest * 1.01)))));
    m_y->setRange(0, ceiling);
    // Enough decimals that the ticks differ: 0.1% beside 0.1% says nothing.
    m_y->setLabelFormat(ceiling >= 10        ? QStringLiteral("%.0f%%")
                            : ceiling >= 1   ? QStringLiteral("%.1f%%")
                            : ceiling >= 0.1 ? QStringLiteral("%.2f%%")
                                             : QStringLiteral("%.3f%%"));
}

} // namespace sluice::ui
