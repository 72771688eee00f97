// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/window/window_state.h"

#include <QMainWindow>
#include <QSettings>
#include <QSplitter>
#include <QTabWidget>

namespace sluice::ui {

namespace {

const QString geometryKey = QStringLiteral("window/geometry");
const QString tabKey = QStringLiteral("window/tab");

// Splitters are made in the same order by every run of the same build, so their order names them.
QString splitterKey(int index)
{
    return QStringLiteral("window/splitter%1").arg(index);
}

QTabWidget *mainTabs(const QMainWindow *window)
{
    return window->findChild<QTabWidget *>(QStringLiteral("mainTabs"));
}

} // namespace

void restoreWindowState(QMainWindow *window, QSettings *settings)
{
    window->restoreGeometry(settings->value(geometryKey).toByteArray()); // false, and nothing done, when damaged
    const QList<QSplitter *> splitters = window->findChildren<QSplitter *>();
    for (int i = 0; i < splitters.size(); ++i)
        splitters.at(i)->restoreState(settings->value(splitterKey(i)).toByteArray());
    if (QTabWidget *tabs = mainTabs(window)) {
        bool ok = false;
        const int tab = settings->value(tabKey).toInt(&ok);
        if (ok && tab >= 0 && tab < tabs->count())
            tabs->setCurrentIndex(tab);
    }
}

void saveWindowState(const QMainWindow *window, QSettings *settings)
{
    settings->setValue(geometryKey, window->saveGeometry());
    const QList<QSplitter *> splitters = window->findChildren<QSplitter *>();
    for (int i = 0; i < splitters.size(); ++i)
        settings->setValue(splitterKey(i), splitters.at(i)->saveState());
    if (const QTabWidget *tabs = mainTabs(window))
        settings->setValue(tabKey, tabs->currentIndex());
    settings->sync();
}

} // namespace sluice::ui
