// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/policy/policy_import_dialog.h"

#include "model/policy/policy_diff.h"
#include "model/policy/policy_summary.h"
#include "ui/policy/policy_commit.h"
#include "ui/widgets/keyboard_use.h"
#include "ui/widgets/state_palette.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace sluice::ui {

namespace {

// Policy files are small; anything this large is not one, and is refused before parsing.
constexpr qint64 largestPolicyFile = 16 * 1024 * 1024;

} // namespace

PolicyImportDialog::PolicyImportDialog(model::ConnectionSession *session, QWidget *parent)
    : QDialog(parent)
    , m_session(session)
{
    setObjectName(QStringLiteral("policyImport"));
    setWindowTitle(tr("Import policies"));
    auto *layout = new QVBoxLayout(this);
    m_source = new QLabel(this);
    m_source->setObjectName(QStringLiteral("importSource"));
    m_source->setWordWrap(true);
    layout->addWidget(m_source);
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("importSummary"));
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);
    m_errors = new QListWidget(this);
    m_errors->setObjectName(QStringLiteral("importErrors"));
    m_errors->setStyleSheet(textStyle(Tone::Error));
    m_errors->hide();
    layout->addWidget(m_errors, 1);
    m_preview = new QTableWidget(0, 3, this);
    m_preview->setObjectName(QStringLiteral("importPreview"));
    m_preview->setHorizontalHeaderLabels({tr("Policy"), tr("Change"), tr("Details")});
    m_preview->verticalHeader()->hide();
    m_preview->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_preview->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_preview->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_preview->horizontalHeader()->setStretchLastSection(true);
    layout->addWidget(m_preview, 1);
    m_prune = new QCheckBox(tr("Also delete stored policies the file does not have"), this);
    m_prune->setObjectName(QStringLiteral("pruneCheck"));
    connect(m_prune, &QCheckBox::toggled, this, &PolicyImportDialog::showPlan);
    layout->addWidget(m_prune);

    auto *buttons = new QDialogButtonBox(this);
    // After fixing the file in an editor: read it again, without choosing it again.
    m_reread = buttons->addButton(tr("&Read the file again"), QDialogButtonBox::ResetRole);
    m_reread->setObjectName(QStringLiteral("rereadButton"));
    m_reread->setEnabled(false);
    m_reread->setAutoDefault(false);
    connect(m_reread, &QPushButton::clicked, this, [this] { loadFile(m_path); });
    m_apply = buttons->addButton(tr("Apply"), QDialogButtonBox::AcceptRole);
    m_apply->setObjectName(QStringLiteral("applyButton"));
    m_apply->setEnabled(false);
    // Enter never writes: Cancel is the default, as in every other write's review.
    m_apply->setAutoDefault(false);
    buttons->addButton(QDialogButtonBox::Cancel)->setDefault(true);
    connect(m_apply, &QPushButton::clicked, this, &PolicyImportDialog::apply);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    readyForKeyboard(this);
    resize(760, 480);
}

void PolicyImportDialog::loadFile(const QString &path)
{
    m_path = path;
    m_reread->setEnabled(true);
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        m_source->setText(path);
        showProblems(tr("Cannot read this file; nothing will change."), {file.errorString()});
        return;
    }
    if (file.size() > largestPolicyFile) {
        m_source->setText(path);
        showProblems(tr("This is not a policy file; nothing will change."),
                     {tr("the file holds %1 bytes, more than the %2 a policy file may have")
                          .arg(file.size())
                          .arg(largestPolicyFile)});
        return;
    }
    loadJson(file.readAll(), path);
}

void PolicyImportDialog::loadJson(const QByteArray &json, const QString &source)
{
    m_source->setText(tr("From %1").arg(source));
    m_file = model::PolicyFile::parse(json);
    m_planned = false;
    if (!m_file.ok()) {
        QStringList problems;
        for (const model::PolicyError &error : m_file.errors)
            problems << error.toString();
        showProblems(tr("Problems in the file: %1; nothing will change until they are fixed.").arg(problems.size()),
                     problems);
        return;
    }
    readStoredAndPlan();
}

void PolicyImportDialog::showProblems(const QString &heading, const QStringList &problems)
{
    m_planned = false;
    m_summary->setText(heading);
    m_summary->setStyleSheet(textStyle(Tone::Error, true));
    m_errors->clear();
    m_errors->addItems(problems);
    m_errors->show();
    m_preview->hide();
    m_prune->setEnabled(false);
    m_apply->setEnabled(false);
}

void PolicyImportDialog::readStoredAndPlan(const QString &notice)
{
    m_notice = notice;
    if (!m_session)
        return;
    m_summary->setText(tr("Comparing with the stored policies\u2026"));
    m_summary->setStyleSheet(QString());
    m_apply->setEnabled(false);
    m_session->policyStore().list(this, [this](const model::PolicyStore::ListResult &listed) {
        if (listed.failure) {
            showProblems(tr("Cannot compare with the stored policies; nothing will change."),
                         {listed.failure->message});
            return;
        }
        m_stored = listed;
        m_planned = true;
        showPlan();
    });
}

void PolicyImportDialog::showPlan()
{
    if (!m_planned)
        return;
    m_plan = model::PolicyPlan::between(m_stored, m_file.policies, m_prune->isChecked());
    if (!m_plan.problems.isEmpty()) {
        QStringList problems;
        for (const model::PolicyError &error : std::as_const(m_plan.problems))
            problems << error.toString();
        showProblems(tr("With the stored policies the file would leave %1 problem(s); nothing will change until "
                        "they are fixed.")
                         .arg(problems.size()),
                     problems);
        m_prune->setEnabled(true); // pruning may be what made them, or what mends them
        m_planned = true;
        return;
    }
    m_errors->hide();
    m_preview->show();
    m_prune->setEnabled(true);
    m_preview->setRowCount(0);
    QHash<QString, model::Policy> stored;
    for (const model::Policy &policy : std::as_const(m_stored.policies))
        stored.insert(policy.name, policy);
    auto addRow = [this](const QString &name, const QString &change, const QString &details) {
        const int row = m_preview->rowCount();
        m_preview->insertRow(row);
        m_preview->setItem(row, 0, new QTableWidgetItem(name));
        m_preview->setItem(row, 1, new QTableWidgetItem(change));
        m_preview->setItem(row, 2, new QTableWidgetItem(details));
    };
    QHash<QString, QString> damage;
    for (const model::DamagedPolicy &damaged : std::as_const(m_stored.damaged))
        damage.insert(damaged.name, damaged.problem);
    for (const model::PolicyChange &change : std::as_const(m_plan.changes)) {
        const QString &name = change.policy.name;
        if (change.kind == model::PolicyChange::Kind::Check)
            continue;
        if (change.kind == model::PolicyChange::Kind::Delete) {
            addRow(name, tr("delete"), tr("not in the file"));
            continue;
        }
        if (damage.contains(name)) {
            addRow(name, tr("repair"), tr("stored damaged: %1").arg(damage.value(name)));
            continue;
        }
        if (!stored.contains(name)) {
            addRow(name, tr("create"),
                   QStringLiteral("%1, %2").arg(model::algorithmName(change.policy.algorithm),
                                                model::limitInWords(change.policy)));
            continue;
        }
        QStringList fields;
        const model::Policy before = stored.value(name);
        for (const model::FieldChange &field : model::diffPolicies(&before, &change.policy))
            fields << QStringLiteral("%1 %2 \u2192 %3").arg(field.field, field.before, field.after);
        addRow(name, tr("update"), fields.join(QStringLiteral(", ")));
    }
    for (const QString &name : std::as_const(m_plan.unchanged))
        addRow(name, tr("unchanged"), QString());
    m_summary->setStyleSheet(QString());
    m_summary->setText((m_notice.isEmpty() ? QString() : m_notice + QLatin1Char('\n'))
                       + (m_plan.isEmpty() ? tr("The stored policies already match the file: nothing to do.")
                                           : tr("%1 to create, %2 to update, %3 to delete, %4 unchanged.")
                                                 .arg(m_plan.created.size())
                                                 .arg(m_plan.updated.size())
                                                 .arg(m_plan.deleted.size())
                                                 .arg(m_plan.unchanged.size())));
    m_apply->setEnabled(canApply());
}

bool PolicyImportDialog::canApply() const
{
    return m_planned && !m_plan.isEmpty() && m_plan.problems.isEmpty() && m_session && !m_session->profile().readOnly;
}

void PolicyImportDialog::apply()
{
    if (!canApply())
        return;
    commitPolicyChanges(
        this, m_session, tr("apply the file's policy changes (%1)").arg(m_plan.writeCount()), m_plan.changes,
        [this](const model::PolicyStore::CommitResult &result) {
        if (result.failure && result.failure->kind == model::Failure::Kind::Conflict) {
            readStoredAndPlan(tr("Someone saved in between (%1); nothing was applied. The preview below is made again "
                                 "from the stored policies as they are now.")
                                  .arg(result.failure->message));
            return;
        }
        if (result.failure) {
            showProblems(commitFailureText(*result.failure), {});
            return;
        }
        Q_EMIT applied(result.changed);
        accept();
        },
        m_plan.expectedNames);
}

} // namespace sluice::ui
