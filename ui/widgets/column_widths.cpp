// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/widgets/column_widths.h"

#include <QHeaderView>
#include <QTableView>

#include <algorithm>

namespace sluice::ui {

void setColumnWidths(QTableView *table, int stretch, const std::vector<std::pair<int, QString>> &samples)
{
    QHeaderView *header = table->horizontalHeader();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(QHeaderView::Interactive);
    header->setSectionResizeMode(stretch, QHeaderView::Stretch);
    const QFontMetrics cells = table->fontMetrics();
    const QFontMetrics titles = header->fontMetrics();
    constexpr int padding = 24; // the cell's margins and a sort indicator's room
    for (const auto &[column, sample] : samples) {
        const QString title
            = header->model() ? header->model()->headerData(column, Qt::Horizontal).toString() : QString();
        header->resizeSection(column,
                              std::max(cells.horizontalAdvance(sample), titles.horizontalAdvance(title)) + padding);
    }
}

} // namespace sluice::ui
