// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/policy/conflict_dialog.h"

#include "model/format/units.h"
#include "model/policy/policy_diff.h"
#include "ui/widgets/keyboard_use.h"
#include "ui/widgets/state_palette.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace sluice::ui {

ConflictDialog::ConflictDialog(const std::optional<model::Policy> &base, const std::optional<model::Policy> &theirs,
                               const model::Policy &mine, QWidget *parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("conflictDialog"));
    setWindowTitle(tr("Saved by someone else"));
    auto *layout = new QVBoxLayout(this);

    QString intro;
    if (!theirs)
        intro = tr("\u201c%1\u201d was deleted after you opened it. Nothing of yours was saved.").arg(mine.name);
    else if (!base)
        intro = tr("%1 created \u201c%2\u201d at %3 while you were writing yours. Nothing of yours was saved.")
                    .arg(theirs->updatedBy, theirs->name, model::formatClock(theirs->updatedAtMs));
    else
        intro
            = tr("%1 saved \u201c%2\u201d (version %3) at %4, after you opened version %5. Nothing of yours was saved.")
                  .arg(theirs->updatedBy, theirs->name)
                  .arg(theirs->version)
                  .arg(model::formatClock(theirs->updatedAtMs))
                  .arg(base->version);
    auto *introLabel = new QLabel(intro, this);
    introLabel->setObjectName(QStringLiteral("conflictIntro"));
    introLabel->setWordWrap(true);
    layout->addWidget(introLabel);

    // Every field either side changed, against what the editor started from.
    auto *table = new QTableWidget(0, 4, this);
    table->setObjectName(QStringLiteral("conflictTable"));
    table->setHorizontalHeaderLabels(
        {tr("Field"), base ? tr("When you opened it (v%1)").arg(base->version) : tr("Before"),
         theirs ? tr("Theirs (v%1, %2)").arg(theirs->version).arg(theirs->updatedBy) : tr("Theirs (deleted)"),
         tr("Yours")});
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionMode(QAbstractItemView::NoSelection);
    table->setFocusPolicy(Qt::NoFocus);
    const auto fields = model::definitionFields(mine);
    const auto baseFields = base ? model::definitionFields(*base) : QVector<model::DefinitionField>(fields.size());
    const auto theirFields = theirs ? model::definitionFields(*theirs) : QVector<model::DefinitionField>(fields.size());
    for (int field = 0; field < fields.size(); ++field) {
        const QString before = baseFields.at(field).text;
        const QString their = theirFields.at(field).text;
        const QString yours = fields.at(field).text;
        if (base && their == before && yours == before)
            continue;
        const int row = table->rowCount();
        table->insertRow(row);
        table->setItem(row, 0, new QTableWidgetItem(fields.at(field).label));
        table->setItem(row, 1, new QTableWidgetItem(before));
        auto *theirItem = new QTableWidgetItem(their);
        auto *yourItem = new QTableWidgetItem(yours);
        if (their != before)
            theirItem->setBackground(toneFill(Tone::Warning));
        if (yours != before)
            yourItem->setBackground(toneFill(Tone::Ok));
        if (their != yours && their != before && yours != before)
            yourItem->setToolTip(tr("You both changed this field."));
        table->setItem(row, 2, theirItem);
        table->setItem(row, 3, yourItem);
    }
    table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    for (int column = 1; column < 4; ++column)
        table->horizontalHeader()->setSectionResizeMode(column, QHeaderView::Stretch);
    layout->addWidget(table, 1);

    auto *buttons = new QDialogButtonBox(this);
    auto addChoice
        = [this, buttons](const QString &text, const char *name, Choice choice, QDialogButtonBox::ButtonRole role) {
        QPushButton *button = buttons->addButton(text, role);
        button->setObjectName(QLatin1String(name));
        connect(button, &QPushButton::clicked, this, [this, choice] {
            Q_EMIT chosen(choice);
            accept();
        });
        return button;
    };
    addChoice(theirs ? tr("Reload theirs") : tr("Discard mine"), "reloadButton", Choice::Reload,
              QDialogButtonBox::ResetRole);
    addChoice(theirs ? tr("Overwrite with mine") : tr("Recreate with mine"), "overwriteButton", Choice::Overwrite,
              QDialogButtonBox::DestructiveRole);
    addChoice(tr("Keep editing"), "keepEditingButton", Choice::KeepEditing, QDialogButtonBox::RejectRole)
        ->setDefault(true);
    layout->addWidget(buttons);
    readyForKeyboard(this);
    resize(760, 340);
}

} // namespace sluice::ui
