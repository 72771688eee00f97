// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/widgets/tone_delegate.h"

#include <QAbstractItemView>
#include <QStyledItemDelegate>

namespace sluice::ui {

namespace {

class ToneDelegate : public QStyledItemDelegate {
public:
    ToneDelegate(CellTone toneOf, QObject *parent)
        : QStyledItemDelegate(parent)
        , m_toneOf(std::move(toneOf))
    {
    }

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override
    {
        QStyledItemDelegate::initStyleOption(option, index);
        if (const std::optional<Tone> tone = m_toneOf(index)) {
            option->palette.setColor(QPalette::Text, toneColor(*tone));
            option->font.setBold(true);
        }
    }

private:
    CellTone m_toneOf;
};

} // namespace

void colourByTone(QAbstractItemView *view, int column, CellTone toneOf)
{
    view->setItemDelegateForColumn(column, new ToneDelegate(std::move(toneOf), view));
}

} // namespace sluice::ui
