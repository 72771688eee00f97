// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QColor>
#include <QPointF>
#include <QVector>
#include <QWidget>

#include <tuple>

class QLabel;
class QLineSeries;

namespace sluice::ui {

class ChartCanvas;

// A live chart of values over time: every series on a time axis (ms since the epoch), on a left or
// right value axis. Drag across it to zoom into a span, right-click to go back; hovering
// shows each series' value at that time. The only place that knows it is drawn with Qt Charts, so
// another chart library can take its place behind the same calls.
class TimeSeriesChart : public QWidget {
    Q_OBJECT
public:
    enum class Axis { Left, Right };
    struct Series {
        QString name;
        QColor color;
        Axis axis = Axis::Left;
        bool faint = false; // thin and pale: a projection, not readings (solid: dashes cost a lot to draw on a zigzag)
        bool markers = false; // draw each point (samples between which a line is projected)
        qreal width = 0;      // the line's width; 0: 2, or 1.5 when faint (a wide faint line is a band)
    };

    // Something that happened at a moment (a publish, an edit, a reset): a dashed line across the plot, its
    // text in the hover readout when the pointer is on it.
    struct Mark {
        qint64 atMs = 0;
        QString text;
    };

    explicit TimeSeriesChart(QWidget *parent = nullptr);
    ~TimeSeriesChart() override;

    int addSeries(const Series &series);
    void setAxisTitles(const QString &left, const QString &right = {});
    // Renames a series in the legend and the hover readout; an empty name leaves it out of the legend.
    void setSeriesName(int series, const QString &name);
    // x in ms since the epoch; points in time order. A point whose y is NaN breaks the line there:
    // a stretch without data is a gap, never a line drawn across it.
    void setPoints(int series, const QVector<QPointF> &points);
    // The lines drawn for `series`, one per unbroken run of points.
    QVector<QVector<QPointF>> drawnSegments(int series) const;
    // The span shown while not zoomed.
    void setTimeWindow(qint64 fromMs, qint64 toMs);
    bool isZoomed() const { return m_zoomed; }
    // Shows [fromMs, toMs] until resetZoom(), whatever the window does meanwhile.
    void zoomTo(qint64 fromMs, qint64 toMs);
    void resetZoom();
    // The span shown now (the zoomed one, while zoomed).
    std::pair<qint64, qint64> shownSpan() const;
    // Replaces the marks; those outside the span shown are not drawn.
    void setMarks(const QVector<Mark> &marks);
    // The marks drawn now, in time order.
    QVector<Mark> drawnMarks() const;
    // What hovering at `ms` shows: the time and each series' value there (the latest point at or before it),
    // then the text of every mark within a few pixels of it.
    QString valuesAt(qint64 ms) const;
    QString hoverText() const;
    // What an empty chart says instead of ticks ("No samples yet." until set); empty while it has data.
    void setEmptyText(const QString &text);
    QString emptyText() const;
    // The time axis' labels as shown (none while empty).
    QStringList timeLabels() const;
    bool exportPng(const QString &path, QString *error) const;

Q_SIGNALS:
    void zoomChanged(bool zoomed);

private:
    friend class ChartCanvas;
    QLineSeries *addSegment(int series);
    void showSeriesName(int series); // in the legend, or out of it when empty
    void hoverAt(qint64 ms);
    void fitValueAxes();
    void labelTimeAxis();
    void showEmptyState(bool empty);
    void placeMarks();

    ChartCanvas *m_canvas;
    QLabel *m_hover;
    QLabel *m_empty;
    QVector<Series> m_series;
    QVector<QVector<QPointF>> m_points;
    QVector<Mark> m_marks; // in time order
    qint64 m_windowFrom = 0;
    qint64 m_windowTo = 0;
    bool m_zoomed = false;
    // The top each value axis was last fitted to: the axes are laid out again only when it moves
    // (a relayout costs more than the rest of a live redraw).
    double m_fittedTop[2] = {0, 0};
    // The span and plot width the time axis was last labelled for: a live tick sets every series and then
    // the window, and only the window moves the labels (each one is a local-time conversion).
    std::tuple<qint64, qint64, qreal> m_labelledFor{0, 0, 0};
};

} // namespace sluice::ui
