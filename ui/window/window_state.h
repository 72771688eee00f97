// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

class QMainWindow;
class QSettings;

namespace sluice::ui {

// What an operator arranged last time: the window's size and place, the position of every splitter
// in it and the tab in front, kept in the settings beside the connection profiles (group "window").
// Restoring is best effort: a missing or damaged value leaves that part as the window lays it out.
void restoreWindowState(QMainWindow *window, QSettings *settings);
void saveWindowState(const QMainWindow *window, QSettings *settings);

} // namespace sluice::ui
