// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/monitor/subject_view.h"

#include "model/format/figure_age.h"
#include "model/format/subject_text.h"
#include "model/format/units.h"
#include "model/policy/operator_identity.h"
#include "model/policy/policy_summary.h"
#include "ui/connection/write_guard.h"
#include "ui/widgets/column_widths.h"
#include "ui/widgets/long_names.h"
#include "ui/widgets/policy_choices.h"
#include "ui/widgets/state_palette.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace sluice::ui {

namespace {

QTableWidgetItem *cell(bool number)
{
    auto *item = new QTableWidgetItem;
    if (number)
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

} // namespace

SubjectView::SubjectView(model::ConnectionSession *session, QWidget *parent)
    : QWidget(parent)
{
    m_subject = new QLineEdit(this);
    m_subject->setObjectName(QStringLiteral("subjectEdit"));
    m_subject->setAccessibleName(tr("Subject"));
    m_subject->setPlaceholderText(tr("a subject as services pass it: a user id, an API key, an address"));
    auto *label = new QLabel(tr("Subject &name:"), this); // Alt+N: Alt+Y is the tab's
    label->setBuddy(m_subject);
    m_show = new QPushButton(tr("Show"), this);
    m_show->setObjectName(QStringLiteral("subjectShow"));
    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("subjectError"));
    m_error->setStyleSheet(textStyle(Tone::Error));
    m_error->setWordWrap(true);
    m_error->setTextFormat(Qt::PlainText);
    m_error->hide();
    auto *form = new QHBoxLayout;
    form->addWidget(label);
    form->addWidget(m_subject, 1);
    form->addWidget(m_show);

    m_heading = new QLabel(this);
    m_heading->setObjectName(QStringLiteral("subjectHeading"));
    m_heading->setWordWrap(true);
    m_heading->setTextFormat(Qt::PlainText); // it names the subject, which a service chose

    m_table = new QTableWidget(0, ColumnCount, this);
    m_table->setObjectName(QStringLiteral("subjectTable"));
    m_table->setAccessibleName(tr("The subject under every policy"));
    m_table->setHorizontalHeaderLabels(
        {tr("Policy"), tr("A call now"), tr("Available"), tr("Full in"), tr("Rules"), tr("Allowed"), tr("Rejected")});
    m_table->horizontalHeaderItem(DecisionColumn)
        ->setToolTip(tr("What the library would answer a call of cost 1 now (sluice_peek: nothing is consumed "
                        "or counted). A shadow policy lets every call through; it says what it would do."));
    m_table->horizontalHeaderItem(AllowedColumn)->setToolTip(tr("The bucket's own counters, since its key was made."));
    m_table->horizontalHeaderItem(RejectedColumn)->setToolTip(tr("The bucket's own counters, since its key was made."));
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    elideInTheMiddle(m_table);
    // The rules take what is left: an override's pattern or a list's is the one long text of a row.
    setColumnWidths(m_table, RulesColumn,
                    {{PolicyColumn, model::withShadowMark(QStringLiteral("login-attempts"))},
                     {DecisionColumn, QStringLiteral("rejected: blocked for 59 min 59 s")},
                     {AvailableColumn, QStringLiteral("1,000 of 1,000")},
                     {FullInColumn, QStringLiteral("59 min 59 s")},
                     {AllowedColumn, QStringLiteral("100,000")},
                     {RejectedColumn, QStringLiteral("100,000")}});

    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("subjectStatus"));
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::PlainText); // it may quote a server's error
    m_watch = new QPushButton(tr("Watch"), this);
    m_watch->setObjectName(QStringLiteral("subjectWatch"));
    m_watch->setToolTip(tr("Add the selected bucket to the Watched keys tab, to chart it."));
    m_reset = new QPushButton(tr("Reset bucket\u2026"), this);
    m_reset->setObjectName(QStringLiteral("subjectReset"));
    m_resetAll = new QPushButton(tr("Reset all its buckets\u2026"), this);
    m_resetAll->setObjectName(QStringLiteral("subjectResetAll"));
    auto *footer = new QHBoxLayout;
    footer->addWidget(m_status, 1);
    footer->addWidget(m_watch);
    footer->addWidget(m_reset);
    footer->addWidget(m_resetAll);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(12, 12, 12, 12);
    layout->addLayout(form);
    layout->addWidget(m_error);
    layout->addWidget(m_heading);
    layout->addWidget(m_table, 1);
    layout->addLayout(footer);

    // Typed as shown: the subject's printable form (model/format/subject_text.h), %XX for what is not printable.
    const auto showTyped = [this] { showSubject(model::subjectFromText(m_subject->text().trimmed())); };
    connect(m_show, &QPushButton::clicked, this, showTyped);
    connect(m_subject, &QLineEdit::returnPressed, this, showTyped);
    connect(m_table, &QTableWidget::itemSelectionChanged, this, &SubjectView::updateActions);
    connect(m_watch, &QPushButton::clicked, this, [this] {
        if (!selectedPolicy().isEmpty())
            Q_EMIT watchRequested(selectedPolicy(), m_reader->subject());
    });
    connect(m_reset, &QPushButton::clicked, this, &SubjectView::resetSelected);
    connect(m_resetAll, &QPushButton::clicked, this, &SubjectView::resetAll);
    if (session)
        followSession(session);
    showReadings();
}

void SubjectView::followSession(model::ConnectionSession *session)
{
    m_session = session;
    m_reader = session->readSubject(this);
    // The policies follow the samples only while the tab is in front; it takes the last one when shown.
    connect(session->rates(), &model::PolicyRateSampler::sampled, this, [this](const model::RateSample &sample) {
        if (isVisible())
            takePolicies(sample);
    });
    connect(session->libraryWatch(), &model::LibraryWatch::checked, this,
            [this](const model::LibraryWatch::Report &report) {
        m_reader->setShadowPolicies(model::shadowPolicyNames(report.status.published.policies));
        showReadings();
    });
    connect(m_reader, &model::SubjectReader::bucketsChanged, this, &SubjectView::rebuildRows);
    connect(m_reader, &model::SubjectReader::roundDone, this, &SubjectView::showReadings);
    m_reader->setShadowPolicies(
        model::shadowPolicyNames(session->libraryWatch()->lastReport().status.published.policies));
}

void SubjectView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (!m_reader || !m_session)
        return;
    takePolicies(m_session->rates()->lastSample());
    m_reader->start();
}

void SubjectView::takePolicies(const model::RateSample &sample)
{
    if (sample.endMs == 0 || !sample.missingNodes.isEmpty() || !sample.problems.isEmpty())
        return; // no sample yet, or a primary that did not answer: nothing said of which policies are gone
    QStringList policies;
    for (const model::PolicyRate &rate : sample.policies)
        policies << rate.policy;
    m_reader->setPolicies(policies);
}

void SubjectView::hideEvent(QHideEvent *event)
{
    QWidget::hideEvent(event);
    if (m_reader)
        m_reader->stop(); // two reads per policy each second, only while someone looks
}

bool SubjectView::showSubject(const QByteArray &subject)
{
    if (!m_reader) {
        showError(tr("Not connected."));
        return false;
    }
    if (const auto refused = m_reader->setSubject(subject)) {
        showError(refused->message);
        return false;
    }
    if (model::subjectFromText(m_subject->text().trimmed()) != subject)
        m_subject->setText(model::subjectText(subject));
    m_notice.clear();
    showError({});
    return true;
}

void SubjectView::rebuildRows()
{
    const QString selected = selectedPolicy();
    const QVector<model::SubjectBucket> &buckets = m_reader->buckets();
    m_table->setRowCount(int(buckets.size()));
    for (int row = 0; row < buckets.size(); ++row) {
        for (int column = 0; column < ColumnCount; ++column)
            m_table->setItem(row, column,
                             cell(column == AvailableColumn || column == AllowedColumn || column == RejectedColumn
                                  || column == FullInColumn));
        m_table->item(row, PolicyColumn)->setData(Qt::UserRole, buckets.at(row).policy);
        if (buckets.at(row).policy == selected)
            m_table->selectRow(row);
    }
    showReadings();
}

void SubjectView::showReadings()
{
    static const QVector<model::SubjectBucket> none;
    const QVector<model::SubjectBucket> &buckets = m_reader ? m_reader->buckets() : none;
    const QString subject = m_reader ? model::subjectText(m_reader->subject()) : QString();
    if (subject.isEmpty())
        m_heading->setText(tr("Name a subject to see its bucket under every policy, and what each policy would "
                              "decide for a call of it now."));
    else
        m_heading->setText(
            buckets.isEmpty()
                ? tr("The library runs no policy yet: publish from the Deployment tab.")
                : tr("\u201c%1\u201d under each of the %n policies: what a call of cost 1 would get now, read every "
                     "second (nothing is consumed or counted by this view).",
                     nullptr, int(buckets.size()))
                      .arg(subject));
    qint64 readAtMs = 0;
    QStringList problems;
    for (int row = 0; row < buckets.size() && row < m_table->rowCount(); ++row) {
        showRow(row, buckets.at(row));
        readAtMs = std::max(readAtMs, buckets.at(row).readAtMs);
        if (!buckets.at(row).problem.isEmpty() && !problems.contains(buckets.at(row).problem))
            problems << buckets.at(row).problem;
    }
    QString status;
    if (subject.isEmpty())
        status = m_session ? tr("No subject shown.") : tr("Not connected.");
    else if (!problems.isEmpty() && readAtMs > 0)
        status = model::notThePresent(problems.join(QStringLiteral("; ")), readAtMs);
    else if (!problems.isEmpty())
        status = tr("Could not be read: %1.").arg(problems.join(QStringLiteral("; ")));
    else if (readAtMs > 0)
        status = tr("Read at %1.").arg(model::formatClock(readAtMs));
    else
        status = tr("Reading\u2026");
    if (!m_notice.isEmpty())
        status += QLatin1Char(' ') + m_notice;
    m_status->setText(status);
    m_status->setStyleSheet(problems.isEmpty() ? QString() : textStyle(Tone::Warning));
    updateActions();
}

void SubjectView::showRow(int row, const model::SubjectBucket &bucket)
{
    const QLocale locale;
    m_table->item(row, PolicyColumn)->setText(bucket.shadow ? model::withShadowMark(bucket.policy) : bucket.policy);
    const bool stale = !bucket.problem.isEmpty();
    const QString asOf
        = stale && bucket.readAtMs > 0 ? model::notThePresent(bucket.problem, bucket.readAtMs) : bucket.problem;
    if (!bucket.state) {
        for (int column = DecisionColumn; column < ColumnCount; ++column)
            m_table->item(row, column)->setText(column == DecisionColumn && stale ? tr("not read") : QString());
        m_table->item(row, DecisionColumn)->setToolTip(asOf);
        return;
    }
    const model::BucketState &state = *bucket.state;
    m_table->item(row, DecisionColumn)->setText(bucket.decisionText());
    m_table->item(row, AvailableColumn)
        ->setText(tr("%1 of %2").arg(locale.toString(state.available), locale.toString(state.capacity)));
    m_table->item(row, FullInColumn)
        ->setText(state.resetAfterMs == 0 ? tr("full") : model::formatWait(state.resetAfterMs));
    m_table->item(row, RulesColumn)->setText(state.rulesText());
    m_table->item(row, AllowedColumn)->setText(locale.toString(state.allowed));
    m_table->item(row, RejectedColumn)->setText(locale.toString(state.rejected));
    for (int column = DecisionColumn; column < ColumnCount; ++column) {
        QTableWidgetItem *item = m_table->item(row, column);
        item->setToolTip(asOf);
        item->setForeground(stale ? QBrush(toneColor(Tone::Muted)) : QBrush());
    }
    if (!stale && bucket.wouldReject())
        m_table->item(row, DecisionColumn)->setForeground(toneColor(Tone::Rejected));
}

QString SubjectView::selectedPolicy() const
{
    const QList<QTableWidgetItem *> selected = m_table->selectedItems();
    return selected.isEmpty() ? QString()
                              : m_table->item(selected.first()->row(), PolicyColumn)->data(Qt::UserRole).toString();
}

void SubjectView::updateActions()
{
    const bool shown = m_reader && !m_reader->subject().isEmpty();
    const bool writable = m_session && !m_session->profile().readOnly;
    const bool selected = shown && !selectedPolicy().isEmpty();
    m_watch->setEnabled(selected);
    m_reset->setEnabled(selected && writable);
    m_resetAll->setEnabled(shown && writable && m_table->rowCount() > 0);
    const QString readOnly = tr("This connection is read-only.");
    m_reset->setToolTip(m_session && !writable ? readOnly
                                               : tr("Delete the selected policy's bucket of this subject: it is "
                                                    "full again at once (audited)."));
    m_resetAll->setToolTip(m_session && !writable ? readOnly
                                                  : tr("Delete every bucket this subject has, under every policy "
                                                       "(each reset audited)."));
}

void SubjectView::resetSelected()
{
    const QString policy = selectedPolicy();
    if (policy.isEmpty() || !m_session)
        return;
    const QByteArray subject = m_reader->subject();
    confirmWrite(this, m_session->profile(),
                 tr("reset the bucket of \u201c%1\u201d under \u201c%2\u201d").arg(model::subjectText(subject), policy),
                 tr("Its key is deleted, so the bucket is full at once. The audit log records who reset it and "
                    "the state it had."),
                 [this, subject, policy] { startResets(subject, {policy}); });
}

void SubjectView::resetAll()
{
    if (!m_session || !m_reader)
        return;
    // Only buckets with a key: one without is full already, and its reset would only add to the audit log.
    QStringList policies;
    for (const model::SubjectBucket &bucket : m_reader->buckets())
        if (!bucket.state || bucket.state->ttlMs != -2)
            policies << bucket.policy;
    const QByteArray subject = m_reader->subject();
    if (policies.isEmpty()) {
        m_notice = tr("\u201c%1\u201d has no bucket to reset: every one is full.").arg(model::subjectText(subject));
        showReadings();
        return;
    }
    confirmWrite(this, m_session->profile(),
                 tr("reset %n bucket(s) of \u201c%1\u201d (%2)", nullptr, int(policies.size()))
                     .arg(model::subjectText(subject), policies.join(QStringLiteral(", "))),
                 tr("Each key is deleted, so each bucket is full at once. The audit log records each reset with "
                    "who made it and the state the bucket had."),
                 [this, subject, policies] { startResets(subject, policies); });
}

void SubjectView::startResets(const QByteArray &subject, const QStringList &policies)
{
    m_notice.clear(); // the last resets' words would pass for these
    resetNext(subject, policies, {}, 0);
}

// One reset after another, so each is recorded before the next and a failure says which policies it left.
void SubjectView::resetNext(const QByteArray &subject, QStringList policies, QStringList failed, int done)
{
    if (!m_session)
        return;
    if (policies.isEmpty()) {
        m_notice = tr("%n bucket(s) reset; the History tab shows the entries.", nullptr, done);
        showError(failed.isEmpty() ? QString() : tr("Reset failed: %1").arg(failed.join(QStringLiteral("; "))));
        m_reader->pollNow();
        showReadings();
        if (done > 0)
            Q_EMIT bucketReset();
        return;
    }
    const QString policy = policies.takeFirst();
    m_status->setText(tr("Resetting the bucket under \u201c%1\u201d\u2026").arg(policy));
    m_session->resetBucket(
        policy, subject, model::operatorIdentity(QStringLiteral("sluice")), this,
        [this, subject, policy, policies, failed, done](const std::optional<model::Failure> &failure) {
        QStringList failedSoFar = failed;
        if (failure)
            failedSoFar << tr("%1: %2").arg(policy, failure->message);
        resetNext(subject, policies, failedSoFar, failure ? done : done + 1);
        });
}

void SubjectView::showError(const QString &error)
{
    m_error->setText(error);
    m_error->setVisible(!error.isEmpty());
}

QString SubjectView::statusText() const
{
    return m_status->text();
}

QString SubjectView::errorText() const
{
    return m_error->isVisible() ? m_error->text() : QString();
}

} // namespace sluice::ui
