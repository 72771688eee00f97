// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDialog>
#include <QList>
#include <QString>

class QMainWindow;
class QTabWidget;

namespace sluice::ui {

// One key the window answers: the keys, what they do, and where they work.
struct Shortcut {
    QString keys;
    QString does;
    QString where;
};

// Read from the window itself, so the list cannot go out of date: each menu and tab's Alt+letter, every menu
// entry with keys, and every other action of the window with keys, placed on the tab that holds it.
QList<Shortcut> windowShortcuts(const QMainWindow &window, const QTabWidget &tabs);

// Help > Keyboard shortcuts: windowShortcuts() as a table.
class ShortcutsDialog : public QDialog {
    Q_OBJECT
public:
    ShortcutsDialog(const QList<Shortcut> &shortcuts, QWidget *parent);
};

} // namespace sluice::ui
