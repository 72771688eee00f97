// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/latency_bars.h"

#include <QPainter>

#include <algorithm>

namespace sluice::ui {

LatencyBars::LatencyBars(QWidget *parent) : QWidget(parent)
{
    setMinimumHeight(90);
    setToolTip(tr("Each bar: the share of calls answered within its step and above the one before."));
}

QSize LatencyBars::sizeHint() const
{
    return {300, 110};
}

QString LatencyBars::stepLabel(qint64 microseconds)
{
    if (microseconds < 1000)
        return QStringLiteral("%1\u00b5s").arg(microseconds);
    if (microseconds < 1'000'000)
        return QStringLiteral("%1ms").arg(microseconds / 1000);
    return QStringLiteral("%1s").arg(microseconds / 1'000'000);
}

void LatencyBars::setHistogram(const model::LatencyHistogram &histogram)
{
    // From the step before the first that holds a call: the empty fast steps say nothing.
    m_bars = histogram.bars();
    const auto first = std::find_if(m_bars.begin(), m_bars.end(), [](const auto &bar) { return bar.count > 0; });
    if (first != m_bars.end() && first - m_bars.begin() > 1)
        m_bars.erase(m_bars.begin(), first - 1);
    m_count = histogram.count();
    update();
}

void LatencyBars::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    const QRect area = rect().adjusted(4, 4, -4, -4);
    const int labelHeight = fontMetrics().height() + 2;
    const QRect plot = area.adjusted(0, labelHeight, 0, -labelHeight); // share above, step below
    painter.setPen(palette().color(QPalette::Mid));
    painter.drawLine(plot.bottomLeft(), plot.bottomRight());
    if (m_bars.isEmpty() || m_count == 0) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(area, Qt::AlignCenter, tr("Latencies appear here while firing."));
        return;
    }
    qint64 tallest = 1;
    for (const auto &bar : m_bars)
        tallest = std::max(tallest, bar.count);
    const int slot = std::max(1, plot.width() / int(m_bars.size()));
    const QColor fill(0x1a, 0x73, 0xe8);
    for (int i = 0; i < m_bars.size(); ++i) {
        const auto &bar = m_bars.at(i);
        const int height = int(double(bar.count) / tallest * plot.height());
        const QRect column(plot.left() + i * slot + slot / 8, plot.bottom() - height, slot - slot / 4, height);
        painter.fillRect(column, fill);
        painter.setPen(palette().color(QPalette::Text));
        const QRect under(plot.left() + i * slot, plot.bottom() + 2, slot, labelHeight);
        painter.drawText(under, Qt::AlignHCenter | Qt::AlignTop, stepLabel(bar.toUs));
        if (bar.count > 0) {
            const QRect above(column.left() - slot / 8, column.top() - labelHeight, slot, labelHeight);
            painter.drawText(
                above, Qt::AlignHCenter | Qt::AlignBottom,
                QStringLiteral("%1%").arg(100.0 * bar.count / m_count, 0, 'f', bar.count * 1000 < m_count ? 2 : 0));
        }
    }
}

} // namespace sluice::ui
