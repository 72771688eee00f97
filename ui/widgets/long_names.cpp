// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/widgets/long_names.h"

#include <QAbstractItemView>
#include <QComboBox>
#include <QStyledItemDelegate>
#include <QTableView>

namespace sluice::ui {

namespace {

class EndElidingDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override
    {
        QStyledItemDelegate::initStyleOption(option, index);
        option->textElideMode = Qt::ElideRight;
    }
};

} // namespace

void elideInTheMiddle(QAbstractItemView *view)
{
    if (auto *table = qobject_cast<QTableView *>(view))
        table->setWordWrap(false); // a wrapped cell elides its last line at the end
    view->setTextElideMode(Qt::ElideMiddle);
}

void elideInTheMiddle(QComboBox *box)
{
    if (box->minimumContentsLength() == 0)
        box->setMinimumContentsLength(16); // room for most names, whatever the longest
    box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    box->view()->setTextElideMode(Qt::ElideMiddle);
    const auto tipItems = [box](int first, int last) {
        for (int item = first; item <= last; ++item)
            box->setItemData(item, box->itemText(item), Qt::ToolTipRole);
    };
    tipItems(0, box->count() - 1);
    QObject::connect(box->model(), &QAbstractItemModel::rowsInserted, box,
                     [tipItems](const QModelIndex &, int first, int last) { tipItems(first, last); });
    QObject::connect(box, &QComboBox::currentTextChanged, box, [box](const QString &text) { box->setToolTip(text); });
}

void elideAtTheEnd(QAbstractItemView *view, int column)
{
    view->setItemDelegateForColumn(column, new EndElidingDelegate(view));
}

} // namespace sluice::ui
