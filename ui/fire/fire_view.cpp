// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/fire/fire_view.h"

#include "model/files/own_files.h"
#include "model/format/units.h"
#include "model/policy/lists_store.h"
#include "model/policy/policy_store.h"
#include "ui/connection/write_guard.h"
#include "ui/fire/fire_target_picker.h"
#include "ui/fire/latency_bars.h"
#include "ui/widgets/column_widths.h"
#include "ui/widgets/count_field.h"
#include "ui/widgets/form_choices.h"
#include "ui/widgets/state_palette.h"
#include "ui/widgets/time_series_chart.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

namespace sluice::ui {

namespace {

using model::FireShape;
using model::FireSubjects;

// Charts draw at most this many points a series; longer runs average neighbouring slices.
constexpr int maxChartPoints = 1200;
enum ChartSeries { ExpectedAllowedSeries, ExpectedRejectedSeries, AllowedSeries, RejectedSeries, ChartSeriesCount };

// Latency percentiles of all calls are beside the histogram, so the table keeps to the counts.
enum SummaryColumn {
    TargetColumn,
    SentColumn,
    AllowedColumn,
    DeviationColumn,
    RejectedColumn,
    ErrorsColumn,
    RateColumn,
    ChargedColumn, // reserve then settle, in the rate's place: the units settlements charged, and the model's
    SummaryColumns
};

QString milliseconds(qint64 microseconds)
{
    return QString::number(microseconds / 1000.0, 'f', 3);
}

QDoubleSpinBox *rateBox(QWidget *parent, const char *name, double value, const QString &suffix)
{
    auto *box = new QDoubleSpinBox(parent);
    box->setObjectName(QLatin1String(name));
    box->setRange(0, model::fire_limits::maxRate);
    box->setDecimals(1);
    box->setValue(value);
    box->setSuffix(suffix);
    box->setGroupSeparatorShown(true);
    return box;
}

} // namespace

FireView::FireView(model::ConnectionSession *session, QWidget *parent)
    : QWidget(parent)
{
    QWidget *formScroll = createForm();
    QLayout *results = createResults();
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(12, 12, 12, 12);
    layout->addWidget(formScroll);
    layout->addLayout(results, 1);

    connect(m_start, &QPushButton::clicked, this, &FireView::start);
    connect(m_stop, &QPushButton::clicked, this, &FireView::stop);
    connect(m_export, &QPushButton::clicked, this, &FireView::chooseExportFile);
    connect(m_shape, &QComboBox::currentIndexChanged, this, &FireView::showShapeFields);
    connect(m_subjects, &QComboBox::currentIndexChanged, this, &FireView::showShapeFields);
    connect(m_reserve, &QCheckBox::toggled, this, &FireView::showShapeFields);
    for (FireTargetPicker *picker : {m_first, m_second})
        connect(picker, &FireTargetPicker::changed, this, [this] { showError({}); });
    showShapeFields();
    updateActions();
    if (session)
        followSession(session);
}

// What to fire and how, Fire/Stop/Export, the error line and the latency, in a scrolling column.
QWidget *FireView::createForm()
{
    m_first = new FireTargetPicker(QStringLiteral("fireTarget"), false, this);
    m_second = new FireTargetPicker(QStringLiteral("fireVersus"), true, this);
    m_second->setToolTip(tr("Fire the same calls at a second target at once, to compare them."));

    m_subjects = new QComboBox(this);
    m_subjects->setObjectName(QStringLiteral("fireSubjects"));
    m_subjects->addItem(tr("One subject"), int(FireSubjects::One));
    m_subjects->addItem(tr("N subjects in rotation"), int(FireSubjects::Rotation));
    m_subjects->addItem(tr("A random one of N"), int(FireSubjects::Random));
    m_subjectName = new QLineEdit(QStringLiteral("test-fire"), this);
    m_subjectName->setObjectName(QStringLiteral("fireSubjectName"));
    m_subjectName->setToolTip(tr("The subject, or the stem of numbered subjects (stem-1 \u2026 stem-N)."));
    m_subjectCount = countField(this, QStringLiteral("fireSubjectCount"), 1, model::fire_limits::maxSubjects, 10);

    m_shape = new QComboBox(this);
    m_shape->setObjectName(QStringLiteral("fireShape"));
    m_shape->addItem(tr("Constant rate"), int(FireShape::Constant));
    m_shape->addItem(tr("Bursts"), int(FireShape::Bursts));
    m_shape->addItem(tr("Ramp"), int(FireShape::Ramp));
    m_shape->addItem(tr("Poisson arrivals"), int(FireShape::Poisson));
    m_shape->addItem(tr("As fast as possible"), int(FireShape::Saturate));
    m_rate = rateBox(this, "fireRate", 100, tr(" /s"));
    m_rampTo = rateBox(this, "fireRampTo", 1000, tr(" /s"));
    m_burst = countField(this, QStringLiteral("fireBurst"), 1, model::fire_limits::maxBurstSize, 50, tr(" calls"));
    m_every = countField(this, QStringLiteral("fireEvery"), 1, int(model::fire_limits::maxDurationMs), 1000, tr(" ms"));
    m_pipeline
        = countField(this, QStringLiteral("firePipeline"), 1, model::fire_limits::maxPipeline, 16, tr(" in flight"));
    m_connections = countField(this, QStringLiteral("fireConnections"), 1, model::fire_limits::maxConnections, 1);
    m_cost = countField(this, QStringLiteral("fireCost"), 1, 1'000'000'000, 1);
    m_duration = new QDoubleSpinBox(this);
    m_duration->setObjectName(QStringLiteral("fireDuration"));
    m_duration->setRange(model::fire_limits::minDurationMs / 1000.0, model::fire_limits::maxDurationMs / 1000.0);
    m_duration->setDecimals(1);
    m_duration->setValue(10);
    m_duration->setSuffix(tr(" s"));
    m_realKeys = new QCheckBox(tr("Fire at real keys"), this);
    m_realKeys->setObjectName(QStringLiteral("fireRealKeys"));
    m_realKeys->setToolTip(tr("Spend the subjects' real buckets (as services call them) instead of test-fire keys of "
                              "their own. Asks first on production connections."));

    m_reserve = new QCheckBox(tr("Reserve the cost, then settle"), this);
    m_reserve->setObjectName(QStringLiteral("fireReserve"));
    m_reserve->setToolTip(tr("Each call reserves its cost as an estimate (sluice_reserve) and, admitted, is settled "
                             "later with an actual cost, as an LLM call settles the tokens it used. On real keys, "
                             "for token_bucket, gcra, fixed_window and sliding_window policies."));
    m_actualMin = countField(this, QStringLiteral("fireActualMin"), 0, int(model::fire_limits::maxActualCost), 0);
    m_actualMax = countField(this, QStringLiteral("fireActualMax"), 0, int(model::fire_limits::maxActualCost), 2);
    m_actualMin->setAccessibleName(tr("Least actual cost"));
    m_actualMax->setAccessibleName(tr("Most actual cost"));
    // Two in the form's column: narrower than a billion's digits ask for, which they scroll within.
    for (QSpinBox *box : {m_actualMin, m_actualMax})
        box->setMinimumWidth(box->fontMetrics().horizontalAdvance(QStringLiteral("1,000,000")) + 24);
    m_actualRange = new QWidget(this);
    auto *range = new QHBoxLayout(m_actualRange);
    range->setContentsMargins(0, 0, 0, 0);
    range->addWidget(m_actualMin, 1);
    range->addWidget(new QLabel(tr("to"), m_actualRange));
    range->addWidget(m_actualMax, 1);
    m_actualRange->setToolTip(tr("Each settlement's actual cost, drawn evenly from this range."));
    m_settleAfter = countField(this, QStringLiteral("fireSettleAfter"), 0, int(model::fire_limits::maxSettleAfterMs),
                               200, tr(" ms"));
    m_settleAfter->setToolTip(tr("How long after its answer a reservation is settled (the call's duration)."));

    m_form = new QFormLayout;
    m_form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_form->addRow(tr("Target"), m_first);
    m_form->addRow(tr("Beside"), m_second);
    m_form->addRow(tr("Subjects"), m_subjects);
    m_form->addRow(tr("Subject"), m_subjectName);
    m_form->addRow(tr("How many"), m_subjectCount);
    m_form->addRow(tr("Shape"), m_shape);
    m_form->addRow(tr("Rate"), m_rate);
    m_form->addRow(tr("Ramp to"), m_rampTo);
    m_form->addRow(tr("Burst"), m_burst);
    m_form->addRow(tr("Every"), m_every);
    m_form->addRow(tr("Pipeline"), m_pipeline);
    m_form->addRow(tr("Connections"), m_connections);
    m_form->addRow(tr("Cost"), m_cost);
    m_form->addRow(tr("Duration"), m_duration);
    m_form->addRow(QString(), m_realKeys);
    m_form->addRow(QString(), m_reserve);
    m_form->addRow(tr("Actual"), m_actualRange);
    m_form->addRow(tr("Settle after"), m_settleAfter);

    m_start = new QPushButton(tr("Fire"), this);
    m_start->setObjectName(QStringLiteral("fireStart"));
    m_start->setDefault(true);
    m_stop = new QPushButton(tr("Stop"), this);
    m_stop->setObjectName(QStringLiteral("fireStop"));
    m_export = new QPushButton(tr("Export CSV\u2026"), this);
    m_export->setObjectName(QStringLiteral("fireExport"));
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_start);
    buttons->addWidget(m_stop);
    buttons->addStretch(1);
    buttons->addWidget(m_export);
    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("fireError"));
    m_error->setStyleSheet(textStyle(Tone::Error));
    m_error->setWordWrap(true);
    m_error->hide();

    m_latencyText = new QLabel(this);
    m_latencyText->setObjectName(QStringLiteral("fireLatencyText"));
    m_latency = new LatencyBars(this);
    m_latency->setObjectName(QStringLiteral("fireLatency"));

    auto *formPanel = new QWidget(this);
    auto *formColumn = new QVBoxLayout(formPanel);
    formColumn->setContentsMargins(0, 0, 8, 0);
    formColumn->addLayout(m_form);
    formColumn->addLayout(buttons);
    formColumn->addWidget(m_error);
    // Latency under the form, so the charts keep the height of the other column.
    formColumn->addSpacing(8);
    formColumn->addWidget(new QLabel(tr("<b>Latency</b> (sending to answer)"), this));
    formColumn->addWidget(m_latencyText);
    formColumn->addWidget(m_latency);
    formColumn->addStretch(1);
    auto *formScroll = new QScrollArea(this);
    formScroll->setWidget(formPanel);
    formScroll->setWidgetResizable(true);
    formScroll->setFrameShape(QFrame::NoFrame);
    formScroll->setFixedWidth(330);
    formScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    return formScroll;
}

// The status line, each target's chart beside its model, and the summary table.
QLayout *FireView::createResults()
{
    m_status = new QLabel(
        tr("Choose a target and press Fire. Test-fire keys are its own: no real subject's tokens are spent."), this);
    m_status->setObjectName(QStringLiteral("fireStatus"));
    m_status->setWordWrap(true);
    auto *results = new QVBoxLayout;
    results->addWidget(m_status);
    for (int i = 0; i < 2; ++i) {
        m_chartTitles[i] = new QLabel(this);
        m_chartTitles[i]->setStyleSheet(QStringLiteral("font-weight:600;"));
        m_charts[i] = new TimeSeriesChart(this);
        m_charts[i]->setObjectName(QStringLiteral("fireChart%1").arg(i));
        // The model's curves first, as wide pale bands: the answers are drawn inside them when they agree.
        m_charts[i]->addSeries(
            {tr("expected allowed"), toneColor(Tone::Allowed), TimeSeriesChart::Axis::Left, true, false, 7});
        m_charts[i]->addSeries(
            {tr("expected rejected"), toneColor(Tone::Rejected), TimeSeriesChart::Axis::Left, true, false, 7});
        m_charts[i]->addSeries({tr("allowed"), toneColor(Tone::Allowed)});
        m_charts[i]->addSeries({tr("rejected"), toneColor(Tone::Rejected)});
        results->addWidget(m_chartTitles[i]);
        results->addWidget(m_charts[i], 1);
    }
    m_chartTitles[1]->hide();
    m_charts[1]->hide();
    m_summary = new QTableWidget(0, SummaryColumns, this);
    m_summary->setObjectName(QStringLiteral("fireSummary"));
    m_summary->setAccessibleName(tr("Test fire results per target"));
    m_summary->setHorizontalHeaderLabels({tr("Target"), tr("Sent"), tr("Allowed (model)"), tr("Deviation"),
                                          tr("Rejected"), tr("Errors"), tr("Rate/s"), tr("Charged (model)")});
    m_summary->verticalHeader()->hide();
    m_summary->setWordWrap(false);
    m_summary->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_summary->setSelectionMode(QAbstractItemView::NoSelection);
    m_summary->setFixedHeight(m_summary->horizontalHeader()->sizeHint().height()
                              + 2 * m_summary->verticalHeader()->defaultSectionSize() + 6);
    setColumnWidths(m_summary, TargetColumn,
                    {{SentColumn, QStringLiteral("100,000")},
                     {AllowedColumn, QStringLiteral("10,000 (10,000)")},
                     {DeviationColumn, QStringLiteral("+10.00%")},
                     {RejectedColumn, QStringLiteral("100,000")},
                     {ErrorsColumn, QStringLiteral("100")},
                     {RateColumn, QStringLiteral("100,000.0")},
                     {ChargedColumn, QStringLiteral("100,000 (100,000)")}});
    m_summary->setColumnHidden(ChargedColumn, true);
    results->addWidget(m_summary);
    return results;
}

void FireView::followSession(model::ConnectionSession *session)
{
    m_session = session;
    // The policies are read when the tab is shown, and again once the connection is up: a tab in front
    // when the session starts asks before the connection can answer.
    connect(session, &model::ConnectionSession::ready, this, [this] {
        if (isVisible())
            loadPolicies();
    });
    if (isVisible())
        loadPolicies();
    updateActions();
}

FireView::~FireView()
{
    saveChoices();
}

void FireView::keepChoicesIn(QSettings *settings, const QString &profile)
{
    m_choicesSettings = settings;
    m_choicesKey = model::ProfileSettings::keptKey(model::ProfileSettings::Kept::FireChoices, profile);
    QVariantMap kept = settings->value(m_choicesKey).toMap();
    // Real keys spend services' buckets: chosen anew each time, never brought back.
    kept.remove(m_realKeys->objectName());
    restoreFormChoices(this, kept);
}

void FireView::saveChoices() const
{
    if (!m_choicesSettings)
        return;
    m_choicesSettings->setValue(m_choicesKey, formChoices(this));
    m_choicesSettings->sync();
}

void FireView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    loadPolicies(); // policies may have changed on the Policies tab
}

void FireView::loadPolicies()
{
    if (!m_session || !m_session->isReady()) // the session's ready() loads them
        return;
    const model::PolicyStore store = m_session->policyStore();
    store.list(this, [this](const model::PolicyStore::ListResult &result) {
        if (result.failure) {
            showError(tr("The stored policies could not be read: %1").arg(result.failure->message));
            m_policiesUnreadable = true;
            return;
        }
        if (m_policiesUnreadable) { // read now: that error no longer holds
            m_policiesUnreadable = false;
            showError({});
        }
        if (!m_session)
            return;
        // The namespace's lists too: on real keys the library applies them, and so must the model.
        m_session->listsStore().read(this,
                                     [this, policies = result.policies](const model::ListsStore::ReadResult &lists) {
            if (lists.failure) {
                showError(lists.failure->message);
                return;
            }
            m_first->setPolicies(policies, lists.lists.entries);
            m_second->setPolicies(policies, lists.lists.entries);
            m_policiesLoaded = true;
            updateActions();
        });
    });
}

void FireView::showShapeFields()
{
    const auto shape = FireShape(m_shape->currentData().toInt());
    const bool numbered = FireSubjects(m_subjects->currentData().toInt()) != FireSubjects::One;
    m_form->setRowVisible(m_subjectCount, numbered);
    m_form->setRowVisible(m_rate,
                          shape == FireShape::Constant || shape == FireShape::Poisson || shape == FireShape::Ramp);
    m_form->setRowVisible(m_rampTo, shape == FireShape::Ramp);
    m_form->setRowVisible(m_burst, shape == FireShape::Bursts);
    m_form->setRowVisible(m_every, shape == FireShape::Bursts);
    m_form->setRowVisible(m_pipeline, shape == FireShape::Saturate);
    if (auto *label = qobject_cast<QLabel *>(m_form->labelForField(m_rate)))
        label->setText(shape == FireShape::Ramp ? tr("Ramp from") : tr("Rate"));
    const bool reserving = m_reserve->isChecked();
    m_form->setRowVisible(m_actualRange, reserving);
    m_form->setRowVisible(m_settleAfter, reserving);
    if (auto *label = qobject_cast<QLabel *>(m_form->labelForField(m_cost)))
        label->setText(reserving ? tr("Estimate") : tr("Cost"));
}

model::FirePlan FireView::plan() const
{
    model::FirePlan plan;
    for (const FireTargetPicker *picker : {m_first, m_second})
        if (const auto target = picker->target())
            plan.targets << *target;
    plan.subjects = FireSubjects(m_subjects->currentData().toInt());
    plan.subject = m_subjectName->text().toUtf8();
    plan.subjectCount = m_subjectCount->value();
    plan.shape = FireShape(m_shape->currentData().toInt());
    plan.rate = m_rate->value();
    plan.rampToRate = m_rampTo->value();
    plan.burstSize = m_burst->value();
    plan.burstEveryMs = m_every->value();
    plan.pipeline = m_pipeline->value();
    plan.connections = m_connections->value();
    plan.cost = m_cost->value();
    plan.durationMs = qRound64(m_duration->value() * 1000);
    plan.realKeys = m_realKeys->isChecked();
    plan.reserve = m_reserve->isChecked();
    plan.actualMin = m_actualMin->value();
    plan.actualMax = m_actualMax->value();
    plan.settleAfterMs = m_settleAfter->value();
    return plan;
}

bool FireView::start()
{
    if (!m_session || isRunning())
        return false;
    const model::FirePlan plan = this->plan();
    const QStringList problems = plan.problems();
    if (!problems.isEmpty()) {
        showError(problems.join(QLatin1Char('\n')));
        return false;
    }
    showError({});
    saveChoices();
    if (plan.realKeys) {
        guardWrite(this, m_session->profile(), tr("fire test traffic at real subjects' buckets"),
                   [this, plan] { startEngine(plan); });
        return true;
    }
    startEngine(plan);
    return isRunning();
}

void FireView::startEngine(const model::FirePlan &plan)
{
    if (!m_session || isRunning())
        return;
    delete m_engine;
    m_engine = new model::FireEngine(this);
    connect(m_engine, &model::FireEngine::updated, this, &FireView::showProgress);
    connect(m_engine, &model::FireEngine::finished, this, &FireView::showFinished);
    if (const auto refused = m_session->startFire(m_engine, plan)) {
        showError(refused->message);
        updateActions();
        return;
    }
    m_runStartedMs = QDateTime::currentMSecsSinceEpoch();
    const model::FirePlan &running = m_engine->report().plan();
    for (int i = 0; i < 2; ++i) {
        const bool used = i < running.targets.size();
        m_chartTitles[i]->setVisible(used);
        m_charts[i]->setVisible(used);
        if (!used)
            continue;
        m_chartTitles[i]->setText(tr("%1 \u00b7 calls per 100 ms").arg(running.targets.at(i).label()));
        m_charts[i]->resetZoom();
        m_charts[i]->setTimeWindow(m_runStartedMs, m_runStartedMs + running.durationMs);
        for (int series = 0; series < ChartSeriesCount; ++series)
            m_charts[i]->setPoints(series, {});
    }
    m_status->setText(tr("Connecting\u2026"));
    updateActions();
}

void FireView::stop()
{
    if (isRunning())
        m_engine->stop();
}

void FireView::showProgress()
{
    const model::FireReport &report = m_engine->report();
    const model::FirePlan &plan = report.plan();
    for (int target = 0; target < report.targetCount() && target < 2; ++target) {
        const QVector<model::FireBin> &bins = report.bins(target);
        const int group = std::max<int>(1, int((bins.size() + maxChartPoints - 1) / maxChartPoints));
        QVector<QPointF> series[ChartSeriesCount];
        for (int first = 0; first < bins.size(); first += group) {
            model::FireBin sum;
            const int last = std::min<int>(int(bins.size()), first + group);
            for (int i = first; i < last; ++i)
                sum += bins.at(i);
            const double x = m_runStartedMs + first * double(model::fireBinMs);
            const double n = last - first; // averaged per 100 ms slice
            series[ExpectedAllowedSeries] << QPointF(x, sum.expectedAllowed / n);
            series[ExpectedRejectedSeries] << QPointF(x, sum.expectedRejected / n);
            series[AllowedSeries] << QPointF(x, sum.allowed / n);
            series[RejectedSeries] << QPointF(x, sum.rejected / n);
        }
        for (int s = 0; s < ChartSeriesCount; ++s)
            m_charts[target]->setPoints(s, series[s]);
    }

    const model::LatencyHistogram latency = report.allLatency();
    m_latency->setHistogram(latency);
    m_latencyText->setText(tr("p50 %1 ms \u00b7 p95 %2 ms\np99 %3 ms \u00b7 max %4 ms")
                               .arg(milliseconds(latency.percentile(0.5)), milliseconds(latency.percentile(0.95)),
                                    milliseconds(latency.percentile(0.99)), milliseconds(latency.max())));

    const QLocale locale;
    // Reserving, the units charged take the rate's place (the status line gives the rate).
    m_summary->setColumnHidden(ChargedColumn, !plan.reserve);
    m_summary->setColumnHidden(RateColumn, plan.reserve);
    m_summary->setRowCount(report.targetCount());
    qint64 sent = 0;
    for (int target = 0; target < report.targetCount(); ++target) {
        const model::FireSummary s = report.summary(target);
        sent = std::max(sent, s.sent);
        const QStringList cells{
            s.target,
            locale.toString(s.sent),
            QStringLiteral("%1 (%2)").arg(locale.toString(s.allowed), locale.toString(s.expectedAllowed)),
            QStringLiteral("%1%2%")
                .arg(s.deviationPercent >= 0 ? QStringLiteral("+") : QString())
                .arg(s.deviationPercent, 0, 'f', 2),
            locale.toString(s.rejected),
            locale.toString(s.errors),
            model::formatDecimal(s.achievedRate),
            QStringLiteral("%1 (%2)").arg(locale.toString(s.charged), locale.toString(s.expectedCharged))};
        for (int column = 0; column < SummaryColumns; ++column) {
            auto *item = new QTableWidgetItem(column == TargetColumn ? report.plan().targets.at(target).policy.name
                                                                     : cells.at(column));
            if (column != TargetColumn)
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            item->setToolTip(s.firstError.isEmpty() ? s.target : tr("%1\nFirst error: %2").arg(s.target, s.firstError));
            m_summary->setItem(target, column, item);
        }
    }
    if (report.connected() && !report.finished())
        m_status->setText(tr("Firing: %1 of %2 s, %3 calls sent, %4 in flight (%5).")
                              .arg(report.elapsedMs() / 1000.0, 0, 'f', 1)
                              .arg(plan.durationMs / 1000.0, 0, 'f', 1)
                              .arg(locale.toString(sent), locale.toString(report.inFlight()), plan.describe()));
}

void FireView::showFinished()
{
    showProgress();
    const model::FireReport &report = m_engine->report();
    const QLocale locale;
    if (const auto failure = report.failure()) {
        showError(failure->message);
        m_status->setText(tr("The run stopped."));
    } else {
        QStringList lines;
        for (int target = 0; target < report.targetCount(); ++target) {
            const model::FireSummary s = report.summary(target);
            lines << tr("%1: %2 of %3 calls allowed, the model expected %4 (%5%6%); %7/s achieved.")
                         .arg(report.plan().targets.at(target).policy.name, locale.toString(s.allowed),
                              locale.toString(s.sent), locale.toString(s.expectedAllowed),
                              s.deviationPercent >= 0 ? QStringLiteral("+") : QString())
                         .arg(s.deviationPercent, 0, 'f', 2)
                         .arg(model::formatDecimal(s.achievedRate));
            if (report.plan().reserve)
                lines << tr("%1 settled (%2 refused, their estimates standing): %3 units charged, the model %4; %5 "
                            "not charged (past max_debt), the model %6.")
                             .arg(locale.toString(s.settled), locale.toString(s.settleRefused),
                                  locale.toString(s.charged), locale.toString(s.expectedCharged),
                                  locale.toString(s.uncharged), locale.toString(s.expectedUncharged));
            if (s.errors > 0)
                lines.last() += tr(" %1 calls failed: %2").arg(locale.toString(s.errors), s.firstError);
        }
        const QByteArray keys = m_engine->keyPrefix();
        lines << (keys.isEmpty() ? tr("Real keys were used.")
                                 : tr("Test-fire keys: %1* (they expire when idle).").arg(QString::fromUtf8(keys)));
        m_status->setText(tr("Done. ") + lines.join(QLatin1Char('\n')));
    }
    updateActions();
}

void FireView::showError(const QString &error)
{
    m_error->setText(error);
    m_error->setVisible(!error.isEmpty());
}

void FireView::updateActions()
{
    const bool running = isRunning();
    const bool readOnly = m_session && m_session->profile().readOnly;
    m_start->setEnabled(m_session && !running && !readOnly);
    m_start->setToolTip(readOnly ? tr("This connection is read-only, and test-fire writes buckets.") : QString());
    m_stop->setEnabled(running);
    m_export->setEnabled(m_engine && !running && m_engine->report().targetCount() > 0);
}

QString FireView::statusText() const
{
    return m_status->text();
}

QString FireView::errorText() const
{
    return m_error->isVisible() ? m_error->text() : QString();
}

bool FireView::exportCsv(const QString &path, QString *error) const
{
    if (!m_engine) {
        *error = tr("Nothing has been fired yet.");
        return false;
    }
    if (const auto failure = model::writeWholeFile(path, m_engine->report().toCsv())) {
        *error = failure->message;
        return false;
    }
    return true;
}

void FireView::chooseExportFile()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Save the run"), QStringLiteral("test-fire.csv"),
                                                      tr("CSV files (*.csv)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!exportCsv(path, &error))
        QMessageBox::warning(this, tr("Export"), error);
}

} // namespace sluice::ui
