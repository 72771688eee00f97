// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStyledItemDelegate>

namespace sluice::ui {

// Draws a small chart of the series a model gives as QList<qreal> under its roles, all on one scale
// (the largest peak): admissions in the allowed tone, rejections in the rejected tone over them, and
// a shadow policy's would-rejects dashed in the muted tone (they passed: never the rejected colour).
// A NaN value is a slot nothing was sampled in: the lines break there. While the row's stale role
// is true every line is muted: those figures are not the present's.
class SparklineDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    struct Roles {
        int allowed;
        int rejected;
        int wouldReject;
        int stale;
    };
    SparklineDelegate(Roles roles, QObject *parent = nullptr);

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;

private:
    Roles m_roles;
};

} // namespace sluice::ui
