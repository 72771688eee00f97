// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/deploy/publish_review_dialog.h"

#include "ui/widgets/keyboard_use.h"
#include "ui/widgets/state_palette.h"

#include <QDateTime>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace sluice::ui {

namespace {

QString introText(const model::PublishPreview &preview, const model::ConnectionProfile &profile,
                  PublishReviewDialog::Purpose purpose)
{
    const model::LibraryRecord &published = preview.published;
    QString text = purpose == PublishReviewDialog::Purpose::DryRun
        ? PublishReviewDialog::tr("Dry run: nothing was loaded. ")
        : QString();
    if (profile.writesNeedConfirmation())
        text += PublishReviewDialog::tr("\u201c%1\u201d is a production connection. ").arg(profile.name);
    text += published.version == 0
        ? PublishReviewDialog::tr("Publishing loads version %1 on every primary, the first in this namespace.")
              .arg(preview.library.version)
        : PublishReviewDialog::tr("Publishing loads version %1 on every primary, over version %2 published by %3 "
                                  "at %4.")
              .arg(preview.library.version)
              .arg(published.version)
              .arg(
                  published.publishedBy,
                  QDateTime::fromMSecsSinceEpoch(published.publishedAtMs).toString(QStringLiteral("yyyy-MM-dd HH:mm")));
    if (preview.changes.isEmpty() && preview.listChanges.isEmpty())
        text += QLatin1Char(' ')
            + PublishReviewDialog::tr("No policy changes: it loads the same policies again (which repairs a primary "
                                      "that lost or never got them).");
    if (!preview.changesKnown())
        text += QLatin1Char(' ')
            + PublishReviewDialog::tr("Version %1 was published before its definitions were recorded, so every "
                                      "stored policy is listed as added.")
                  .arg(published.version);
    return text;
}

QTableWidgetItem *cell(const QString &text, std::optional<Tone> fill = std::nullopt)
{
    auto *item = new QTableWidgetItem(text);
    item->setToolTip(text);
    if (fill)
        item->setBackground(toneFill(*fill));
    return item;
}

// One row per changed field; an added policy lists its fields, a removed one is a row of its own.
QTableWidget *changesTable(const model::PublishPreview &preview, QWidget *parent)
{
    auto *table = new QTableWidget(0, 4, parent);
    table->setObjectName(QStringLiteral("publishChanges"));
    table->setAccessibleName(PublishReviewDialog::tr("Policy changes"));
    table->setHorizontalHeaderLabels(
        {PublishReviewDialog::tr("Policy"), PublishReviewDialog::tr("Field"),
         preview.published.version == 0
             ? PublishReviewDialog::tr("Published")
             : PublishReviewDialog::tr("Published (version %1)").arg(preview.published.version),
         PublishReviewDialog::tr("After publishing")});
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setWordWrap(true);
    auto addRow
        = [table](const QString &policy, const QString &field, QTableWidgetItem *before, QTableWidgetItem *after) {
        const int row = table->rowCount();
        table->insertRow(row);
        table->setItem(row, 0, cell(policy));
        table->setItem(row, 1, cell(field));
        table->setItem(row, 2, before);
        table->setItem(row, 3, after);
    };
    for (const model::PolicyDelta &delta : preview.changes) {
        if (delta.kind == model::PolicyDelta::Kind::Removed) {
            addRow(delta.name, PublishReviewDialog::tr("(whole policy)"),
                   cell(PublishReviewDialog::tr("published"), Tone::Error),
                   cell(PublishReviewDialog::tr("removed: services calling it are refused"), Tone::Error));
            continue;
        }
        const bool added = delta.kind == model::PolicyDelta::Kind::Added;
        for (const model::FieldChange &field : delta.fields)
            addRow(delta.name, field.label,
                   added ? cell(PublishReviewDialog::tr("(not published)")) : cell(field.before, Tone::Error),
                   cell(added ? PublishReviewDialog::tr("%1 (added)").arg(field.after) : field.after, Tone::Ok));
    }
    const model::OverrideChanges &lists = preview.listChanges;
    if (!lists.isEmpty())
        addRow(PublishReviewDialog::tr("(namespace)"), PublishReviewDialog::tr("Allow and deny lists"),
               cell(lists.before, Tone::Error), cell(lists.after, Tone::Ok));
    table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    table->horizontalHeader()->setSectionResizeMode(2, QHeaderView::Stretch);
    table->horizontalHeader()->setSectionResizeMode(3, QHeaderView::Stretch);
    // Rows follow their text as the columns settle, so a wrapped cell never leaves its row taller than the rest.
    table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    return table;
}

} // namespace

PublishReviewDialog::PublishReviewDialog(const model::PublishPreview &preview, const model::ConnectionProfile &profile,
                                         Purpose purpose, QWidget *parent)
    : QDialog(parent)
{
    setObjectName(purpose == Purpose::DryRun ? QStringLiteral("dryRunDialog") : QStringLiteral("publishReview"));
    setWindowTitle(purpose == Purpose::DryRun             ? tr("Dry run: what a publish would change")
                       : profile.writesNeedConfirmation() ? tr("Publish to production")
                                                          : tr("Publish the limiter library"));
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(introText(preview, profile, purpose), this);
    intro->setObjectName(QStringLiteral("publishIntro"));
    intro->setTextFormat(Qt::PlainText);
    intro->setWordWrap(true);
    if (profile.writesNeedConfirmation())
        intro->setStyleSheet(textStyle(Tone::Error, true));
    layout->addWidget(intro);
    const bool changes = !preview.changes.isEmpty() || !preview.listChanges.isEmpty();
    if (changes)
        layout->addWidget(changesTable(preview, this), 1);

    if (!preview.damaged.isEmpty()) {
        QStringList names;
        for (const model::DamagedPolicy &damaged : preview.damaged)
            names << damaged.name;
        auto *damaged = new QLabel(
            tr("\u26a0 Damaged stored policies are left out: %1.").arg(names.join(QStringLiteral(", "))), this);
        damaged->setObjectName(QStringLiteral("publishDamaged"));
        damaged->setWordWrap(true);
        damaged->setStyleSheet(textStyle(Tone::Warning));
        layout->addWidget(damaged);
    }

    // The generated Lua is for the curious: hidden until asked for.
    auto *showTable = new QPushButton(tr("Show the generated policy table"), this);
    showTable->setObjectName(QStringLiteral("showPolicyTable"));
    showTable->setCheckable(true);
    auto *table = new QPlainTextEdit(QString::fromUtf8(preview.library.table), this);
    table->setObjectName(QStringLiteral("dryRunTable"));
    table->setAccessibleName(tr("Generated policy table"));
    table->setReadOnly(true);
    table->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    table->hide();
    connect(showTable, &QPushButton::toggled, this, [this, table](bool shown) {
        table->setVisible(shown);
        if (shown && height() < 440)
            resize(width(), 440); // room for the table that was not there
    });
    layout->addWidget(showTable, 0, Qt::AlignLeft);
    layout->addWidget(table, 1);

    auto *buttons = new QDialogButtonBox(this);
    if (purpose == Purpose::DryRun) {
        buttons->addButton(QDialogButtonBox::Close);
    } else {
        QPushButton *confirm
            = buttons->addButton(tr("&Publish version %1").arg(preview.library.version), QDialogButtonBox::AcceptRole);
        confirm->setObjectName(QStringLiteral("confirmButton"));
        buttons->addButton(QDialogButtonBox::Cancel)->setDefault(true);
    }
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    readyForKeyboard(this);
    // Without changes there is only the sentence to read: no empty space where a table would be.
    resize(760, changes ? 440 : sizeHint().height());
}

} // namespace sluice::ui
