// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/widgets/action_button.h"

#include <QAbstractButton>
#include <QAction>
#include <QTabWidget>

namespace sluice::ui {

void pressesAction(QAbstractButton *button, QAction *action)
{
    button->setEnabled(action->isEnabled());
    QObject::connect(action, &QAction::enabledChanged, button, &QWidget::setEnabled);
    QObject::connect(button, &QAbstractButton::clicked, action, [action] { action->trigger(); });
}

void showPage(QWidget *page)
{
    for (QWidget *ancestor = page->parentWidget(); ancestor; ancestor = ancestor->parentWidget()) {
        if (auto *tabs = qobject_cast<QTabWidget *>(ancestor)) {
            if (tabs->indexOf(page) >= 0)
                tabs->setCurrentWidget(page);
            return;
        }
    }
}

} // namespace sluice::ui
