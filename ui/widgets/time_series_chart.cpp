// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/widgets/time_series_chart.h"

#include "model/files/own_files.h"
#include "model/format/units.h"
#include "ui/widgets/chart_scale.h"
#include "ui/widgets/state_palette.h"

#include <QBuffer>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QDateTime>
#include <QGraphicsLineItem>
#include <QGraphicsRectItem>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLocale>
#include <QMouseEvent>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace sluice::ui {

// The Qt Charts view under the chart widget: hover tracking and the zoom gestures (drag across the
// plot to zoom into that span, right-click to go back to the whole window).
class ChartCanvas : public QChartView {
public:
    ChartCanvas(TimeSeriesChart *owner, QChart *chart)
        : QChartView(chart, owner)
        , m_owner(owner)
    {
        setRenderHint(QPainter::Antialiasing);
        setMouseTracking(true);
        m_marker = new QGraphicsLineItem(chart);
        m_marker->setPen(QPen(toneColor(Tone::Muted), 1, Qt::DotLine));
        m_marker->hide();
        m_band = new QGraphicsRectItem(chart);
        m_band->setPen(Qt::NoPen);
        QColor band = toneColor(Tone::Level);
        band.setAlpha(40);
        m_band->setBrush(band);
        m_band->hide();
    }

    QCategoryAxis *timeAxis = nullptr; // ms since the epoch, labelled at round times
    QValueAxis *leftAxis = nullptr;
    QValueAxis *rightAxis = nullptr;
    // Per series, its lines: one per unbroken run of points (the first one has the legend entry).
    QVector<QVector<QLineSeries *>> segments;
    QVector<QGraphicsLineItem *> markLines; // one per mark, hidden when outside the span shown

protected:
    void mousePressEvent(QMouseEvent *event) override
    {
        const QPointF at = inChart(event);
        if (event->button() == Qt::LeftButton && chart()->plotArea().contains(at)) {
            m_dragFrom = at.x();
            m_band->setRect(QRectF(at.x(), chart()->plotArea().top(), 0, chart()->plotArea().height()));
            m_band->show();
        } else if (event->button() == Qt::RightButton) {
            m_owner->resetZoom();
        }
        event->accept();
    }

    void mouseMoveEvent(QMouseEvent *event) override
    {
        const QPointF at = inChart(event);
        const QRectF plot = chart()->plotArea();
        if (m_band->isVisible()) {
            const qreal x = std::clamp(at.x(), plot.left(), plot.right());
            m_band->setRect(QRectF(std::min(x, m_dragFrom), plot.top(), std::abs(x - m_dragFrom), plot.height()));
        }
        if (!plot.contains(at)) {
            m_marker->hide();
            return;
        }
        m_marker->setLine(at.x(), plot.top(), at.x(), plot.bottom());
        m_marker->show();
        m_owner->hoverAt(qint64(chart()->mapToValue(at).x()));
    }

    void mouseReleaseEvent(QMouseEvent *event) override
    {
        if (event->button() != Qt::LeftButton || !m_band->isVisible())
            return;
        m_band->hide();
        const QRectF band = m_band->rect();
        if (band.width() < 4)
            return; // a click, not a drag
        const qint64 from = qint64(chart()->mapToValue(band.topLeft()).x());
        const qint64 to = qint64(chart()->mapToValue(band.topRight()).x());
        m_owner->zoomTo(from, to);
    }

    void leaveEvent(QEvent *event) override
    {
        QChartView::leaveEvent(event);
        m_marker->hide();
    }

    void resizeEvent(QResizeEvent *event) override
    {
        QChartView::resizeEvent(event);
        m_owner->m_empty->setGeometry(rect());
        m_owner->labelTimeAxis(); // as many labels as the new width holds
    }

private:
    QPointF inChart(QMouseEvent *event) const { return chart()->mapFromScene(mapToScene(event->position().toPoint())); }

    TimeSeriesChart *m_owner;
    QGraphicsLineItem *m_marker;
    QGraphicsRectItem *m_band;
    qreal m_dragFrom = 0;
};

namespace {

// The point at or before ms (points are in time order); nullptr before the first.
const QPointF *pointAt(const QVector<QPointF> &points, qint64 ms)
{
    auto after = std::upper_bound(points.cbegin(), points.cend(), double(ms),
                                  [](double x, const QPointF &point) { return x < point.x(); });
    return after == points.cbegin() ? nullptr : &*(after - 1);
}

QString valueText(double value)
{
    return model::formatDecimal(value);
}

// How many time labels fit: one per 90 px or so ("HH:mm:ss" with room around it).
int timeTickBudget(const QRectF &plot)
{
    return std::clamp(int(plot.width() / 90), 2, 8);
}

} // namespace

TimeSeriesChart::TimeSeriesChart(QWidget *parent)
    : QWidget(parent)
{
    auto *chart = new QChart;
    // The theme first: it sets the axes' and background's colours, and would reset the series'.
    if (isDarkPalette())
        chart->setTheme(QChart::ChartThemeDark);
    chart->legend()->setAlignment(Qt::AlignTop);
    chart->setMargins(QMargins(4, 4, 4, 4));
    m_canvas = new ChartCanvas(this, chart);
    m_canvas->setObjectName(QStringLiteral("chartView"));
    m_canvas->timeAxis = new QCategoryAxis(chart);
    m_canvas->timeAxis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    m_canvas->timeAxis->setTitleText(tr("time (%1)").arg(timeZoneText(QDateTime::currentDateTime())));
    chart->addAxis(m_canvas->timeAxis, Qt::AlignBottom);
    m_canvas->leftAxis = new QValueAxis(chart);
    m_canvas->leftAxis->setLabelFormat(QStringLiteral("%.0f"));
    m_canvas->leftAxis->setMin(0);
    chart->addAxis(m_canvas->leftAxis, Qt::AlignLeft);

    // An empty chart says so in words, never with 00:00:00 ticks and a made-up scale.
    m_empty = new QLabel(tr("No samples yet."), m_canvas);
    m_empty->setObjectName(QStringLiteral("chartEmpty"));
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setWordWrap(true);
    m_empty->setStyleSheet(textStyle(Tone::Muted));

    m_hover = new QLabel(this);
    m_hover->setObjectName(QStringLiteral("chartHover"));
    m_hover->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_hover->setTextFormat(Qt::PlainText); // a mark's text names who changed what: never markup
    m_hover->setText(tr("Hover over the chart for values; drag across it to zoom in, right-click to zoom back out."));
    m_hover->setStyleSheet(textStyle(Tone::Muted));
    // A readout with another policy beside and a mark's who-and-what runs long: it wraps, in room kept for two
    // lines so the chart does not jump as the pointer moves, and never widens the window (it made it 1,326 px).
    m_hover->setWordWrap(true);
    m_hover->setMinimumHeight(2 * m_hover->fontMetrics().lineSpacing());

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_canvas, 1);
    layout->addWidget(m_hover);
    connect(chart, &QChart::plotAreaChanged, this, &TimeSeriesChart::placeMarks);
    showEmptyState(true); // until the first points
}

TimeSeriesChart::~TimeSeriesChart() = default;

int TimeSeriesChart::addSeries(const Series &series)
{
    if (series.axis == Axis::Right && !m_canvas->rightAxis) {
        m_canvas->rightAxis = new QValueAxis(m_canvas->chart());
        m_canvas->rightAxis->setLabelFormat(QStringLiteral("%.0f"));
        m_canvas->chart()->addAxis(m_canvas->rightAxis, Qt::AlignRight);
        showEmptyState(!m_empty->isHidden());
    }
    m_series << series;
    m_points << QVector<QPointF>();
    m_canvas->segments << QVector<QLineSeries *>();
    addSegment(int(m_series.size()) - 1);
    showSeriesName(int(m_series.size()) - 1);
    return int(m_series.size()) - 1;
}

QLineSeries *TimeSeriesChart::addSegment(int series)
{
    const Series &shape = m_series.at(series);
    QChart *chart = m_canvas->chart();
    auto *line = new QLineSeries(chart);
    QColor color = shape.color;
    if (shape.faint)
        color.setAlphaF(0.45);
    QPen pen(color, shape.width > 0 ? shape.width : shape.faint ? 1.5 : 2);
    line->setPen(pen);
    line->setPointsVisible(shape.markers);
    line->setUseOpenGL(false);
    chart->addSeries(line);
    line->attachAxis(m_canvas->timeAxis);
    line->attachAxis(shape.axis == Axis::Right ? m_canvas->rightAxis : m_canvas->leftAxis);
    QVector<QLineSeries *> &segments = m_canvas->segments[series];
    if (!segments.isEmpty()) // the series' first line stands for it in the legend
        for (QLegendMarker *marker : chart->legend()->markers(line))
            marker->setVisible(false);
    segments << line;
    return line;
}

void TimeSeriesChart::setSeriesName(int series, const QString &name)
{
    if (series < 0 || series >= m_series.size() || m_series.at(series).name == name)
        return; // Live names its Beside lines at every redraw
    m_series[series].name = name;
    showSeriesName(series);
}

void TimeSeriesChart::showSeriesName(int series)
{
    const QString &name = m_series.at(series).name;
    QLineSeries *first = m_canvas->segments.at(series).first(); // the one the legend shows
    first->setName(name);
    for (QLegendMarker *marker : m_canvas->chart()->legend()->markers(first))
        marker->setVisible(!name.isEmpty());
}

void TimeSeriesChart::setAxisTitles(const QString &left, const QString &right)
{
    m_canvas->leftAxis->setTitleText(left);
    if (m_canvas->rightAxis)
        m_canvas->rightAxis->setTitleText(right);
}

void TimeSeriesChart::setPoints(int series, const QVector<QPointF> &points)
{
    if (series < 0 || series >= m_series.size())
        return;
    m_points[series] = points;
    // Qt Charts drops NaN points and joins their neighbours: each unbroken run gets a line of its own.
    QVector<QList<QPointF>> runs(1);
    for (const QPointF &point : points) {
        if (!std::isnan(point.y()))
            runs.last() << point;
        else if (!runs.last().isEmpty())
            runs.append(QList<QPointF>());
    }
    while (m_canvas->segments.at(series).size() < runs.size())
        addSegment(series);
    const QVector<QLineSeries *> &segments = m_canvas->segments.at(series);
    for (int i = 0; i < segments.size(); ++i)
        segments.at(i)->replace(i < runs.size() ? runs.at(i) : QList<QPointF>());
    fitValueAxes();
}

QVector<QVector<QPointF>> TimeSeriesChart::drawnSegments(int series) const
{
    QVector<QVector<QPointF>> drawn;
    for (const QLineSeries *line : m_canvas->segments.value(series))
        if (line->count() > 0)
            drawn << line->points();
    return drawn;
}

void TimeSeriesChart::setTimeWindow(qint64 fromMs, qint64 toMs)
{
    m_windowFrom = fromMs;
    m_windowTo = std::max(toMs, fromMs + 1);
    if (m_zoomed)
        return;
    m_canvas->timeAxis->setRange(double(m_windowFrom), double(m_windowTo));
    fitValueAxes();
}

void TimeSeriesChart::resetZoom()
{
    const bool was = m_zoomed;
    m_zoomed = false;
    setTimeWindow(m_windowFrom, m_windowTo);
    if (was)
        Q_EMIT zoomChanged(false);
}

void TimeSeriesChart::zoomTo(qint64 fromMs, qint64 toMs)
{
    if (toMs <= fromMs)
        return;
    m_canvas->timeAxis->setRange(double(fromMs), double(toMs));
    fitValueAxes();
    if (!m_zoomed) {
        m_zoomed = true;
        Q_EMIT zoomChanged(true);
    }
}

std::pair<qint64, qint64> TimeSeriesChart::shownSpan() const
{
    return {qint64(m_canvas->timeAxis->min()), qint64(m_canvas->timeAxis->max())};
}

void TimeSeriesChart::fitValueAxes()
{
    const auto [from, to] = shownSpan();
    bool anyPoint = false;
    for (const Axis axis : {Axis::Left, Axis::Right}) {
        QValueAxis *values = axis == Axis::Left ? m_canvas->leftAxis : m_canvas->rightAxis;
        if (!values)
            continue;
        double peak = 0;
        for (int i = 0; i < m_series.size(); ++i) {
            if (m_series.at(i).axis != axis)
                continue;
            for (const QPointF &point : m_points.at(i)) {
                if (point.x() >= from && point.x() <= to && !std::isnan(point.y())) {
                    peak = std::max(peak, point.y());
                    anyPoint = true;
                }
            }
        }
        const ValueScale scale = valueScale(peak);
        double &fitted = m_fittedTop[axis == Axis::Left ? 0 : 1];
        if (scale.top == fitted)
            continue;
        fitted = scale.top; // the axes are laid out again only when the scale moves
        values->setTickType(QValueAxis::TicksDynamic);
        values->setTickAnchor(0);
        values->setLabelFormat(QStringLiteral("%.%1f").arg(scale.decimals));
        // The axis lays out a label per tick at each step: the new range under the old interval could
        // be tens of thousands of them (55 ms of the window's time), so the coarser of the two goes first.
        if (scale.step > values->tickInterval()) {
            values->setTickInterval(scale.step);
            values->setRange(0, scale.top);
        } else {
            values->setRange(0, scale.top);
            values->setTickInterval(scale.step);
        }
    }
    labelTimeAxis();
    showEmptyState(!anyPoint);
}

void TimeSeriesChart::labelTimeAxis()
{
    placeMarks(); // a handful of lines: cheaper than asking whether they moved
    QCategoryAxis *axis = m_canvas->timeAxis;
    const auto [from, to] = shownSpan();
    const std::tuple<qint64, qint64, qreal> labelledFor{from, to, m_canvas->chart()->plotArea().width()};
    if (labelledFor == m_labelledFor)
        return;
    m_labelledFor = labelledFor;
    const TimeTicks ticks = timeTicks(from, to, timeTickBudget(m_canvas->chart()->plotArea()),
                                      qint64(QDateTime::fromMSecsSinceEpoch(from).offsetFromUtc()) * 1000);
    const QStringList old = axis->categoriesLabels();
    QStringList labels;
    for (qint64 at : ticks.at)
        labels << QDateTime::fromMSecsSinceEpoch(at).toString(ticks.format);
    if (labels == old)
        return; // the same round times: nothing to lay out again (they move once a step)
    for (const QString &label : old)
        axis->remove(label);
    axis->setStartValue(double(from));
    for (int i = 0; i < ticks.at.size(); ++i)
        axis->append(labels.at(i), double(ticks.at.at(i)));
}

// Without labels Qt Charts leaves an axis title no room: it was drawn elided, a stray "⋮" or "…". An empty
// chart shows its words alone.
void TimeSeriesChart::showEmptyState(bool empty)
{
    m_empty->setVisible(empty);
    for (QAbstractAxis *axis : m_canvas->chart()->axes()) {
        axis->setLabelsVisible(!empty);
        axis->setTitleVisible(!empty);
    }
    if (empty)
        m_empty->setGeometry(m_canvas->rect());
}

void TimeSeriesChart::setEmptyText(const QString &text)
{
    m_empty->setText(text);
}

QString TimeSeriesChart::emptyText() const
{
    return m_empty->isHidden() ? QString() : m_empty->text();
}

QStringList TimeSeriesChart::timeLabels() const
{
    return m_canvas->timeAxis->labelsVisible() ? m_canvas->timeAxis->categoriesLabels() : QStringList();
}

QString TimeSeriesChart::valuesAt(qint64 ms) const
{
    QStringList parts;
    for (int i = 0; i < m_series.size(); ++i)
        if (const QPointF *point = pointAt(m_points.at(i), ms);
            point && !std::isnan(point->y()) && !m_series.at(i).name.isEmpty())
            parts << QStringLiteral("%1 %2").arg(m_series.at(i).name, valueText(point->y()));
    QString text = QDateTime::fromMSecsSinceEpoch(ms).toString(QStringLiteral("HH:mm:ss.zzz"))
        + QStringLiteral(" \u2014 ") + (parts.isEmpty() ? tr("no samples yet") : parts.join(QStringLiteral(", ")));
    // A mark counts as under the pointer within 6 px of it: a dashed line is hard to hit exactly.
    const auto [from, to] = shownSpan();
    const qreal width = std::max<qreal>(1, m_canvas->chart()->plotArea().width());
    const qint64 near = std::max<qint64>(1, qint64(6 * double(to - from) / width));
    for (const Mark &mark : m_marks)
        if (std::abs(mark.atMs - ms) <= near)
            text += QStringLiteral("  \u25b8 %1 %2")
                        .arg(QDateTime::fromMSecsSinceEpoch(mark.atMs).toString(QStringLiteral("HH:mm:ss")), mark.text);
    return text;
}

void TimeSeriesChart::setMarks(const QVector<Mark> &marks)
{
    m_marks = marks;
    std::sort(m_marks.begin(), m_marks.end(), [](const Mark &a, const Mark &b) { return a.atMs < b.atMs; });
    QVector<QGraphicsLineItem *> &lines = m_canvas->markLines;
    while (lines.size() > m_marks.size())
        delete lines.takeLast();
    while (lines.size() < m_marks.size()) {
        auto *line = new QGraphicsLineItem(m_canvas->chart());
        line->setPen(QPen(toneColor(Tone::Info), 1, Qt::DashLine));
        lines << line;
    }
    placeMarks();
}

QVector<TimeSeriesChart::Mark> TimeSeriesChart::drawnMarks() const
{
    QVector<Mark> drawn;
    for (int i = 0; i < m_marks.size(); ++i)
        if (m_canvas->markLines.at(i)->isVisible())
            drawn << m_marks.at(i);
    return drawn;
}

// Each mark's line at its time, from the span and the plot area as they are now.
void TimeSeriesChart::placeMarks()
{
    const QRectF plot = m_canvas->chart()->plotArea();
    const auto [from, to] = shownSpan();
    for (int i = 0; i < m_marks.size(); ++i) {
        QGraphicsLineItem *line = m_canvas->markLines.at(i);
        const qint64 at = m_marks.at(i).atMs;
        const bool shown = to > from && at >= from && at <= to && !plot.isEmpty();
        line->setVisible(shown);
        if (shown) {
            const qreal x = plot.left() + plot.width() * double(at - from) / double(to - from);
            line->setLine(x, plot.top(), x, plot.bottom());
        }
    }
}

void TimeSeriesChart::hoverAt(qint64 ms)
{
    m_hover->setText(valuesAt(ms));
}

QString TimeSeriesChart::hoverText() const
{
    return m_hover->text();
}

bool TimeSeriesChart::exportPng(const QString &path, QString *error) const
{
    QByteArray png;
    QBuffer buffer(&png);
    if (!buffer.open(QIODevice::WriteOnly) || !m_canvas->grab().save(&buffer, "PNG")) {
        *error = tr("Could not draw the chart as PNG.");
        return false;
    }
    if (const auto failure = model::writeWholeFile(path, png)) {
        *error = failure->message;
        return false;
    }
    return true;
}

} // namespace sluice::ui
