// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStyledItemDelegate>

namespace sluice::ui {

// Draws a small chart of two series a model gives as QList<qreal> under two roles: admissions in
// green, rejections in red over them, both on one scale (the larger series' peak).
class SparklineDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    SparklineDelegate(int allowedRole, int rejectedRole, QObject *parent = nullptr);

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;

private:
    int m_allowedRole;
    int m_rejectedRole;
};

} // namespace sluice::ui
