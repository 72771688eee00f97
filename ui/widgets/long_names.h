// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

class QAbstractItemView;
class QComboBox;

namespace sluice::ui {

// Long policy names and subjects keep their start and end, which is what tells them apart: a view
// elides its cells in the middle, on one line (its model's tooltip has the whole text).
void elideInTheMiddle(QAbstractItemView *view);
// A drop-down elides its list in the middle, gives each item its whole text as a tooltip, and stays
// as wide as its minimum contents length whatever it holds, so a long name never widens the window.
void elideInTheMiddle(QComboBox *box);
// Prose (a description) reads from its start: a column of such a view elides at the end instead.
void elideAtTheEnd(QAbstractItemView *view, int column);

} // namespace sluice::ui
