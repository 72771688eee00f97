// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/window/window_state.h"

#include "ui/window/main_window.h"

#include <QSettings>
#include <QSplitter>
#include <QTabWidget>

namespace sluice::ui {

namespace {

const QString geometryKey = QStringLiteral("window/geometry");
const QString tabKey = QStringLiteral("window/tab");
const QString splitterGroup = QStringLiteral("window/splitters");

QTabWidget *mainTabs(const MainWindow *window)
{
    return window->findChild<QTabWidget *>(QStringLiteral("mainTabs"));
}

} // namespace

SplitterStates splitterStates(const QWidget *root)
{
    SplitterStates states;
    for (const QSplitter *splitter : root->findChildren<QSplitter *>())
        if (!splitter->objectName().isEmpty())
            states.insert(splitter->objectName(), splitter->saveState());
    return states;
}

void restoreSplitterStates(QWidget *root, const SplitterStates &states)
{
    for (QSplitter *splitter : root->findChildren<QSplitter *>()) {
        const auto state = states.constFind(splitter->objectName());
        if (splitter->objectName().isEmpty() || state == states.constEnd())
            continue;
        const Qt::Orientation built = splitter->orientation();
        splitter->restoreState(*state); // false, and nothing done, when damaged
        splitter->setOrientation(built);
    }
}

void restoreWindowState(MainWindow *window, QSettings *settings)
{
    window->restoreGeometry(settings->value(geometryKey).toByteArray()); // false, and nothing done, when damaged
    SplitterStates states;
    settings->beginGroup(splitterGroup);
    for (const QString &name : settings->childKeys())
        states.insert(name, settings->value(name).toByteArray());
    settings->endGroup();
    window->setSplitterStates(states);
    if (QTabWidget *tabs = mainTabs(window)) {
        bool ok = false;
        const int tab = settings->value(tabKey).toInt(&ok);
        if (ok && tab >= 0 && tab < tabs->count())
            tabs->setCurrentIndex(tab);
    }
}

void saveWindowState(const MainWindow *window, QSettings *settings)
{
    settings->setValue(geometryKey, window->saveGeometry());
    // Earlier builds filed splitters by their order ("window/splitter0"), which another build may not share.
    settings->beginGroup(QStringLiteral("window"));
    for (const QString &key : settings->childKeys())
        if (key.startsWith(QLatin1String("splitter")))
            settings->remove(key);
    settings->endGroup();
    settings->beginGroup(splitterGroup);
    const SplitterStates states = splitterStates(window);
    for (auto state = states.constBegin(); state != states.constEnd(); ++state)
        settings->setValue(state.key(), state.value());
    settings->endGroup();
    if (const QTabWidget *tabs = mainTabs(window))
        settings->setValue(tabKey, tabs->currentIndex());
    settings->sync();
}

} // namespace sluice::ui
