// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/tune/tune_results.h"

#include "model/format/subject_text.h"
#include "model/format/units.h"
#include "ui/widgets/column_widths.h"
#include "ui/widgets/curve_chart.h"
#include "ui/widgets/state_palette.h"
#include "ui/widgets/time_series_chart.h"

#include <QDateTime>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

namespace sluice::ui {

namespace {

QTableWidget *table(QWidget *parent, const char *name, const QString &spokenName, const QStringList &headers)
{
    auto *widget = new QTableWidget(0, int(headers.size()), parent);
    widget->setObjectName(QLatin1String(name));
    widget->setAccessibleName(spokenName);
    widget->setHorizontalHeaderLabels(headers);
    widget->setEditTriggers(QAbstractItemView::NoEditTriggers);
    widget->setSelectionBehavior(QAbstractItemView::SelectRows);
    widget->setSelectionMode(QAbstractItemView::SingleSelection);
    widget->verticalHeader()->hide();
    widget->horizontalHeader()->setStretchLastSection(true);
    widget->setWordWrap(false);
    return widget;
}

void setRow(QTableWidget *table, int row, const QStringList &cells, Tone tone = Tone::Muted, bool toned = false)
{
    for (int column = 0; column < cells.size(); ++column) {
        auto *item = new QTableWidgetItem(cells.at(column));
        if (toned)
            item->setForeground(toneColor(tone));
        table->setItem(row, column, item);
    }
}

QString shareText(double share)
{
    // Small shares keep their digits: 0.04% is not 0.0%.
    return share > 0 && share < 0.001 ? QStringLiteral("%1%").arg(share * 100.0, 0, 'g', 2) : model::formatShare(share);
}

} // namespace

TuneResults::TuneResults(QWidget *parent)
    : QWidget(parent)
{
    m_preview = table(this, "previewTable", tr("The first lines as read"), {tr("Line"), tr("Read as"), tr("Text")});
    m_candidates = table(this, "candidateTable", tr("What each candidate would have rejected"),
                         {tr("Candidate"), tr("Algorithm"), tr("Limit"), tr("Window"), tr("Burst"), tr("Rejected"),
                          tr("Subjects rejected")});
    connect(m_candidates, &QTableWidget::itemSelectionChanged, this, [this] {
        showCandidate();
        Q_EMIT selectionChanged();
    });

    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("tuneTabs"));
    auto *curvePage = new QWidget(m_tabs);
    auto *curveLayout = new QVBoxLayout(curvePage);
    curveLayout->setContentsMargins(0, 0, 0, 0);
    m_curve = new CurveChart(curvePage);
    m_curve->setObjectName(QStringLiteral("limitCurve"));
    m_curve->setEmptyText(tr("Ask for a suggestion to see how the share rejected falls as the limit grows."));
    m_curveNote = new QLabel(curvePage);
    m_curveNote->setObjectName(QStringLiteral("curveNote"));
    m_curveNote->setWordWrap(true);
    m_curveNote->setTextInteractionFlags(Qt::TextSelectableByMouse);
    curveLayout->addWidget(m_curve, 1);
    curveLayout->addWidget(m_curveNote);
    m_tabs->addTab(curvePage, tr("Limit curve"));
    m_overTime = new TimeSeriesChart(m_tabs);
    m_overTime->setObjectName(QStringLiteral("rejectionsOverTime"));
    m_overTime->addSeries({tr("requests/s"), toneColor(Tone::Allowed)});
    m_overTime->addSeries({tr("rejected/s"), toneColor(Tone::Rejected)});
    m_overTime->setAxisTitles(tr("per second (log time)"));
    m_overTime->setEmptyText(tr("Select a replayed candidate to see its rejections over the log's time."));
    m_tabs->addTab(m_overTime, tr("Rejections over time"));
    m_mostRejected = table(m_tabs, "mostRejectedTable", tr("Most rejected subjects"), {tr("Subject"), tr("Rejected")});
    m_tabs->addTab(m_mostRejected, tr("Most rejected"));

    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->setObjectName(QStringLiteral("tuneResultsSplit"));
    splitter->addWidget(m_preview);
    splitter->addWidget(m_candidates);
    splitter->addWidget(m_tabs);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 2);
    splitter->setStretchFactor(2, 5);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);
    setColumnWidths(m_preview, 2,
                    {{0, QStringLiteral("access.log:12345")}, {1, tr("malformed: the line ends before")}});
    setColumnWidths(m_candidates, 6,
                    {{0, QStringLiteral("suggested-limit")},
                     {1, QStringLiteral("sliding_window")},
                     {2, QStringLiteral("1,000,000")},
                     {3, QStringLiteral("60.0 s")},
                     {4, QStringLiteral("1,000,000")},
                     {5, QStringLiteral("1,234,567 (12.5%)")}});
    clear(tr("Open a log and replay it."));
}

void TuneResults::clear(const QString &why)
{
    m_result = {};
    m_outcomes.clear();
    m_preview->setRowCount(0);
    m_candidates->setRowCount(0);
    m_mostRejected->setRowCount(0);
    m_curve->setPoints({});
    m_curve->setMarks({});
    m_curveNote->setText(why);
    m_overTime->setPoints(0, {});
    m_overTime->setPoints(1, {});
}

void TuneResults::showPreview(const QVector<model::PreviewLine> &lines)
{
    if (lines.size() == m_preview->rowCount())
        return;
    m_preview->setRowCount(int(lines.size()));
    for (int row = 0; row < lines.size(); ++row) {
        const model::PreviewLine &line = lines.at(row);
        QString readAs;
        Tone tone = Tone::Muted;
        if (!line.reason.isEmpty()) {
            readAs = tr("malformed: %1").arg(line.reason);
            tone = Tone::Error;
        } else if (line.skipped) {
            readAs = tr("left out");
        } else {
            readAs = tr("%1 at %2%3")
                         .arg(model::subjectText(line.subject),
                              QDateTime::fromMSecsSinceEpoch(line.ms, Qt::UTC).toString(QStringLiteral("HH:mm:ss.zzz")),
                              line.cost > 1 ? tr(", cost %1").arg(line.cost) : QString());
            tone = Tone::Ok;
        }
        setRow(m_preview, row,
               {QStringLiteral("%1:%2").arg(QFileInfo(line.source).fileName()).arg(line.line), readAs, line.text}, tone,
               tone != Tone::Muted);
    }
}

void TuneResults::showResult(const model::ReplayResult &result, const std::optional<model::SuggestRequest> &suggest)
{
    m_result = result;
    m_suggest = suggest;
    m_outcomes = result.outcomes;
    if (result.suggested)
        m_outcomes.append(*result.suggested);
    showPreview(result.stats.preview);
    m_candidates->setRowCount(int(m_outcomes.size()));
    for (int row = 0; row < m_outcomes.size(); ++row) {
        const model::CandidateOutcome &outcome = m_outcomes.at(row);
        const model::Policy &policy = outcome.policy;
        setRow(m_candidates, row,
               {policy.name, model::algorithmName(policy.algorithm), model::formatCount(policy.limit),
                model::formatWait(policy.windowMs),
                model::algorithmUsesBurst(policy.algorithm) ? model::formatCount(policy.effectiveBurst())
                                                            : QStringLiteral("-"),
                QStringLiteral("%1 (%2)").arg(model::formatCount(qint64(outcome.rejected)),
                                              shareText(outcome.rejectedShare())),
                QStringLiteral("%1 (%2)").arg(model::formatCount(qint64(outcome.subjectsRejected)),
                                              shareText(outcome.subjectsRejectedShare()))},
               Tone::Ok, result.suggested && row == m_outcomes.size() - 1);
    }
    showCurve();
    if (!m_outcomes.isEmpty())
        m_candidates->selectRow(int(m_outcomes.size()) - 1);
}

std::optional<TunedLimit> TuneResults::selected() const
{
    const QModelIndexList rows = m_candidates->selectionModel()->selectedRows();
    if (rows.isEmpty() || rows.first().row() >= m_outcomes.size())
        return std::nullopt;
    const model::CandidateOutcome &outcome = m_outcomes.at(rows.first().row());
    return TunedLimit{outcome.policy, outcome.rejectedShare(), outcome.subjectsRejectedShare(),
                      m_result.suggested && rows.first().row() == m_outcomes.size() - 1};
}

void TuneResults::showCurve()
{
    if (!m_result.suggestion || !m_suggest) {
        m_curve->setPoints({});
        m_curve->setMarks({});
        m_curveNote->setText(tr("No suggestion was asked for."));
        return;
    }
    const model::Suggestion &suggestion = *m_result.suggestion;
    QVector<QPointF> points;
    for (const model::CurvePoint &point : suggestion.curve)
        points.append({qreal(point.limit), point.rejectedShare});
    m_curve->setAxisTitles(
        tr("limit (%1 per %2)")
            .arg(model::algorithmName(m_suggest->family.algorithm), model::formatWait(m_suggest->family.windowMs)),
        m_suggest->ofSubjects ? tr("subjects rejected") : tr("requests rejected"));
    m_curve->setPoints(points);
    QVector<CurveChart::Mark> marks;
    if (suggestion.limit)
        marks.append(
            {qreal(*suggestion.limit), tr("suggested: %1").arg(model::formatCount(*suggestion.limit)), Tone::Ok});
    for (const model::CandidateOutcome &outcome : m_result.outcomes)
        if (outcome.policy.algorithm == m_suggest->family.algorithm
            && outcome.policy.windowMs == m_suggest->family.windowMs)
            marks.append({qreal(outcome.policy.limit),
                          tr("%1 now: %2").arg(outcome.policy.name, model::formatCount(outcome.policy.limit)),
                          Tone::Warning});
    m_curve->setMarks(marks);
    const model::RatePercentiles &p = suggestion.percentiles;
    m_curveNote->setText(
        (!suggestion.limit ? tr("No limit a policy takes meets the target.")
             : *suggestion.limit == 1
             ? tr("Even a limit of 1 rejects at most %1 %2.")
                   .arg(shareText(m_suggest->target), m_suggest->ofSubjects ? tr("of subjects") : tr("of requests"))
             : tr("The smallest limit that rejects at most %1 %2 is %3; %4 rejects more.")
                   .arg(shareText(m_suggest->target), m_suggest->ofSubjects ? tr("of subjects") : tr("of requests"),
                        model::formatCount(*suggestion.limit), model::formatCount(*suggestion.limit - 1)))
        + QLatin1Char(' ')
        + tr("Units per subject in its busiest window: p50 %1, p90 %2, p99 %3, p99.9 %4, max %5.")
              .arg(model::formatCount(p.p50), model::formatCount(p.p90), model::formatCount(p.p99),
                   model::formatCount(p.p999), model::formatCount(p.max)));
}

void TuneResults::showCandidate()
{
    m_mostRejected->setRowCount(0);
    const QModelIndexList rows = m_candidates->selectionModel()->selectedRows();
    const int row = rows.isEmpty() ? -1 : rows.first().row();
    if (row < 0 || row >= m_result.outcomes.size()) {
        m_overTime->setPoints(0, {});
        m_overTime->setPoints(1, {});
        m_overTime->setEmptyText(row >= 0
                                     ? tr("The suggestion was replayed for its share only: replay it as a "
                                          "candidate (Use this limit, then save) to see it over time.")
                                     : tr("Select a replayed candidate to see its rejections over the log's time."));
        return;
    }
    const model::CandidateOutcome &outcome = m_result.outcomes.at(row);
    QVector<QPointF> requests, rejected;
    for (qsizetype bin = 0; bin < outcome.requestsPerBin.size(); ++bin) {
        const qreal at = qreal(outcome.firstMs + bin * outcome.binMs);
        const qreal perSecond = 1000.0 / qreal(outcome.binMs);
        requests.append({at, qreal(outcome.requestsPerBin.at(bin)) * perSecond});
        rejected.append({at, qreal(outcome.rejectedPerBin.at(bin)) * perSecond});
    }
    m_overTime->setTimeWindow(outcome.firstMs, outcome.firstMs + qint64(outcome.requestsPerBin.size()) * outcome.binMs);
    m_overTime->setPoints(0, requests);
    m_overTime->setPoints(1, rejected);
    m_mostRejected->setRowCount(int(outcome.topRejected.size()));
    for (int i = 0; i < outcome.topRejected.size(); ++i)
        setRow(m_mostRejected, i,
               {model::subjectText(outcome.topRejected.at(i).subject),
                model::formatCount(qint64(outcome.topRejected.at(i).rejected))});
}

} // namespace sluice::ui
