// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ui/widgets/state_palette.h"

#include <QModelIndex>

#include <functional>
#include <optional>

class QAbstractItemView;

namespace sluice::ui {

// The tone of one cell's text, or none for the palette's own text colour.
using CellTone = std::function<std::optional<Tone>(const QModelIndex &)>;

// A column whose text says a state (published, drifted) in the colour of what it means, in bold, so
// that the row needing a look stands out without being selected.
void colourByTone(QAbstractItemView *view, int column, CellTone toneOf);

} // namespace sluice::ui
