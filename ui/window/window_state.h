// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QHash>
#include <QString>

class QSettings;
class QWidget;

namespace sluice::ui {

// What an operator arranged last time: the window's size and place, the position of every named splitter
// in it and the tab in front, kept in the settings beside the connection profiles (group "window").
// Restoring is best effort: a missing or damaged value leaves that part as the window lays it out.
class MainWindow;
void restoreWindowState(MainWindow *window, QSettings *settings);
void saveWindowState(const MainWindow *window, QSettings *settings);

// The splitters under `root` by object name (unnamed ones are not kept), and putting states back: sizes
// only, each splitter keeps the orientation its view gave it, so a state saved by another build or
// filed under another splitter's name can never turn side by side into stacked.
using SplitterStates = QHash<QString, QByteArray>;
SplitterStates splitterStates(const QWidget *root);
void restoreSplitterStates(QWidget *root, const SplitterStates &states);

} // namespace sluice::ui
