// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringList>
#include <QVector>

#include <initializer_list>

namespace sluice::app {

// A plain-text table as sluicectl prints it: each column padded to its width (negative widths
// align left, 0 leaves the cell as it is), `gap` spaces apart. Cells are never cut.
class TextTable {
public:
    struct Column {
        const char *title;
        int width;
    };

    TextTable(std::initializer_list<Column> columns, int gap);

    QString header() const;
    QString row(const QStringList &cells) const;

private:
    QVector<Column> m_columns;
    QString m_gap;
};

} // namespace sluice::app
