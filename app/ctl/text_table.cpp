// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/ctl/text_table.h"

namespace sluice::app {

TextTable::TextTable(std::initializer_list<Column> columns, int gap)
    : m_columns(columns)
    , m_gap(gap, QLatin1Char(' '))
{
}

QString TextTable::header() const
{
    QStringList titles;
    for (const Column &column : m_columns)
        titles << QLatin1String(column.title);
    return row(titles);
}

QString TextTable::row(const QStringList &cells) const
{
    QStringList padded;
    for (qsizetype i = 0; i < m_columns.size(); ++i)
        padded << QStringLiteral("%1").arg(cells.value(i), m_columns.at(i).width);
    return padded.join(m_gap);
}

} // namespace sluice::app
