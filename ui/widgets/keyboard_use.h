// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

class QWidget;

namespace sluice::ui {

// Makes a dialog's controls reachable from the keyboard alone, once its widgets are in place: Tab leaves
// every table and list (they keep the arrow keys), and every button without a mnemonic gets one, on the
// first letter of a word that no other button of the dialog uses, else on any letter of it no other uses
// (so Alt+letter presses it).
void readyForKeyboard(QWidget *dialog);

} // namespace sluice::ui
