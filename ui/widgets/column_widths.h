// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include <utility>
#include <vector>

class QTableView;

namespace sluice::ui {

// Gives each listed column a fixed width that fits its sample text (and the header's own title);
// the column named `stretch` takes the rest. Live tables use this instead of sizing columns to
// their contents, which measures every row again at each change.
void setColumnWidths(QTableView *table, int stretch, const std::vector<std::pair<int, QString>> &samples);

} // namespace sluice::ui
