// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/policy/policy_history_view.h"

#include "model/policy/policy_diff.h"
#include "ui/policy/policy_commit.h"
#include "ui/policy/policy_diff_dialog.h"
#include "ui/widgets/action_button.h"
#include "ui/widgets/long_names.h"

#include <QAction>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace sluice::ui {

namespace {

// Entries shown at most; the stream itself keeps about 10,000.
constexpr int shownEntries = 1000;
// How often the tab in view asks whether the audit log has a new entry (one XREVRANGE ... COUNT 1).
constexpr int followIntervalMs = 2000;

// The version of its policy an entry leaves behind (for a delete, the one it removed).
const std::optional<model::Policy> &entryVersion(const model::AuditEntry &entry)
{
    return entry.after ? entry.after : entry.before;
}

} // namespace

PolicyHistoryView::PolicyHistoryView(model::ConnectionSession *session, QWidget *parent)
    : QWidget(parent)
    , m_model(new model::AuditModel(this))
{
    auto *layout = new QVBoxLayout(this);
    auto *toolbar = new QHBoxLayout;
    toolbar->addWidget(new QLabel(tr("Policy"), this));
    m_policyFilter = new QComboBox(this);
    m_policyFilter->setObjectName(QStringLiteral("historyPolicyFilter"));
    m_policyFilter->setAccessibleName(tr("Policy whose history is shown"));
    elideInTheMiddle(m_policyFilter);
    m_policyFilter->setEditable(true);
    m_policyFilter->setMinimumWidth(220);
    m_policyFilter->lineEdit()->setPlaceholderText(tr("All policies"));
    m_policyFilter->setInsertPolicy(QComboBox::NoInsert);
    toolbar->addWidget(m_policyFilter);
    m_refresh = new QPushButton(tr("Refresh"), this);
    m_refresh->setObjectName(QStringLiteral("refreshButton"));
    toolbar->addWidget(m_refresh);
    m_refreshAction = new QAction(tr("Refresh"), this);
    pressesAction(m_refresh, m_refreshAction);
    toolbar->addStretch();
    m_compare = new QPushButton(tr("Compare\u2026"), this);
    m_compare->setObjectName(QStringLiteral("compareButton"));
    m_compare->setToolTip(tr("Select one entry to see what it changed, or two to compare their versions."));
    toolbar->addWidget(m_compare);
    m_rollback = new QPushButton(tr("Roll back to this version\u2026"), this);
    m_rollback->setObjectName(QStringLiteral("rollbackButton"));
    toolbar->addWidget(m_rollback);
    layout->addLayout(toolbar);

    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("historyTable"));
    m_table->setAccessibleName(tr("Audit log entries"));
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    layout->addWidget(m_table, 1);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("historyStatus"));
    m_status->setWordWrap(true);
    layout->addWidget(m_status);

    connect(m_policyFilter->lineEdit(), &QLineEdit::editingFinished, this,
            [this] { showPolicy(m_policyFilter->currentText().trimmed()); });
    connect(m_policyFilter, &QComboBox::activated, this,
            [this] { showPolicy(m_policyFilter->currentText().trimmed()); });
    connect(m_refreshAction, &QAction::triggered, this, &PolicyHistoryView::refresh);
    connect(m_compare, &QPushButton::clicked, this, &PolicyHistoryView::compareSelected);
    connect(m_rollback, &QPushButton::clicked, this, &PolicyHistoryView::rollBackSelected);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, &PolicyHistoryView::updateActions);
    connect(m_model, &QAbstractItemModel::modelReset, this, &PolicyHistoryView::updateActions);
    updateActions();
    if (session)
        followSession(session);
}

void PolicyHistoryView::followSession(model::ConnectionSession *session)
{
    m_session = session;
    m_follower = session->followAudit(followIntervalMs, this);
    connect(m_follower, &model::AuditFollower::newestChanged, this, &PolicyHistoryView::refresh);
    if (isVisible())
        m_follower->start();
    // Read once the connection is up, and again whenever it comes back.
    connect(session, &model::ConnectionSession::ready, this, [this] { refresh(); });
    if (session->isReady())
        refresh();
}

void PolicyHistoryView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (m_follower)
        m_follower->start();
}

void PolicyHistoryView::hideEvent(QHideEvent *event)
{
    QWidget::hideEvent(event);
    if (m_follower)
        m_follower->stop();
}

void PolicyHistoryView::showPolicy(const QString &policy)
{
    if (policy == m_policy && m_model->rowCount() > 0)
        return;
    m_policy = policy;
    if (m_policyFilter->currentText() != policy)
        m_policyFilter->setEditText(policy);
    refresh();
}

void PolicyHistoryView::refresh()
{
    if (!m_session)
        return;
    m_status->setText(tr("Reading the audit log\u2026"));
    const QString policy = m_policy;
    m_session->auditLog().read(policy, shownEntries, this, [this, policy](const model::AuditLog::ReadResult &read) {
        if (policy != m_policy)
            return; // another policy was asked for meanwhile
        if (read.failure) {
            m_status->setText(tr("Cannot read the history: %1").arg(read.failure->message));
            return;
        }
        m_model->setEntries(read.entries);
        if (policy.isEmpty()) {
            QStringList names;
            for (const model::AuditEntry &entry : read.entries)
                if (!entry.policy.isEmpty() && !names.contains(entry.policy))
                    names << entry.policy;
            std::sort(names.begin(), names.end());
            m_policyFilter->clear();
            m_policyFilter->addItems(names);
            m_policyFilter->setEditText(QString());
        }
        const QString scope = policy.isEmpty() ? tr("all policies") : tr("\u201c%1\u201d").arg(policy);
        const QString notice = std::exchange(m_notice, QString());
        m_status->setText((notice.isEmpty() ? QString() : notice + QLatin1Char(' '))
                          + (read.entries.isEmpty() ? tr("No history for %1.").arg(scope)
                                 : read.complete    ? tr("Entries for %1: %2").arg(scope).arg(read.entries.size())
                                                    : tr("The newest entries for %1: %2 (older ones are not shown)")
                                                       .arg(scope)
                                                       .arg(read.entries.size())));
    });
}

QVector<int> PolicyHistoryView::selectedRows() const
{
    QVector<int> rows;
    for (const QModelIndex &index : m_table->selectionModel()->selectedRows())
        rows << index.row();
    std::sort(rows.begin(), rows.end());
    return rows;
}

void PolicyHistoryView::updateActions()
{
    const QVector<int> rows = selectedRows();
    bool comparable = false;
    if (rows.size() == 1) {
        comparable = entryVersion(m_model->entry(rows.first())).has_value();
    } else if (rows.size() == 2) {
        const model::AuditEntry &a = m_model->entry(rows.at(0));
        const model::AuditEntry &b = m_model->entry(rows.at(1));
        comparable = !a.policy.isEmpty() && a.policy == b.policy && entryVersion(a) && entryVersion(b);
    }
    m_compare->setEnabled(comparable);
    const bool writable = m_session && !m_session->profile().readOnly;
    m_rollback->setEnabled(writable && rows.size() == 1 && m_model->entry(rows.first()).after.has_value());
    m_rollback->setToolTip(m_session && !writable ? tr("This connection is read-only.") : QString());
}

void PolicyHistoryView::compareSelected()
{
    const QVector<int> rows = selectedRows();
    PolicyDiffDialog::Content content;
    content.title = tr("Compare versions");
    if (rows.size() == 1) {
        const model::AuditEntry &entry = m_model->entry(rows.first());
        content.intro = tr("What %1 changed in \u201c%2\u201d (%3, version %4).")
                            .arg(entry.who, entry.policy, entry.action)
                            .arg(entry.version);
        content.beforeLabel = tr("Before");
        content.afterLabel = tr("After");
        content.changes
            = model::diffPolicies(entry.before ? &*entry.before : nullptr, entry.after ? &*entry.after : nullptr);
    } else if (rows.size() == 2) {
        // Rows are newest first: the lower row is the older version.
        const model::AuditEntry &newer = m_model->entry(rows.at(0));
        const model::AuditEntry &older = m_model->entry(rows.at(1));
        content.intro = tr("\u201c%1\u201d: version %2 against version %3.")
                            .arg(newer.policy)
                            .arg(older.version)
                            .arg(newer.version);
        content.beforeLabel = tr("Version %1 (%2)").arg(older.version).arg(older.action);
        content.afterLabel = tr("Version %1 (%2)").arg(newer.version).arg(newer.action);
        const auto &from = entryVersion(older);
        const auto &to = entryVersion(newer);
        content.changes = model::diffPolicies(from ? &*from : nullptr, to ? &*to : nullptr);
        if (content.changes.isEmpty())
            content.intro += QLatin1Char(' ') + tr("Their definitions are the same.");
    } else {
        return;
    }
    auto *dialog = new PolicyDiffDialog(content, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->open();
}

void PolicyHistoryView::rollBackSelected()
{
    const QVector<int> rows = selectedRows();
    if (!m_session || rows.size() != 1 || !m_model->entry(rows.first()).after)
        return;
    const model::AuditEntry entry = m_model->entry(rows.first());
    m_session->policyStore().read(entry.policy, this, [this, entry](const model::PolicyStore::ReadResult &stored) {
        if (stored.failure) {
            m_status->setText(tr("Cannot read \u201c%1\u201d: %2").arg(entry.policy, stored.failure->message));
            return;
        }
        const model::Policy &target = *entry.after;
        if (stored.policy && stored.policy->sameDefinition(target)) {
            m_status->setText(
                tr("\u201c%1\u201d already has the definition of version %2.").arg(entry.policy).arg(entry.version));
            return;
        }
        PolicyDiffDialog::Content content;
        content.title = tr("Roll back");
        content.intro = stored.policy
            ? tr("Roll \u201c%1\u201d back from version %2 to the definition of version %3? The rollback is saved "
                 "as a new version "
                 "and audited.")
                  .arg(entry.policy)
                  .arg(stored.policy->version)
                  .arg(entry.version)
            : tr("\u201c%1\u201d is deleted. Recreate it with the definition of version %2?")
                  .arg(entry.policy)
                  .arg(entry.version);
        content.beforeLabel
            = stored.policy ? tr("Stored (version %1)").arg(stored.policy->version) : tr("Stored (deleted)");
        content.afterLabel = tr("Version %1").arg(entry.version);
        content.changes = model::diffPolicies(stored.policy ? &*stored.policy : nullptr, &target);
        content.confirmText = tr("Roll back");
        auto *dialog = new PolicyDiffDialog(content, this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        const qint64 expected = stored.policy ? stored.policy->version : 0;
        connect(dialog, &QDialog::accepted, this, [this, entry, target, expected] {
            if (!m_session)
                return;
            model::PolicyChange change{model::PolicyChange::Kind::Put, target, expected, entry.version};
            commitPolicyChanges(this, m_session,
                                tr("roll \u201c%1\u201d back to version %2").arg(entry.policy).arg(entry.version),
                                {change},
                                [this, entry](const model::PolicyStore::CommitResult &result) {
                m_notice = !result.failure
                    ? tr("Rolled \u201c%1\u201d back to version %2.").arg(entry.policy).arg(entry.version)
                    : tr("Not rolled back: %1").arg(result.failure->message);
                if (!result.failure)
                    Q_EMIT changed();
                refresh();
            });
        });
        dialog->open();
    });
}

} // namespace sluice::ui
