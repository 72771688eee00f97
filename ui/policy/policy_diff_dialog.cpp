// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/policy/policy_diff_dialog.h"

#include "ui/widgets/keyboard_use.h"
#include "ui/widgets/state_palette.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace sluice::ui {

PolicyDiffDialog::PolicyDiffDialog(const Content &content, QWidget *parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("policyDiff"));
    setWindowTitle(content.title);
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(content.intro, this);
    intro->setObjectName(QStringLiteral("diffIntro"));
    intro->setWordWrap(true);
    layout->addWidget(intro);

    auto *table = new QTableWidget(static_cast<int>(content.changes.size()), 3, this);
    table->setObjectName(QStringLiteral("diffTable"));
    table->setHorizontalHeaderLabels({tr("Field"), content.beforeLabel, content.afterLabel});
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionMode(QAbstractItemView::NoSelection);
    table->setFocusPolicy(Qt::NoFocus);
    table->setWordWrap(true);
    for (int row = 0; row < content.changes.size(); ++row) {
        const model::FieldChange &change = content.changes.at(row);
        table->setItem(row, 0, new QTableWidgetItem(change.label));
        auto *before = new QTableWidgetItem(change.before);
        auto *after = new QTableWidgetItem(change.after);
        before->setBackground(toneFill(Tone::Error));
        after->setBackground(toneFill(Tone::Ok));
        table->setItem(row, 1, before);
        table->setItem(row, 2, after);
    }
    table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    table->horizontalHeader()->setSectionResizeMode(2, QHeaderView::Stretch);
    table->resizeRowsToContents();
    layout->addWidget(table, 1);

    if (!content.warning.isEmpty()) {
        auto *warning = new QLabel(content.warning, this);
        warning->setObjectName(QStringLiteral("diffWarning"));
        warning->setWordWrap(true);
        warning->setStyleSheet(textStyle(Tone::Error));
        layout->addWidget(warning);
    }

    auto *buttons = new QDialogButtonBox(this);
    if (content.confirmText.isEmpty()) {
        buttons->addButton(QDialogButtonBox::Close);
    } else {
        QPushButton *confirm = buttons->addButton(content.confirmText, QDialogButtonBox::AcceptRole);
        confirm->setObjectName(QStringLiteral("confirmButton"));
        buttons->addButton(QDialogButtonBox::Cancel)->setDefault(true);
    }
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    readyForKeyboard(this);
    resize(640, 360);
}

} // namespace sluice::ui
