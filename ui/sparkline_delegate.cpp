// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/sparkline_delegate.h"
#include "ui/state_palette.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>

namespace sluice::ui {

namespace {

QPainterPath polyline(const QList<qreal> &values, const QRectF &area, qreal peak, int slots)
{
    QPainterPath path;
    const qreal step = slots > 1 ? area.width() / (slots - 1) : 0;
    // Right-aligned: the newest value is at the right edge, however few there are yet.
    const qreal start = area.right() - step * (values.size() - 1);
    for (int i = 0; i < values.size(); ++i) {
        const QPointF point(start + step * i, area.bottom() - area.height() * values.at(i) / peak);
        if (i == 0)
            path.moveTo(point);
        else
            path.lineTo(point);
    }
    return path;
}

} // namespace

SparklineDelegate::SparklineDelegate(int allowedRole, int rejectedRole, QObject *parent)
    : QStyledItemDelegate(parent)
    , m_allowedRole(allowedRole)
    , m_rejectedRole(rejectedRole)
{
}

void SparklineDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QStyledItemDelegate::paint(painter, option, index); // background and selection
    const QList<qreal> allowed = index.data(m_allowedRole).value<QList<qreal>>();
    const QList<qreal> rejected = index.data(m_rejectedRole).value<QList<qreal>>();
    if (allowed.isEmpty() && rejected.isEmpty())
        return;
    qreal peak = 0;
    for (qreal value : allowed)
        peak = std::max(peak, value);
    for (qreal value : rejected)
        peak = std::max(peak, value);
    if (peak <= 0)
        peak = 1; // all zero: flat lines at the bottom
    const QRectF area = QRectF(option.rect).adjusted(4, 4, -4, -4);
    const int slots = int(std::max(allowed.size(), rejected.size()));
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setPen(QPen(toneColor(Tone::Allowed), 1.2));
    painter->drawPath(polyline(allowed, area, peak, slots));
    painter->setPen(QPen(toneColor(Tone::Rejected), 1.6));
    painter->drawPath(polyline(rejected, area, peak, slots));
    painter->restore();
}

QSize SparklineDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    return QStyledItemDelegate::sizeHint(option, index).expandedTo(QSize(160, 24));
}

} // namespace sluice::ui
