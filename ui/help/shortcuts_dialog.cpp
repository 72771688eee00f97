// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/help/shortcuts_dialog.h"

#include "ui/widgets/keyboard_use.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QSet>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

namespace sluice::ui {

namespace {

// "&Import policies…" as "Import policies".
QString plainText(QString text)
{
    text.replace(QLatin1String("&&"), QLatin1String("\x01"));
    text.remove(QLatin1Char('&'));
    text.replace(QLatin1Char('\x01'), QLatin1Char('&'));
    if (text.endsWith(QChar(0x2026)))
        text.chop(1);
    return text;
}

// "Alt+F" for "&File", or nothing when the text has no mnemonic.
QString altKeys(const QString &text)
{
    for (qsizetype at = 0; at + 1 < text.size(); ++at) {
        if (text.at(at) != QLatin1Char('&'))
            continue;
        if (text.at(at + 1) != QLatin1Char('&'))
            return QKeySequence(QKeyCombination(Qt::ALT, static_cast<Qt::Key>(text.at(at + 1).toUpper().unicode())))
                .toString(QKeySequence::NativeText);
        ++at;
    }
    return {};
}

QString keysOf(const QAction &action)
{
    QStringList keys;
    for (const QKeySequence &sequence : action.shortcuts())
        keys << sequence.toString(QKeySequence::NativeText);
    return keys.join(QLatin1String(", "));
}

void addMenu(const QMenu &menu, const QString &where, QList<Shortcut> &rows, QSet<const QAction *> &listed)
{
    for (const QAction *action : menu.actions()) {
        listed.insert(action);
        if (action->menu())
            addMenu(*action->menu(), where, rows, listed);
        else if (!action->shortcut().isEmpty())
            rows.append({keysOf(*action), plainText(action->text()), where});
    }
}

// The tab that holds the widget, or "Window" when it is on none.
QString placeOf(QWidget *widget, const QTabWidget &tabs)
{
    for (; widget; widget = widget->parentWidget())
        if (const int index = tabs.indexOf(widget); index >= 0)
            return QObject::tr("%1 tab").arg(plainText(tabs.tabText(index)));
    return QObject::tr("Window");
}

} // namespace

QList<Shortcut> windowShortcuts(const QMainWindow &window, const QTabWidget &tabs)
{
    QList<Shortcut> rows;
    const QString everywhere = QObject::tr("Window");
    for (const QAction *menuAction : window.menuBar()->actions())
        if (const QString keys = altKeys(menuAction->text()); !keys.isEmpty())
            rows.append({keys, QObject::tr("Open the %1 menu").arg(plainText(menuAction->text())), everywhere});
    for (int index = 0; index < tabs.count(); ++index)
        if (const QString keys = altKeys(tabs.tabText(index)); !keys.isEmpty())
            rows.append({keys, QObject::tr("Show the %1 tab").arg(plainText(tabs.tabText(index))), everywhere});
    QSet<const QAction *> listed;
    for (const QAction *menuAction : window.menuBar()->actions())
        if (menuAction->menu())
            addMenu(*menuAction->menu(), QObject::tr("%1 menu").arg(plainText(menuAction->text())), rows, listed);
    for (const QAction *action : window.findChildren<QAction *>()) {
        auto *owner = qobject_cast<QWidget *>(action->parent());
        if (listed.contains(action) || action->shortcut().isEmpty() || (owner && owner->window() != &window))
            continue;
        rows.append({keysOf(*action), plainText(action->text()), placeOf(owner, tabs)});
    }
    return rows;
}

ShortcutsDialog::ShortcutsDialog(const QList<Shortcut> &shortcuts, QWidget *parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("shortcutsDialog"));
    setWindowTitle(tr("Keyboard shortcuts"));
    auto *table = new QTableWidget(int(shortcuts.size()), 3, this);
    table->setObjectName(QStringLiteral("shortcutsTable"));
    table->setAccessibleName(tr("Keyboard shortcuts"));
    table->setHorizontalHeaderLabels({tr("Keys"), tr("Does"), tr("Where")});
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->verticalHeader()->hide();
    for (int row = 0; row < shortcuts.size(); ++row) {
        const Shortcut &shortcut = shortcuts.at(row);
        table->setItem(row, 0, new QTableWidgetItem(shortcut.keys));
        table->setItem(row, 1, new QTableWidgetItem(shortcut.does));
        table->setItem(row, 2, new QTableWidgetItem(shortcut.where));
    }
    table->resizeColumnsToContents();
    table->horizontalHeader()->setStretchLastSection(true);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(table, 1);
    layout->addWidget(buttons);
    readyForKeyboard(this);
    resize(640, 520);
}

} // namespace sluice::ui
