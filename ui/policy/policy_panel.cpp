// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/policy/policy_panel.h"

#include "model/files/own_files.h"
#include "model/policy/policy_file.h"
#include "model/policy/policy_store.h"
#include "ui/policy/namespace_lists_dialog.h"
#include "ui/policy/policy_commit.h"
#include "ui/policy/policy_editor.h"
#include "ui/policy/policy_import_dialog.h"
#include "ui/widgets/action_button.h"
#include "ui/widgets/banner.h"
#include "ui/widgets/long_names.h"
#include "ui/widgets/state_palette.h"
#include "ui/widgets/tone_delegate.h"

#include <QAction>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace sluice::ui {

using model::PolicyListModel;

namespace {

// Rereading the store this often shows a colleague's save soon, at a handful of commands per policy.
constexpr int refreshIntervalMs = 5000;

} // namespace

PolicyPanel::PolicyPanel(model::ConnectionSession *session, QWidget *parent)
    : QWidget(parent)
    , m_model(new PolicyListModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
{
    auto *layout = new QVBoxLayout(this);
    auto *toolbar = new QHBoxLayout;
    m_search = new QLineEdit(this);
    m_search->setObjectName(QStringLiteral("policySearch"));
    m_search->setAccessibleName(tr("Search policies"));
    m_search->setPlaceholderText(tr("Search policies by name, algorithm or any column"));
    m_search->setClearButtonEnabled(true);
    toolbar->addWidget(m_search, 1);
    auto addButton = [this, toolbar](const QString &text, const char *name) {
        auto *button = new QPushButton(text, this);
        button->setObjectName(QLatin1String(name));
        toolbar->addWidget(button);
        return button;
    };
    m_new = addButton(tr("New\u2026"), "newPolicyButton");
    m_edit = addButton(tr("Edit\u2026"), "editPolicyButton");
    m_delete = addButton(tr("Delete\u2026"), "deletePolicyButton");
    m_history = addButton(tr("History"), "policyHistoryButton");
    m_import = addButton(tr("Import\u2026"), "importPoliciesButton");
    m_export = addButton(tr("Export\u2026"), "exportPoliciesButton");
    m_lists = addButton(tr("&Allow/deny lists\u2026"), "namespaceListsButton");
    m_lists->setToolTip(tr("The namespace's allow and deny lists, for every policy"));
    m_importAction = new QAction(tr("&Import policies\u2026"), this);
    m_importAction->setObjectName(QStringLiteral("importPoliciesAction"));
    pressesAction(m_import, m_importAction);
    m_exportAction = new QAction(tr("&Export policies\u2026"), this);
    m_exportAction->setObjectName(QStringLiteral("exportPoliciesAction"));
    pressesAction(m_export, m_exportAction);
    layout->addLayout(toolbar);

    m_publishWarning = new Banner(Tone::Warning, QStringLiteral("publishWarning"), this);
    m_publishWarning->setTextInteractionFlags(Qt::LinksAccessibleByMouse);
    connect(m_publishWarning, &QLabel::linkActivated, this, &PolicyPanel::publishRequested);
    layout->addWidget(m_publishWarning);

    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(PolicyListModel::SortRole);
    m_proxy->setFilterKeyColumn(-1);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_table = new QTableView(this);
    elideInTheMiddle(m_table);
    m_table->setObjectName(QStringLiteral("policyTable"));
    m_table->setAccessibleName(tr("Stored policies"));
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(PolicyListModel::Name, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // The description takes the room the others leave (whole in the row's tooltip).
    m_table->horizontalHeader()->setSectionResizeMode(PolicyListModel::Description, QHeaderView::Stretch);
    elideAtTheEnd(m_table, PolicyListModel::Description);
    // A policy services do not run as stored yet stands out.
    colourByTone(m_table, PolicyListModel::Published, [](const QModelIndex &index) -> std::optional<Tone> {
        using State = PolicyListModel::PublishState;
        const auto state = static_cast<State>(index.data(PolicyListModel::PublishStateRole).toInt());
        if (state == State::ChangedSincePublish || state == State::NotPublished)
            return Tone::Warning;
        return std::nullopt;
    });
    auto *deleteKey = new QAction(tr("Delete the selected policy"), m_table);
    deleteKey->setShortcut(QKeySequence::Delete);
    deleteKey->setShortcutContext(Qt::WidgetShortcut);
    connect(deleteKey, &QAction::triggered, this, &PolicyPanel::deleteSelected);
    m_table->addAction(deleteKey);
    layout->addWidget(m_table, 1);

    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("policyStatus"));
    m_status->setWordWrap(true);
    layout->addWidget(m_status);

    connect(m_search, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);
    connect(m_table, &QTableView::activated, this, &PolicyPanel::editSelected);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, &PolicyPanel::updateActions);
    connect(m_new, &QPushButton::clicked, this, &PolicyPanel::newPolicy);
    connect(m_edit, &QPushButton::clicked, this, &PolicyPanel::editSelected);
    connect(m_delete, &QPushButton::clicked, this, &PolicyPanel::deleteSelected);
    connect(m_history, &QPushButton::clicked, this, [this] { Q_EMIT historyRequested(selectedName()); });
    connect(m_lists, &QPushButton::clicked, this, &PolicyPanel::openLists);
    connect(m_importAction, &QAction::triggered, this, [this] {
        showPage(this);
        const QString path = QFileDialog::getOpenFileName(this, tr("Import policies"), QString(),
                                                          tr("Policy files (*.json);;All files (*)"));
        if (!path.isEmpty())
            importFile(path);
    });
    connect(m_exportAction, &QAction::triggered, this, [this] {
        showPage(this);
        const QString path = QFileDialog::getSaveFileName(this, tr("Export policies"), QStringLiteral("policies.json"),
                                                          tr("Policy files (*.json)"));
        if (path.isEmpty())
            return;
        const QString error = exportTo(path);
        m_status->setText(error.isEmpty() ? tr("Exported the stored policies to %1").arg(path) : error);
    });
    m_refreshTimer.setInterval(refreshIntervalMs);
    // Only while the tab is in front: a hidden list need not cost Redis a read every few seconds.
    connect(&m_refreshTimer, &QTimer::timeout, this, [this] {
        if (isVisible())
            refresh();
    });
    updateActions();
    if (session)
        followSession(session);
}

void PolicyPanel::followSession(model::ConnectionSession *session)
{
    m_session = session;
    m_publishWarning->hide();
    connect(session->libraryWatch(), &model::LibraryWatch::checked, this, &PolicyPanel::showLibraryReport);
    connect(session, &model::ConnectionSession::ready, this, [this] { refresh(); });
    m_refreshTimer.start();
    updateActions();
    if (session->isReady())
        refresh();
}

void PolicyPanel::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    refresh(); // the timer skips a hidden tab; be current when it comes to the front
}

void PolicyPanel::refresh()
{
    if (!m_session || m_refreshing)
        return;
    m_refreshing = true;
    m_session->policyStore().list(this, [this](const model::PolicyStore::ListResult &listed) {
        m_refreshing = false;
        if (listed.failure) {
            // Keep showing what was last read; say why it may be stale.
            m_status->setText(tr("Cannot read the policies: %1").arg(listed.failure->message));
            m_status->setStyleSheet(textStyle(Tone::Error));
            return;
        }
        m_model->setPolicies(listed.policies);
        QStringList damaged;
        for (const model::DamagedPolicy &policy : listed.damaged)
            damaged << tr("%1 (%2)").arg(policy.name, policy.problem);
        m_status->setStyleSheet(damaged.isEmpty() ? QString() : textStyle(Tone::Warning));
        if (!damaged.isEmpty())
            m_status->setText(tr("Policies: %1. Damaged (not listed here, and a publish leaves them out): %2. "
                                 "Import a policy file that defines them to repair them, or one without them "
                                 "(pruning) to delete them.")
                                  .arg(m_model->rowCount())
                                  .arg(damaged.join(QStringLiteral("; "))));
        else
            m_status->setText(m_model->rowCount() == 0
                                  ? tr("No policies yet. Create one with New\u2026 or import a policy file.")
                                  : tr("Policies: %1").arg(m_model->rowCount()));
        updateActions();
    });
}

void PolicyPanel::showLibraryReport(const model::LibraryWatch::Report &report)
{
    const model::LibraryRecord &published = report.status.published;
    m_model->setPublished(published.policies, published.policiesKnown || published.version == 0);
    if (report.status.failure || !report.status.storedDiffers) {
        m_publishWarning->hide();
        return;
    }
    m_publishWarning->setText(published.version == 0 ? tr("No library has been published yet: services cannot call "
                                                          "these policies. <a href=\"publish\">Publish\u2026</a>")
                                                     : tr("The stored policies differ from the published library "
                                                          "(version %1): services keep the published limits "
                                                          "until you publish. <a href=\"publish\">Publish\u2026</a>")
                                                           .arg(published.version));
    m_publishWarning->show();
}

QString PolicyPanel::selectedName() const
{
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    return rows.isEmpty() ? QString() : rows.first().data(PolicyListModel::NameRole).toString();
}

void PolicyPanel::selectPolicy(const QString &name)
{
    for (int row = 0; row < m_proxy->rowCount(); ++row) {
        const QModelIndex index = m_proxy->index(row, 0);
        if (index.data(PolicyListModel::NameRole).toString() == name) {
            m_table->setCurrentIndex(index);
            m_table->selectRow(row);
            return;
        }
    }
}

void PolicyPanel::updateActions()
{
    const bool connected = m_session;
    const bool writable = connected && !m_session->profile().readOnly;
    const bool selected = !selectedName().isEmpty();
    m_new->setEnabled(writable);
    m_importAction->setEnabled(writable);
    m_delete->setEnabled(writable && selected);
    m_edit->setEnabled(selected);
    m_edit->setText(writable ? tr("Edit\u2026") : tr("View\u2026"));
    m_history->setEnabled(connected);
    m_lists->setEnabled(connected);
    m_exportAction->setEnabled(connected && m_model->rowCount() > 0);
    const QString readOnly = writable || !connected ? QString() : tr("This connection is read-only.");
    for (QPushButton *button : {m_new, m_import, m_delete})
        button->setToolTip(readOnly);
}

void PolicyPanel::afterWrite(const QString &select)
{
    Q_EMIT changed();
    refresh();
    if (m_session)
        m_session->libraryWatch()->checkNow();
    if (!select.isEmpty()) {
        // The refresh answers later; select once the row is there.
        auto connection = std::make_shared<QMetaObject::Connection>();
        *connection = connect(m_model, &QAbstractItemModel::rowsInserted, this, [this, select, connection] {
            selectPolicy(select);
            disconnect(*connection);
        });
        selectPolicy(select);
    }
}

void PolicyPanel::openEditor(const std::optional<model::Policy> &policy)
{
    if (!m_session)
        return;
    QStringList names;
    for (const model::Policy &stored : m_model->policies())
        names << stored.name;
    auto *editor = new PolicyEditor(m_session, policy, names, this);
    editor->setAttribute(Qt::WA_DeleteOnClose);
    connect(editor, &PolicyEditor::saved, this, &PolicyPanel::afterWrite);
    editor->open();
}

void PolicyPanel::openLists()
{
    if (!m_session)
        return;
    auto *dialog = new NamespaceListsDialog(m_session, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &NamespaceListsDialog::saved, this, [this] { afterWrite(QString()); });
    dialog->open();
}

void PolicyPanel::newPolicy()
{
    openEditor(std::nullopt);
}

void PolicyPanel::editSelected()
{
    if (const std::optional<model::Policy> policy = m_model->policy(selectedName()))
        openEditor(policy);
}

void PolicyPanel::deleteSelected()
{
    const std::optional<model::Policy> policy = m_model->policy(selectedName());
    if (!m_session || !policy || m_session->profile().readOnly)
        return;
    auto *ask = new QMessageBox(
        QMessageBox::Question, tr("Delete policy"),
        tr("Delete policy \u201c%1\u201d (version %2)?\n\nServices that call it are refused as an unknown "
           "policy once the library is published. Its history stays in the audit log.")
            .arg(policy->name)
            .arg(policy->version),
        QMessageBox::Yes | QMessageBox::Cancel, this);
    ask->setObjectName(QStringLiteral("deleteConfirmation"));
    ask->setDefaultButton(QMessageBox::Cancel);
    ask->setAttribute(Qt::WA_DeleteOnClose);
    connect(ask, &QMessageBox::finished, this, [this, policy = *policy](int answer) {
        if (answer != QMessageBox::Yes || !m_session)
            return;
        commitPolicyChanges(this, m_session, tr("delete policy \u201c%1\u201d").arg(policy.name),
                            {{model::PolicyChange::Kind::Delete, policy, policy.version}},
                            [this, name = policy.name](const model::PolicyStore::CommitResult &result) {
            m_status->setStyleSheet(!result.failure ? QString() : textStyle(Tone::Error));
            m_status->setText(!result.failure
                                  ? tr("Deleted \u201c%1\u201d.").arg(name)
                                  : tr("\u201c%1\u201d was not deleted: %2").arg(name, result.failure->message));
            afterWrite({});
        });
    });
    ask->open();
}

void PolicyPanel::importFile(const QString &path)
{
    if (!m_session)
        return;
    auto *dialog = new PolicyImportDialog(m_session, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &PolicyImportDialog::applied, this, [this](const QStringList &changed) {
        m_status->setText(tr("Imported; changed: %1").arg(changed.join(QStringLiteral(", "))));
        afterWrite({});
    });
    dialog->loadFile(path);
    dialog->open();
}

QString PolicyPanel::exportTo(const QString &path) const
{
    return model::messageOf(model::writeWholeFile(path, model::writePolicyFile(m_model->policies())));
}

} // namespace sluice::ui
