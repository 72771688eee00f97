// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/policy/namespace_lists_dialog.h"

#include "model/policy/lists_store.h"
#include "model/policy/operator_identity.h"
#include "ui/connection/write_guard.h"
#include "ui/policy/policy_commit.h"
#include "ui/policy/policy_diff_dialog.h"
#include "ui/policy/subject_rules_table.h"
#include "ui/widgets/keyboard_use.h"
#include "ui/widgets/named.h"

#include <QDateTime>
#include <QDialogButtonBox>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace sluice::ui {

NamespaceListsDialog::NamespaceListsDialog(model::ConnectionSession *session, QWidget *parent)
    : QDialog(parent)
    , m_session(session)
{
    setObjectName(QStringLiteral("namespaceListsDialog"));
    const QString ns = session ? session->profile().ns : QString();
    setWindowTitle(tr("Allow and deny lists of \u201c%1\u201d").arg(ns));
    m_writable = session && !session->profile().readOnly;

    auto *layout = new QVBoxLayout(this);
    auto *intro = named(new QLabel(this), "listsIntro");
    intro->setWordWrap(true);
    intro->setText(tr("Subjects every policy of this namespace admits without counting (allow) or always rejects "
                      "(deny, retry_after_ms -3). A pattern is a subject, or a prefix ending in * (\\* for a subject "
                      "that ends in *). A policy's own override with a longer pattern wins; for the same pattern the "
                      "list does. Saved changes take effect when the library is published."));
    layout->addWidget(intro);
    m_table = named(new SubjectRulesTable(false, this), "listsTable");
    m_table->setEditable(false); // until the lists are read
    layout->addWidget(m_table, 1);
    m_status = named(new QLabel(this), "listsStatus");
    m_status->setWordWrap(true);
    layout->addWidget(m_status);

    auto *buttons = new QDialogButtonBox(this);
    m_reload = named(buttons->addButton(tr("Re&load"), QDialogButtonBox::ResetRole), "reloadListsButton");
    m_saveButton
        = named(buttons->addButton(tr("Review and &save\u2026"), QDialogButtonBox::AcceptRole), "saveListsButton");
    buttons->addButton(m_writable ? QDialogButtonBox::Cancel : QDialogButtonBox::Close);
    connect(m_reload, &QPushButton::clicked, this, &NamespaceListsDialog::load);
    connect(m_saveButton, &QPushButton::clicked, this, &NamespaceListsDialog::save);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_table, &SubjectRulesTable::changed, this, &NamespaceListsDialog::updateSaveButton);
    layout->addWidget(buttons);
    if (!m_writable)
        m_saveButton->setToolTip(tr("This connection is read-only."));
    readyForKeyboard(this);
    resize(640, 460);
    load();
}

void NamespaceListsDialog::load()
{
    m_base.reset();
    m_table->setEditable(false);
    updateSaveButton();
    if (!m_session)
        return;
    setStatus(tr("Reading the lists\u2026"), Tone::Muted);
    m_session->listsStore().read(this, [this](const model::ListsStore::ReadResult &read) {
        if (read.failure) {
            setStatus(tr("The lists could not be read, so they cannot be edited: %1").arg(read.failure->message),
                      Tone::Error);
            return;
        }
        m_base = read.lists;
        m_table->setRules(read.lists.entries);
        m_table->setEditable(m_writable);
        setStatus(read.lists.version == 0 ? tr("Never saved: the lists are empty.")
                                          : tr("Version %1, saved %2 by %3.")
                                                .arg(read.lists.version)
                                                .arg(QDateTime::fromMSecsSinceEpoch(read.lists.updatedAtMs)
                                                         .toString(QStringLiteral("yyyy-MM-dd HH:mm")),
                                                     read.lists.updatedBy),
                  Tone::Muted);
        updateSaveButton();
    });
}

void NamespaceListsDialog::updateSaveButton()
{
    QString problem;
    m_saveButton->setEnabled(m_writable && m_base && m_table->rules(&problem));
}

void NamespaceListsDialog::setStatus(const QString &message, Tone tone)
{
    m_status->setStyleSheet(textStyle(tone));
    m_status->setText(message);
}

void NamespaceListsDialog::save()
{
    QString problem;
    const auto entries = m_table->rules(&problem);
    if (!entries || !m_base || !m_writable)
        return;
    const model::OverrideChanges changes = model::overrideChanges(m_base->entries, *entries);
    if (changes.isEmpty()) {
        setStatus(tr("Nothing to save: the table matches version %1.").arg(m_base->version), Tone::Muted);
        return;
    }
    PolicyDiffDialog::Content content;
    content.title = tr("Save the lists");
    content.intro = tr("Save these changes to the allow and deny lists (version %1)? They take effect in every "
                       "policy when the library is published.")
                        .arg(m_base->version);
    content.beforeLabel = tr("Stored (version %1)").arg(m_base->version);
    content.afterLabel = tr("After saving");
    content.changes
        = {{QStringLiteral("lists"), tr("Entries"), changes.before.isEmpty() ? tr("(none removed)") : changes.before,
            changes.after.isEmpty() ? tr("(none added)") : changes.after}};
    content.confirmText = tr("Save");
    auto *review = new PolicyDiffDialog(content, this);
    review->setAttribute(Qt::WA_DeleteOnClose);
    connect(review, &QDialog::accepted, this, [this, entries = *entries] { commit(entries); });
    review->open();
}

void NamespaceListsDialog::commit(const QVector<model::SubjectOverride> &entries)
{
    if (!m_session || !m_base)
        return;
    const QPointer<NamespaceListsDialog> self = this;
    const qint64 expected = m_base->version;
    guardWrite(this, m_session->profile(), tr("save the allow and deny lists"), [self, entries, expected] {
        if (!self || !self->m_session)
            return;
        self->m_session->listsStore().commit(entries, expected, model::operatorIdentity(QStringLiteral("sluice")), self,
                                             [self](const model::ListsStore::CommitResult &result) {
            if (!self)
                return;
            if (result.failure && result.failure->kind == model::Failure::Kind::Conflict) {
                self->setStatus(
                    tr("%1. Reload to see their lists; your table is kept until you do.").arg(result.failure->message),
                    Tone::Error);
                return;
            }
            if (result.failure) {
                self->setStatus(commitFailureText(*result.failure), Tone::Error);
                return;
            }
            Q_EMIT self->saved(result.version);
            self->accept();
        });
    });
}

} // namespace sluice::ui
