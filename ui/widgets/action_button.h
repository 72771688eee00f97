// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

class QAbstractButton;
class QAction;
class QWidget;

namespace sluice::ui {

// Makes `button` press `action` and follow its enabled state, so a menu entry and a tab's button are one
// command. The button keeps its own text (it says less than a menu entry) and tooltip.
void pressesAction(QAbstractButton *button, QAction *action);

// Brings `page` to the front of the tab widget it is a page of (a command from a menu acts where it is seen);
// nothing when it is no tab's page.
void showPage(QWidget *page);

} // namespace sluice::ui
