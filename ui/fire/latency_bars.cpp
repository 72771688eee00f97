// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/fire/latency_bars.h"

#include "ui/widgets/state_palette.h"

#include <QLocale>
#include <QPainter>

#include <algorithm>

namespace sluice::ui {

LatencyBars::LatencyBars(QWidget *parent)
    : QWidget(parent)
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

QRect LatencyBars::plotArea() const
{
    const int labelHeight = fontMetrics().height() + 2;
    return rect().adjusted(4, 4 + labelHeight, -4, -4 - labelHeight); // shares above, steps below
}

QVector<LatencyBars::Label> LatencyBars::labels() const
{
    QVector<Label> placed;
    if (m_bars.isEmpty() || m_count == 0)
        return placed;
    const QRect plot = plotArea();
    const QRect area = rect().adjusted(4, 4, -4, -4);
    const int labelHeight = fontMetrics().height() + 2;
    const double slot = double(plot.width()) / m_bars.size();
    qint64 tallest = 1;
    for (const auto &bar : m_bars)
        tallest = std::max(tallest, bar.count);
    // Each row of labels left to right: one that would touch the one before is left out.
    int stepRight = area.left() - 1;
    int shareRight = area.left() - 1;
    for (int i = 0; i < m_bars.size(); ++i) {
        const auto &bar = m_bars.at(i);
        const int centre = plot.left() + int(slot * i + slot / 2);
        const auto centred = [&](const QString &text, int top) {
            const int width = fontMetrics().horizontalAdvance(text) + 4;
            const int left = std::clamp(centre - width / 2, area.left(), std::max(area.left(), area.right() - width));
            return QRect(left, top, width, labelHeight);
        };
        const QString step = stepLabel(bar.toUs);
        const QRect under = centred(step, plot.bottom() + 2);
        if (under.left() > stepRight + 2) {
            placed.append({under, step});
            stepRight = under.right();
        }
        if (bar.count == 0)
            continue;
        const int height = int(double(bar.count) / tallest * plot.height());
        const QString share = QStringLiteral("%1%").arg(
            QLocale().toString(100.0 * bar.count / m_count, 'f', bar.count * 1000 < m_count ? 2 : 0));
        const QRect above = centred(share, plot.bottom() - height - labelHeight);
        if (above.left() > shareRight + 2) {
            placed.append({above, share});
            shareRight = above.right();
        }
    }
    return placed;
}

void LatencyBars::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    const QRect plot = plotArea();
    painter.setPen(palette().color(QPalette::Mid));
    painter.drawLine(plot.bottomLeft(), plot.bottomRight());
    if (m_bars.isEmpty() || m_count == 0) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter, tr("Latencies appear here while firing."));
        return;
    }
    qint64 tallest = 1;
    for (const auto &bar : m_bars)
        tallest = std::max(tallest, bar.count);
    const double slot = double(plot.width()) / m_bars.size();
    for (int i = 0; i < m_bars.size(); ++i) {
        const int height = int(double(m_bars.at(i).count) / tallest * plot.height());
        const int left = plot.left() + int(slot * i + slot / 8);
        painter.fillRect(QRect(left, plot.bottom() - height, std::max(1, int(slot * 3 / 4)), height),
                         toneColor(Tone::Info));
    }
    painter.setPen(palette().color(QPalette::Text));
    for (const Label &label : labels())
        painter.drawText(label.rect, Qt::AlignCenter, label.text);
}

} // namespace sluice::ui
