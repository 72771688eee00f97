// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/fire/latency_histogram.h"

#include <QWidget>

namespace sluice::ui {

// A latency histogram as bars on 1-2-5 steps (10 µs, 20 µs, 50 µs, 100 µs, ...), each bar as tall
// as its share of the calls answered within its step (and above the one before), the step's
// upper bound under it. Labels that would overlap at the width shown are left out (every other
// one, every third ...), so what is drawn is always legible.
class LatencyBars : public QWidget {
    Q_OBJECT
public:
    explicit LatencyBars(QWidget *parent = nullptr);
    void setHistogram(const model::LatencyHistogram &histogram);
    const QVector<model::LatencyHistogram::Bar> &bars() const { return m_bars; }
    QSize sizeHint() const override;

    // "10µs", "2ms": how a step's upper bound is labelled.
    static QString stepLabel(qint64 microseconds);

    // A text drawn at the current size: step bounds under the bars, shares above them.
    struct Label {
        QRect rect;
        QString text;
    };
    QVector<Label> labels() const;

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    QRect plotArea() const;
    QVector<model::LatencyHistogram::Bar> m_bars;
    qint64 m_count = 0;
};

} // namespace sluice::ui
