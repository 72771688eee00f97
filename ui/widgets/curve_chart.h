// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ui/widgets/state_palette.h"

#include <QPointF>
#include <QVector>
#include <QWidget>

class QChart;
class QChartView;
class QLabel;
class QLineSeries;
class QLogValueAxis;
class QValueAxis;

namespace sluice::ui {

// A curve of a share against a count (limit -> share of requests rejected), the count on a
// logarithmic axis, with labelled vertical marks (the current limit, the suggestion). Beside
// TimeSeriesChart, the other place that knows it is drawn with Qt Charts.
class CurveChart : public QWidget {
    Q_OBJECT
public:
    struct Mark {
        qreal x = 0;
        QString label;
        Tone tone = Tone::Info;
    };

    explicit CurveChart(QWidget *parent = nullptr);

    void setAxisTitles(const QString &x, const QString &y);
    // Points sorted by x, every x at least 1; y a share from 0 to 1, drawn as a percentage.
    void setPoints(const QVector<QPointF> &points);
    void setMarks(const QVector<Mark> &marks);
    QVector<Mark> marks() const { return m_marks; }
    int pointCount() const { return int(m_points.size()); }
    // What an empty chart says instead of axes; empty while it has points.
    void setEmptyText(const QString &text);
    QString emptyText() const;

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void redraw();

    QChart *m_chart;
    QChartView *m_view;
    QLabel *m_empty;
    QLogValueAxis *m_x;
    QValueAxis *m_y;
    QLineSeries *m_curve;
    QVector<QLineSeries *> m_markLines;
    QVector<QPointF> m_points;
    QVector<Mark> m_marks;
};

} // namespace sluice::ui
