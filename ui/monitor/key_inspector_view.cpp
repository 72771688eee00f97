// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/monitor/key_inspector_view.h"

#include "model/limiter/bucket_reset.h"
#include "model/policy/operator_identity.h"
#include "model/policy/policy_summary.h"
#include "ui/connection/write_guard.h"
#include "ui/widgets/action_button.h"
#include "ui/widgets/column_widths.h"
#include "ui/widgets/long_names.h"
#include "ui/widgets/policy_choices.h"
#include "ui/widgets/state_palette.h"

#include <QAction>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace sluice::ui {

using model::KeyInspectorModel;

KeyInspectorView::KeyInspectorView(model::ConnectionSession *session, QWidget *parent)
    : QWidget(parent)
{
    m_policy = policyDropDown(this, QStringLiteral("inspectPolicy"), tr("Policy filter"), tr("All policies"));
    m_pattern = new QLineEdit(this);
    m_pattern->setObjectName(QStringLiteral("inspectPattern"));
    m_pattern->setAccessibleName(tr("Subject pattern"));
    m_pattern->setPlaceholderText(tr("subject pattern: * any, ? one character, [abc], \\ escapes; empty for all"));
    m_scan = new QPushButton(tr("Scan"), this);
    m_scan->setObjectName(QStringLiteral("inspectScan"));
    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("inspectError"));
    m_error->setStyleSheet(textStyle(Tone::Error));
    m_error->setWordWrap(true);
    m_error->hide();

    auto *form = new QHBoxLayout;
    form->addWidget(new QLabel(tr("Policy"), this));
    form->addWidget(m_policy);
    form->addWidget(new QLabel(tr("Subject"), this));
    form->addWidget(m_pattern, 1);
    form->addWidget(m_scan);

    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("inspectTable"));
    m_table->setAccessibleName(tr("Buckets found"));
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    elideInTheMiddle(m_table);

    m_status = new QLabel(tr("Connect to browse the limiter's buckets."), this);
    m_status->setObjectName(QStringLiteral("inspectStatus"));
    m_status->setWordWrap(true); // a long status wraps instead of widening the window
    m_more = new QPushButton(tr("Scan further"), this);
    m_more->setObjectName(QStringLiteral("inspectMore"));
    m_more->hide();
    m_watch = new QPushButton(tr("Watch"), this);
    m_watch->setObjectName(QStringLiteral("inspectWatch"));
    m_watch->setToolTip(tr("Add the selected bucket to the Watched keys tab."));
    m_showSubject = new QPushButton(tr("Every policy"), this);
    m_showSubject->setObjectName(QStringLiteral("inspectShowSubject"));
    m_showSubject->setToolTip(tr("The selected bucket's subject under every policy, on the By subject tab."));
    m_reset = new QPushButton(tr("Reset bucket\u2026"), this);
    m_reset->setObjectName(QStringLiteral("inspectReset"));
    // The rows are read once (each row says when; its waits count down from then): Refresh scans again.
    m_refresh = new QPushButton(tr("Refresh"), this);
    m_refresh->setObjectName(QStringLiteral("refreshButton"));
    m_refresh->setToolTip(tr("Scan again with the same filter and read every bucket afresh (F5, View → Refresh)."));
    m_refreshAction = new QAction(tr("Refresh"), this);
    pressesAction(m_refresh, m_refreshAction);
    auto *footer = new QHBoxLayout;
    footer->addWidget(m_status, 1);
    footer->addWidget(m_refresh);
    footer->addWidget(m_more);
    footer->addWidget(m_watch);
    footer->addWidget(m_showSubject);
    footer->addWidget(m_reset);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(12, 12, 12, 12);
    layout->addLayout(form);
    layout->addWidget(m_error);
    layout->addWidget(m_table, 1);
    layout->addLayout(footer);

    connect(m_scan, &QPushButton::clicked, this, &KeyInspectorView::scan);
    connect(m_pattern, &QLineEdit::returnPressed, this, &KeyInspectorView::scan);
    connect(m_pattern, &QLineEdit::textEdited, this, [this] { showError({}); });
    connect(m_more, &QPushButton::clicked, this, [this] {
        if (m_model)
            m_model->fetchMore({});
    });
    connect(m_watch, &QPushButton::clicked, this, [this] {
        const int row = selectedRow();
        if (row >= 0)
            Q_EMIT watchRequested(m_model->bucket(row).bucket.policy, m_model->bucket(row).bucket.subject);
    });
    connect(m_showSubject, &QPushButton::clicked, this, [this] {
        const int row = selectedRow();
        if (row >= 0)
            Q_EMIT subjectRequested(m_model->bucket(row).bucket.subject);
    });
    connect(m_reset, &QPushButton::clicked, this, &KeyInspectorView::resetSelected);
    connect(m_refreshAction, &QAction::triggered, this, [this] {
        if (m_model)
            m_model->rescan();
    });
    updateActions();
    if (session)
        followSession(session);
}

void KeyInspectorView::followSession(model::ConnectionSession *session)
{
    m_session = session;
    m_model = session->inspectKeys(this);
    // Sortable by every column (numbers as numbers); in scan order until a heading is clicked.
    auto *sorted = new QSortFilterProxyModel(m_model);
    sorted->setSourceModel(m_model);
    sorted->setSortRole(KeyInspectorModel::SortRole);
    m_table->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    m_table->setModel(sorted);
    m_table->setSortingEnabled(true);
    setColumnWidths(m_table, KeyInspectorModel::Subject,
                    {{KeyInspectorModel::PolicyColumn, model::withShadowMark(QStringLiteral("login-next"))},
                     {KeyInspectorModel::Algorithm, QStringLiteral("sliding_window")},
                     {KeyInspectorModel::Available, QStringLiteral("1,000 of 1,000")},
                     {KeyInspectorModel::FullIn, QStringLiteral("59 min 59 s")},
                     {KeyInspectorModel::ExpiresIn, QStringLiteral("no key (full)")},
                     {KeyInspectorModel::Allowed, QStringLiteral("100,000")},
                     {KeyInspectorModel::Rejected, QStringLiteral("100,000")},
                     {KeyInspectorModel::Rules, QStringLiteral("blocked 9 min 59 s")},
                     {KeyInspectorModel::ReadAt, QStringLiteral("00:00:00")},
                     {KeyInspectorModel::Node, QStringLiteral("127.0.0.1:30001")}});
    // The subject and its rules share what is left, so neither is cut to a few letters at 1,024 pixels.
    m_table->horizontalHeader()->setSectionResizeMode(KeyInspectorModel::Rules, QHeaderView::Stretch);
    connect(m_model, &KeyInspectorModel::loadingChanged, this, &KeyInspectorView::updateStatus);
    connect(m_model, &KeyInspectorModel::modelReset, this, &KeyInspectorView::updateActions);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, &KeyInspectorView::updateActions);
    connect(session->rates(), &model::PolicyRateSampler::sampled, this, &KeyInspectorView::updatePolicies);
    connect(session->libraryWatch(), &model::LibraryWatch::checked, this,
            [this](const model::LibraryWatch::Report &report) {
        const QSet<QString> shadow = model::shadowPolicyNames(report.status.published.policies);
        m_model->setShadowPolicies(shadow);
        m_model->setSpreadPolicies(model::spreadPolicies(report.status.published.policies));
        markShadowPolicies(m_policy, shadow);
    });
    connect(session, &model::ConnectionSession::ready, this, [this] {
        if (!m_browsed && isVisible())
            scan();
    });
    m_status->setText(tr("Press Scan to browse the buckets."));
    updateActions();
}

void KeyInspectorView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    // The first look browses at once: one page is cheap.
    if (m_session && !m_browsed && m_session->isReady())
        scan();
}

void KeyInspectorView::updatePolicies(const model::RateSample &sample)
{
    addPoliciesInNameOrder(m_policy, sample.policyNames(), m_model->shadowPolicies(), 1); // after "All policies"
}

bool KeyInspectorView::scan()
{
    if (!m_model)
        return false;
    model::BucketFilter filter;
    filter.policy = chosenPolicy(m_policy); // empty for "All policies"
    filter.subjectPattern = m_pattern->text().trimmed();
    if (const auto failure = m_model->browse(filter)) {
        showError(failure->message);
        return false;
    }
    m_browsed = true;
    m_notice.clear();
    // Which primary holds a bucket matters only when there are several.
    m_table->setColumnHidden(KeyInspectorModel::Node, m_model->scanner().primaries() < 2);
    showError({});
    updateStatus();
    return true;
}

void KeyInspectorView::updateStatus()
{
    if (!m_model || !m_model->scanner().isStarted())
        return;
    const model::KeyScanner &scanner = m_model->scanner();
    const QLocale locale;
    const QString shown = locale.toString(m_model->rowCount());
    QString text;
    if (m_model->isLoading())
        text = tr("Scanning\u2026 %1 buckets so far").arg(shown);
    else if (scanner.isExactLookup())
        text = m_model->rowCount() == 0 ? tr("No bucket: this subject has no key under this policy (so it is full).")
                                        : tr("The subject's bucket, looked up by its key (no scan needed).");
    else if (scanner.atEnd() && m_model->rowCount() == 0)
        text = tr("No bucket matches (every primary scanned).");
    else if (scanner.atEnd() && scanner.primaries() == 1)
        text = tr("All %1 matching buckets shown (the whole keyspace scanned).").arg(shown);
    else if (scanner.atEnd())
        text = tr("All %1 matching buckets shown (all %2 primaries scanned to the end).")
                   .arg(shown)
                   .arg(scanner.primaries());
    else if (m_model->rowCount() == 0)
        text = tr("Nothing matched yet in %1 SCAN steps; more keys to scan.").arg(scanner.steps());
    else
        text = tr("%1 buckets shown; scroll down for more.").arg(shown);
    const QStringList problems = scanner.problems();
    if (!problems.isEmpty())
        text += QLatin1Char(' ') + tr("Not scanned: %1.").arg(problems.join(QStringLiteral("; ")));
    if (!m_notice.isEmpty())
        text += QLatin1Char(' ') + m_notice;
    m_status->setText(text);
    // A filter that matches little may leave the table short of a screen: the view never asks then.
    m_more->setVisible(!scanner.atEnd() && !m_model->isLoading());
}

int KeyInspectorView::selectedRow() const
{
    if (!m_model || !m_table->selectionModel())
        return -1;
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    const auto *sorted = static_cast<const QSortFilterProxyModel *>(m_table->model());
    return rows.isEmpty() ? -1 : sorted->mapToSource(rows.first()).row();
}

void KeyInspectorView::updateActions()
{
    const bool selected = selectedRow() >= 0;
    const bool writable = m_session && !m_session->profile().readOnly;
    // A spread policy's subject is its buckets' sum: the watch list and the By subject view read one key, so they
    // would show a bucket that does not exist. A bucket of it is watched by its own subject, "<subject>#<i>".
    const bool spread = selected && !m_model->bucket(selectedRow()).bucket.spreadKeys.isEmpty();
    m_watch->setEnabled(selected && !spread);
    m_watch->setToolTip(spread ? tr("A spread subject sums several buckets: watch one of them by adding "
                                    "“<subject>#<bucket>” on the Watched keys tab.")
                               : QString());
    m_showSubject->setEnabled(selected && !spread);
    m_reset->setEnabled(selected && writable);
    m_reset->setToolTip(m_session && !writable
                            ? tr("This connection is read-only.")
                            : tr("Delete the selected bucket's key: it is full again at once (audited; a spread "
                                 "subject's every bucket)."));
}

void KeyInspectorView::resetSelected()
{
    const int row = selectedRow();
    if (row < 0 || !m_session)
        return;
    const model::FoundBucket bucket = m_model->bucket(row).bucket;
    const QString subject = QString::fromUtf8(bucket.subject);
    const QString what = tr("reset the bucket of \u201c%1\u201d under \u201c%2\u201d").arg(subject, bucket.policy);
    const QString detail
        = tr("Its key is deleted, so the bucket is full at once: the subject's next calls are admitted "
             "up to the policy's capacity. The audit log records who reset it and the state it had.");
    QPointer<model::ConnectionSession> session = m_session;
    confirmWrite(this, m_session->profile(), what, detail, [this, session, bucket, subject] {
        if (!session)
            return;
        m_status->setText(tr("Resetting the bucket of \u201c%1\u201d\u2026").arg(subject));
        session->resetBucket(bucket.policy, bucket.subject, model::operatorIdentity(QStringLiteral("sluice")), this,
                             [this, bucket, subject](const std::optional<model::Failure> &failure) {
            if (failure) {
                showError(tr("Reset failed: %1").arg(failure->message));
                updateStatus();
                return;
            }
            showError({});
            m_notice = tr("The bucket of \u201c%1\u201d was reset; the History tab shows the entry.").arg(subject);
            m_model->reread(m_model->rowOf(bucket.key));
            updateStatus();
            Q_EMIT bucketReset();
        });
    });
}

void KeyInspectorView::showError(const QString &error)
{
    m_error->setText(error);
    m_error->setVisible(!error.isEmpty());
}

QString KeyInspectorView::statusText() const
{
    return m_status->text();
}

QString KeyInspectorView::errorText() const
{
    return m_error->isVisible() ? m_error->text() : QString();
}

} // namespace sluice::ui
