// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/monitor/policy_rates_table.h"

#include "model/format/units.h"
#include "model/policy/policy_summary.h"
#include "model/tables/policy_rates_model.h"
#include "ui/widgets/column_widths.h"
#include "ui/widgets/long_names.h"
#include "ui/widgets/sparkline_delegate.h"
#include "ui/widgets/state_palette.h"

#include <QAction>
#include <QCursor>
#include <QEvent>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>

namespace sluice::ui {

using model::PolicyRatesModel;

namespace {

constexpr qint64 loadWindowMs = 10000;

// Most rejections first, then most admissions, then by name: what an operator looks at first.
class RankedPolicies : public QSortFilterProxyModel {
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;

    // Stale figures are greyed (and say so in the name and the tooltip).
    QVariant data(const QModelIndex &index, int role) const override
    {
        if (role == Qt::ForegroundRole && index.data(PolicyRatesModel::StaleRole).toBool())
            return toneColor(Tone::Muted);
        return QSortFilterProxyModel::data(index, role);
    }

protected:
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override
    {
        const auto value = [](const QModelIndex &index, int column) {
            return index.sibling(index.row(), column).data(PolicyRatesModel::SortRole);
        };
        if (left.column() != PolicyRatesModel::RejectedPerSecond)
            return QSortFilterProxyModel::lessThan(left, right);
        for (int column : {int(PolicyRatesModel::RejectedPerSecond), int(PolicyRatesModel::AllowedPerSecond)}) {
            const double a = value(left, column).toDouble();
            const double b = value(right, column).toDouble();
            if (a != b)
                return a < b;
        }
        // Descending order shows the larger first, so names compare reversed to read A to Z.
        return value(left, PolicyRatesModel::Name).toString() > value(right, PolicyRatesModel::Name).toString();
    }
};

} // namespace

PolicyRatesTable::PolicyRatesTable(model::ConnectionSession *session, QWidget *parent)
    : QWidget(parent)
{
    auto *title = new QLabel(tr("<b>Policies, live</b>"), this);
    m_load = new QLabel(this);
    m_load->setObjectName(QStringLiteral("dashboardLoad"));
    m_load->setToolTip(tr("Commands per second this dashboard sends to the deployment (sampling, server status, "
                          "library checks, lists), averaged over the last 10 seconds."));
    m_totals = new QLabel(this);
    m_totals->setObjectName(QStringLiteral("ratesTotals"));
    m_totals->setWordWrap(true); // a long line wraps rather than widening the window
    m_totals->setToolTip(tr("Shadow policies reject nothing: the calls they would reject pass, so they are not "
                            "counted as rejected."));
    m_status = new QLabel(tr("Not connected."), this);
    m_status->setObjectName(QStringLiteral("ratesStatus"));
    m_status->setWordWrap(true);
    m_view = new QTableView(this);
    m_view->setObjectName(QStringLiteral("policyRatesTable"));
    m_view->setAccessibleName(tr("Live rates of every policy"));
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setSortingEnabled(true);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(28);
    m_view->setAlternatingRowColors(true);
    elideInTheMiddle(m_view);
    m_view->setItemDelegateForColumn(
        PolicyRatesModel::Trend,
        new SparklineDelegate({PolicyRatesModel::AllowedTrendRole, PolicyRatesModel::RejectedTrendRole,
                               PolicyRatesModel::WouldRejectTrendRole, PolicyRatesModel::StaleRole},
                              m_view));
    m_view->viewport()->installEventFilter(this);
    connect(m_view, &QTableView::activated, this, [this](const QModelIndex &index) {
        Q_EMIT policyActivated(index.data(PolicyRatesModel::NameRole).toString());
    });
    // The row's one action: the bucket of the subject it rejects most, in Watched keys.
    m_watchTop = new QPushButton(tr("Watch the most rejected"), this);
    m_watchTop->setObjectName(QStringLiteral("watchOverviewTopSubject"));
    m_watchTop->setToolTip(tr("Watch the bucket of the selected policy's most rejected subject (Ctrl+W)."));
    m_watchTop->setEnabled(false);
    connect(m_watchTop, &QPushButton::clicked, this, &PolicyRatesTable::watchSelectedTopSubject);
    auto *watchShortcut = new QAction(tr("Watch the selected policy's most rejected subject"), m_view);
    watchShortcut->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_W));
    watchShortcut->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(watchShortcut, &QAction::triggered, this, &PolicyRatesTable::watchSelectedTopSubject);
    m_view->addAction(watchShortcut);

    auto *heading = new QHBoxLayout;
    heading->addWidget(title);
    heading->addSpacing(12);
    heading->addWidget(m_totals, 1);
    heading->addWidget(m_load);
    heading->addWidget(m_watchTop);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(heading);
    layout->addWidget(m_status);
    layout->addWidget(m_view, 1);
    m_clock.start();
    if (session)
        followSession(session);
}

bool PolicyRatesTable::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_view->viewport() && event->type() == QEvent::Resize)
        fitTrendColumn();
    if (watched == m_view->viewport() && m_ranked) {
        if (event->type() == QEvent::Enter) {
            m_ranked->setDynamicSortFilter(false);
        } else if (event->type() == QEvent::Leave) {
            m_ranked->setDynamicSortFilter(true);
            rank();
        }
    }
    return QWidget::eventFilter(watched, event);
}

void PolicyRatesTable::rank()
{
    m_ranked->sort(m_ranked->sortColumn(), m_ranked->sortOrder());
}

void PolicyRatesTable::fitTrendColumn()
{
    // 60 samples in 140 pixels leave room for the policy names beside the Blocked column at 1024 pixels
    // wide; a wider window gives half of what it adds to the trend, so it does not all go to the names.
    if (!m_model)
        return; // no columns yet
    constexpr int narrowTrend = 140, narrowRows = 1000;
    const int wider = std::max(0, m_view->viewport()->width() - narrowRows);
    m_view->horizontalHeader()->resizeSection(PolicyRatesModel::Trend, narrowTrend + wider / 2);
}

void PolicyRatesTable::refreshShownTooltip()
{
    const QPoint at = QCursor::pos();
    const QPoint inRows = m_view->viewport()->mapFromGlobal(at);
    if (!QToolTip::isVisible() || !m_view->viewport()->rect().contains(inRows))
        return;
    const QString text = m_view->indexAt(inRows).data(Qt::ToolTipRole).toString();
    if (text.isEmpty())
        QToolTip::hideText();
    else if (text != QToolTip::text())
        QToolTip::showText(at, text, m_view->viewport());
}

void PolicyRatesTable::followSession(model::ConnectionSession *session)
{
    m_session = session;
    m_model = new PolicyRatesModel(session->rates(), this);
    m_ranked = new RankedPolicies(this);
    m_ranked->setSourceModel(m_model);
    m_ranked->setSortRole(PolicyRatesModel::SortRole);
    m_ranked->setDynamicSortFilter(true);
    m_view->setModel(m_ranked);
    m_model->setTopSubjects(session->topSubjects(m_model));
    m_model->setRuleCounts(session->ruleCounts(m_model));
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, &PolicyRatesTable::updateActions);
    connect(m_model, &QAbstractItemModel::dataChanged, this, &PolicyRatesTable::updateActions);
    connect(m_model, &QAbstractItemModel::dataChanged, this, &PolicyRatesTable::refreshShownTooltip);
    // New rows take their rank even under the pointer: they move every row anyway, and a table that
    // filled while the pointer rested on it would stay unranked.
    connect(m_model, &QAbstractItemModel::rowsInserted, this, [this] {
        if (!m_ranked->dynamicSortFilter())
            rank(); // a dynamic sort has ranked them already
    });
    // Ranked as the pointer finds it: it may already be over the rows.
    m_ranked->setDynamicSortFilter(!m_view->viewport()->underMouse());
    updateActions();
    m_view->sortByColumn(PolicyRatesModel::RejectedPerSecond, Qt::DescendingOrder);
    setColumnWidths(m_view, PolicyRatesModel::Name,
                    {{PolicyRatesModel::Limit, QStringLiteral("10 per second, burst 20")},
                     {PolicyRatesModel::TopSubject, QStringLiteral("mallory (1,000 rejected)")},
                     {PolicyRatesModel::AllowedPerSecond, QStringLiteral("100,000.0")},
                     {PolicyRatesModel::RejectedPerSecond, QStringLiteral("100,000.0")},
                     {PolicyRatesModel::RejectedShare, QStringLiteral("100.0%")},
                     {PolicyRatesModel::Blocked, QStringLiteral("Blocked")}});
    m_view->horizontalHeader()->setSectionResizeMode(PolicyRatesModel::Trend, QHeaderView::Fixed);
    fitTrendColumn();
    m_status->setText(tr("Waiting for the first sample\u2026"));
    m_status->show();
    m_load->clear();
    connect(session->rates(), &model::PolicyRateSampler::sampled, this, &PolicyRatesTable::takeSample);
    connect(session->libraryWatch(), &model::LibraryWatch::checked, this,
            [this](const model::LibraryWatch::Report &report) {
        m_shadow = model::shadowPolicyNames(report.status.published.policies);
        m_model->setPublished(report.status.published.policies);
    });
}

void PolicyRatesTable::takeSample(const model::RateSample &sample)
{
    QStringList lines;
    if (!m_model->staleText().isEmpty())
        lines << tr("Not the present: %1. The figures below are the last counted.").arg(m_model->staleText());
    for (const QString &problem : sample.problems)
        if (!m_model->staleText().contains(problem)) // said once: the stale line names it
            lines << problem;
    if (sample.spanMs > 0 && sample.policies.isEmpty())
        lines << tr("The published library has no policies.");
    m_status->setText(lines.join(QLatin1Char('\n')));
    m_status->setStyleSheet(lines.isEmpty() ? QString() : textStyle(Tone::Warning));
    m_status->setVisible(!lines.isEmpty());
    showLoad();
    showTotals(sample);
}

void PolicyRatesTable::showTotals(const model::RateSample &sample)
{
    m_totals->setStyleSheet(m_model->staleText().isEmpty() ? QString() : textStyle(Tone::Muted));
    if (sample.spanMs == 0) {
        // Nothing counted: the last totals stand, as the rows do, and say since when.
        if (!m_model->staleText().isEmpty() && !m_totals->text().isEmpty()
            && !m_totals->text().startsWith(QLatin1Char('(')))
            m_totals->setText(tr("(stale) %1").arg(m_totals->text()));
        return;
    }
    double decided = 0;
    double rejected = 0;
    double wouldReject = 0;
    for (const model::PolicyRate &rate : sample.policies) {
        decided += rate.point.allowedPerSecond() + rate.point.rejectedPerSecond();
        (m_shadow.contains(rate.policy) ? wouldReject : rejected) += rate.point.rejectedPerSecond();
    }
    QString text = tr("Rejected %1/s of %2/s").arg(model::formatDecimal(rejected), model::formatDecimal(decided));
    if (wouldReject > 0)
        text += tr(" \u00b7 shadow policies would reject %1/s (let through)").arg(model::formatDecimal(wouldReject));
    m_totals->setText(text);
}

QByteArray PolicyRatesTable::selectedTopSubject() const
{
    const QModelIndexList rows = m_view->selectionModel()->selectedRows(PolicyRatesModel::TopSubject);
    return rows.isEmpty() ? QByteArray() : rows.first().data(PolicyRatesModel::SubjectRole).toByteArray();
}

void PolicyRatesTable::updateActions()
{
    const QByteArray subject = selectedTopSubject();
    m_watchTop->setEnabled(!subject.isEmpty());
    m_watchTop->setAccessibleDescription(subject.isEmpty() ? QString()
                                                           : tr("Watch %1's bucket").arg(QString::fromUtf8(subject)));
}

void PolicyRatesTable::watchSelectedTopSubject()
{
    const QByteArray subject = selectedTopSubject();
    if (!subject.isEmpty())
        Q_EMIT watchRequested(
            m_view->selectionModel()->selectedRows().first().data(PolicyRatesModel::NameRole).toString(), subject);
}

QString PolicyRatesTable::totalsText() const
{
    return m_totals->text();
}

void PolicyRatesTable::showLoad()
{
    if (!m_session)
        return;
    const qint64 now = m_clock.elapsed();
    m_sent.emplace_back(now, m_session->commandsSent());
    while (m_sent.size() > 2 && m_sent.front().first < now - loadWindowMs)
        m_sent.pop_front();
    if (m_sent.size() < 2 || now == m_sent.front().first)
        return;
    const double perSecond
        = double(m_sent.back().second - m_sent.front().second) * 1000.0 / double(now - m_sent.front().first);
    m_load->setText(tr("Sluice's load: %1 commands/s").arg(model::formatDecimal(perSecond)));
}

QString PolicyRatesTable::statusText() const
{
    return m_status->isHidden() ? QString() : m_status->text();
}

QString PolicyRatesTable::loadText() const
{
    return m_load->text();
}

} // namespace sluice::ui
