// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/widgets/sparkline_delegate.h"

#include "ui/widgets/state_palette.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace sluice::ui {

namespace {

// The values as a line, right-aligned (the newest at the right edge, however few there are yet),
// broken at every NaN.
QPainterPath polyline(const QList<qreal> &values, const QRectF &area, qreal peak, int slots)
{
    QPainterPath path;
    const qreal step = slots > 1 ? area.width() / (slots - 1) : 0;
    const qreal start = area.right() - step * (values.size() - 1);
    bool broken = true;
    for (int i = 0; i < values.size(); ++i) {
        if (std::isnan(values.at(i))) {
            broken = true;
            continue;
        }
        const QPointF point(start + step * i, area.bottom() - area.height() * values.at(i) / peak);
        if (broken)
            path.moveTo(point);
        else
            path.lineTo(point);
        broken = false;
    }
    return path;
}

} // namespace

SparklineDelegate::SparklineDelegate(Roles roles, QObject *parent)
    : QStyledItemDelegate(parent)
    , m_roles(roles)
{
}

void SparklineDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QStyledItemDelegate::paint(painter, option, index); // background and selection
    const QList<qreal> series[]
        = {index.data(m_roles.allowed).value<QList<qreal>>(), index.data(m_roles.rejected).value<QList<qreal>>(),
           index.data(m_roles.wouldReject).value<QList<qreal>>()};
    qreal peak = 0;
    int slots = 0;
    for (const QList<qreal> &values : series) {
        for (qreal value : values)
            if (!std::isnan(value))
                peak = std::max(peak, value);
        slots = std::max(slots, int(values.size()));
    }
    if (slots == 0)
        return;
    if (peak <= 0)
        peak = 1; // all zero: flat lines at the bottom
    const bool stale = index.data(m_roles.stale).toBool();
    const QRectF area = QRectF(option.rect).adjusted(4, 4, -4, -4);
    const QPen pens[]
        = {QPen(toneColor(stale ? Tone::Muted : Tone::Allowed), 1.2),
           QPen(toneColor(stale ? Tone::Muted : Tone::Rejected), 1.6), QPen(toneColor(Tone::Muted), 1.4, Qt::DashLine)};
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    for (int i = 0; i < 3; ++i) {
        painter->setPen(pens[i]);
        painter->drawPath(polyline(series[i], area, peak, slots));
    }
    painter->restore();
}

QSize SparklineDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    return QStyledItemDelegate::sizeHint(option, index).expandedTo(QSize(160, 24));
}

} // namespace sluice::ui
