// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/monitor/policy_live_view.h"

#include "model/files/own_files.h"
#include "model/format/subject_text.h"
#include "model/format/terminal_text.h"
#include "model/format/units.h"
#include "model/monitor/policy_rate_sampler.h"
#include "model/monitor/rejected_tally.h"
#include "model/policy/policy_summary.h"
#include "ui/widgets/banner.h"
#include "ui/widgets/column_widths.h"
#include "ui/widgets/long_names.h"
#include "ui/widgets/policy_choices.h"
#include "ui/widgets/state_palette.h"
#include "ui/widgets/time_range_dialog.h"
#include "ui/widgets/time_series_chart.h"

#include <QComboBox>
#include <QDateTime>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

namespace sluice::ui {

namespace {

constexpr qint64 minute = 60 * 1000;
constexpr qint64 hour = 60 * minute;

void addChoices(QComboBox *box, const QVector<std::pair<QString, qint64>> &choices, qint64 selected)
{
    for (const auto &[label, value] : choices)
        box->addItem(label, value);
    box->setCurrentIndex(std::max(0, box->findData(selected)));
}

void selectData(QComboBox *box, qint64 value)
{
    const QSignalBlocker quiet(box);
    const int index = box->findData(value);
    if (index >= 0)
        box->setCurrentIndex(index);
}

} // namespace

PolicyLiveView::PolicyLiveView(model::ConnectionSession *session, QWidget *parent)
    : QWidget(parent)
{
    QLayout *controls = createControls();
    m_state = new QLabel(this);
    m_state->setObjectName(QStringLiteral("liveState"));
    m_state->setWordWrap(true);

    m_shadowBadge = new Banner(Tone::Info, QStringLiteral("liveShadowBadge"), this);
    m_shadowBadge->setText(tr("<b>Shadow \u2013 would reject</b>: this policy lets every call through; its "
                              "rejected/s and most rejected subjects are the calls it would reject."));
    m_shadowBadge->hide();

    m_definition = new QLabel(this);
    m_definition->setObjectName(QStringLiteral("liveDefinition"));
    m_definition->setWordWrap(true);
    m_definition->setTextFormat(Qt::PlainText);

    QWidget *chartBox = createChartBox();
    QWidget *topBox = createTopList();
    auto *split = new QSplitter(Qt::Horizontal, this);
    split->setObjectName(QStringLiteral("liveSplit"));
    split->addWidget(chartBox);
    split->addWidget(topBox);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(12, 12, 12, 12);
    layout->addLayout(controls);
    layout->addWidget(m_definition);
    layout->addWidget(m_state);
    layout->addWidget(m_shadowBadge);
    layout->addWidget(split, 1);

    connect(m_policy, &QComboBox::currentIndexChanged, this, [this] {
        if (m_poller)
            m_poller->setPolicy(policy());
        m_chart->resetZoom();
        redraw();
        showMarks();
        showShadowBadge();
        showDefinition();
    });
    connect(m_interval, &QComboBox::currentIndexChanged, this, &PolicyLiveView::applyInterval);
    connect(m_retention, &QComboBox::currentIndexChanged, this, &PolicyLiveView::applyRetention);
    connect(m_span, &QComboBox::currentIndexChanged, this, [this] {
        if (m_span->currentData().toLongLong() == chosenRange) {
            pickRange();
            return;
        }
        m_spanIndex = m_span->currentIndex();
        m_range.reset();
        m_chart->resetZoom();
        showRangeNote();
        redraw();
    });
    // Picking the chosen range again, while it is in force, picks another.
    connect(m_span, &QComboBox::activated, this, [this](int index) {
        if (index == m_spanIndex && m_span->itemData(index).toLongLong() == chosenRange)
            pickRange();
    });
    connect(m_pause, &QPushButton::toggled, this, &PolicyLiveView::setPaused);
    connect(m_resetZoom, &QPushButton::clicked, m_chart, &TimeSeriesChart::resetZoom);
    connect(m_chart, &TimeSeriesChart::zoomChanged, m_resetZoom, &QPushButton::setEnabled);
    connect(m_top, &QTableWidget::itemSelectionChanged, this,
            [this] { m_watch->setEnabled(!m_top->selectedItems().isEmpty()); });
    connect(m_watch, &QPushButton::clicked, this, [this] {
        const QList<QTableWidgetItem *> selected = m_top->selectedItems();
        if (!selected.isEmpty())
            Q_EMIT watchRequested(policy(), m_top->item(selected.first()->row(), 0)->data(Qt::UserRole).toByteArray());
    });
    showState(tr("Not connected."));
    if (session)
        followSession(session);
}

// The policy, the sampling interval, how long samples are kept, the span shown, Pause.
QLayout *PolicyLiveView::createControls()
{
    m_policy = new QComboBox(this);
    m_policy->setObjectName(QStringLiteral("livePolicy"));
    m_policy->setAccessibleName(tr("Policy shown"));
    m_policy->setMinimumContentsLength(16);
    elideInTheMiddle(m_policy);
    m_interval = new QComboBox(this);
    m_interval->setObjectName(QStringLiteral("liveInterval"));
    m_interval->setAccessibleName(tr("Sampling interval"));
    m_interval->setToolTip(tr("How often every policy is sampled (the overview too)."));
    addChoices(m_interval,
               {{tr("250 ms"), 250},
                {tr("500 ms"), 500},
                {tr("1 s"), 1000},
                {tr("2 s"), 2000},
                {tr("5 s"), 5000},
                {tr("10 s"), 10000}},
               1000);
    m_retention = new QComboBox(this);
    m_retention->setObjectName(QStringLiteral("liveRetention"));
    m_retention->setAccessibleName(tr("History kept"));
    m_retention->setToolTip(tr("How long samples are kept (in bounded ring buffers; past an hour of samples, "
                               "older ones are kept as sums over longer steps)."));
    addChoices(m_retention,
               {{tr("5 minutes"), 5 * minute},
                {tr("15 minutes"), 15 * minute},
                {tr("1 hour"), hour},
                {tr("6 hours"), 6 * hour},
                {tr("24 hours"), 24 * hour}},
               hour);
    m_span = new QComboBox(this);
    m_span->setObjectName(QStringLiteral("liveSpan"));
    m_span->setAccessibleName(tr("Time span shown"));
    addChoices(m_span,
               {{tr("last minute"), minute},
                {tr("last 5 minutes"), 5 * minute},
                {tr("last 15 minutes"), 15 * minute},
                {tr("last hour"), hour},
                {tr("last 24 hours"), 24 * hour},
                {tr("a chosen range\u2026"), chosenRange}},
               5 * minute);
    m_spanIndex = m_span->currentIndex();
    m_pause = new QPushButton(tr("Pause"), this);
    m_pause->setObjectName(QStringLiteral("livePause"));
    m_pause->setCheckable(true);
    auto *controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Policy:"), this));
    controls->addWidget(m_policy);
    controls->addSpacing(12);
    controls->addWidget(new QLabel(tr("Sample every"), this));
    controls->addWidget(m_interval);
    controls->addWidget(new QLabel(tr("keep"), this));
    controls->addWidget(m_retention);
    controls->addWidget(new QLabel(tr("show"), this));
    controls->addWidget(m_span);
    controls->addStretch(1);
    controls->addWidget(m_pause);
    return controls;
}

// The chart with its zoom and export buttons.
QWidget *PolicyLiveView::createChartBox()
{
    m_resetZoom = new QPushButton(tr("Reset zoom"), this);
    m_resetZoom->setObjectName(QStringLiteral("liveResetZoom"));
    m_resetZoom->setEnabled(false);
    auto *png = new QPushButton(tr("Save PNG\u2026"), this);
    png->setObjectName(QStringLiteral("liveExportPng"));
    png->setToolTip(tr("Save the chart as an image."));
    auto *csv = new QPushButton(tr("Save CSV\u2026"), this);
    csv->setObjectName(QStringLiteral("liveExportCsv"));
    csv->setToolTip(tr("Save the samples shown as CSV."));

    m_chart = new TimeSeriesChart(this);
    m_chart->addSeries({tr("allowed/s"), toneColor(Tone::Allowed)});
    m_chart->addSeries({tr("rejected/s"), toneColor(Tone::Rejected)});
    // A shadow policy's would-rejects passed: a pale line of their own, never the rejected colour.
    m_chart->addSeries({tr("would reject/s"), toneColor(Tone::Muted), TimeSeriesChart::Axis::Left, true});
    // Another policy beside it: the same two lines, faint, named after it.
    m_chart->addSeries({QString(), toneColor(Tone::Allowed), TimeSeriesChart::Axis::Left, true});
    m_chart->addSeries({QString(), toneColor(Tone::Rejected), TimeSeriesChart::Axis::Left, true});
    m_chart->setAxisTitles(tr("decisions per second"));
    m_chart->setEmptyText(tr("No samples of this policy in this span yet: the first comes within one sampling "
                             "interval of its first decision."));
    m_chart->setMinimumHeight(260);

    m_compare = policyDropDown(this, QStringLiteral("liveCompare"), tr("Policy drawn beside"), tr("no other policy"));
    connect(m_compare, &QComboBox::currentIndexChanged, this, &PolicyLiveView::redraw);
    auto *chartActions = new QHBoxLayout;
    chartActions->addWidget(new QLabel(tr("Beside:"), this));
    chartActions->addWidget(m_compare);
    m_rangeNote = new QLabel(this);
    m_rangeNote->setObjectName(QStringLiteral("liveRangeNote"));
    m_rangeNote->hide();
    chartActions->addWidget(m_rangeNote);
    chartActions->addStretch(1);
    chartActions->addWidget(m_resetZoom);
    chartActions->addWidget(png);
    chartActions->addWidget(csv);
    auto *chartBox = new QWidget(this);
    auto *chartLayout = new QVBoxLayout(chartBox);
    chartLayout->setContentsMargins(0, 0, 0, 0);
    chartLayout->addWidget(m_chart, 1);
    chartLayout->addLayout(chartActions);
    connect(png, &QPushButton::clicked, this, [this] { chooseExportFile(true); });
    connect(csv, &QPushButton::clicked, this, [this] { chooseExportFile(false); });
    return chartBox;
}

// The policy's most rejected subjects, over a window the operator picks, and Watch subject.
QWidget *PolicyLiveView::createTopList()
{
    auto *topBox = new QWidget(this);
    auto *topTitle = new QLabel(tr("<b>Most rejected subjects</b>"), topBox);
    m_topWindow = new QComboBox(topBox);
    m_topWindow->setObjectName(QStringLiteral("topWindow"));
    m_topWindow->setAccessibleName(tr("Most rejected over"));
    addChoices(m_topWindow,
               {{tr("last 10 seconds"), 10 * 1000},
                {tr("last minute"), minute},
                {tr("last 5 minutes"), 5 * minute},
                {tr("last hour"), hour}},
               0);
    connect(m_topWindow, &QComboBox::currentIndexChanged, this, &PolicyLiveView::showTopList);
    m_topNote = new QLabel(topBox);
    m_topNote->setObjectName(QStringLiteral("topNote"));
    m_topNote->setWordWrap(true);
    m_topNote->setStyleSheet(textStyle(Tone::Muted));
    m_top = new QTableWidget(0, 3, topBox);
    m_top->setObjectName(QStringLiteral("topRejectedTable"));
    elideInTheMiddle(m_top);
    m_top->setAccessibleName(tr("Most rejected subjects"));
    m_top->setHorizontalHeaderLabels({tr("Subject"), tr("Rejected"), tr("Primary")});
    m_top->verticalHeader()->hide();
    m_top->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_top->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_top->setSelectionMode(QAbstractItemView::SingleSelection);
    setColumnWidths(m_top, 0, {{1, QStringLiteral("99,999 (\u226499 over)")}, {2, QStringLiteral("127.0.0.1:30001")}});
    m_watch = new QPushButton(tr("Watch subject"), topBox);
    m_watch->setObjectName(QStringLiteral("watchTopSubject"));
    m_watch->setEnabled(false);
    auto *topLayout = new QVBoxLayout(topBox);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addWidget(topTitle);
    topLayout->addWidget(m_topWindow);
    topLayout->addWidget(m_topNote);
    topLayout->addWidget(m_top, 1);
    topLayout->addWidget(m_watch, 0, Qt::AlignRight);

    topBox->setMinimumWidth(260);
    return topBox;
}

void PolicyLiveView::followSession(model::ConnectionSession *session)
{
    m_session = session;
    m_poller = session->pollTopRejected(2000, this);
    connect(m_poller, &model::TopRejectedPoller::updated, this, &PolicyLiveView::showTop);
    m_poller->setPolicy(policy());
    m_audit = session->followAudit(5000, this);
    connect(m_audit, &model::AuditFollower::newestChanged, this, &PolicyLiveView::readMarks);
    if (isVisible()) {
        m_poller->start();
        m_audit->start();
    }
    selectData(m_interval, session->rates()->intervalMs());
    selectData(m_retention, session->rates()->retentionMs());
    connect(session->rates(), &model::PolicyRateSampler::sampled, this, &PolicyLiveView::takeSample);
    connect(session->rates(), &model::PolicyRateSampler::restored, this, &PolicyLiveView::takeRestored);
    showState(tr("Waiting for the first sample\u2026"));
    connect(session->libraryWatch(), &model::LibraryWatch::checked, this,
            [this](const model::LibraryWatch::Report &report) {
        m_published.clear();
        for (const model::Policy &published : report.status.published.policies)
            m_published.insert(published.name, published);
        m_publishedVersion = report.status.published.version;
        showDefinition();
        const QSet<QString> shadow = model::shadowPolicyNames(report.status.published.policies);
        if (shadow == m_shadowPolicies)
            return;
        m_shadowPolicies = shadow;
        markShadowPolicies(m_policy, shadow);
        markShadowPolicies(m_compare, shadow);
        showShadowBadge();
        if (isVisible())
            redraw(); // its rejections move to the would-reject line, or back
    });
}

// What the policy shown is, as the running library has it: the numbers on the chart mean nothing
// without the limit they are held to.
void PolicyLiveView::showDefinition()
{
    const auto found = m_published.constFind(policy());
    if (found == m_published.constEnd()) {
        m_definition->setText(policy().isEmpty() ? QString()
                                                 : tr("\u201c%1\u201d is not in the published library.").arg(policy()));
        m_definition->setToolTip(QString());
        return;
    }
    const model::Policy &shown = *found;
    m_definition->setText(
        tr("%1 \u00b7 %2 \u00b7 %3 \u00b7 published version %4")
            .arg(model::algorithmName(shown.algorithm), model::limitInWords(shown),
                 shown.shadow ? tr("shadow \u2013 would reject, lets every call through") : tr("enforcing"))
            .arg(m_publishedVersion));
    m_definition->setToolTip(model::describePolicy(shown));
}

QString PolicyLiveView::definitionText() const
{
    return m_definition->text();
}

void PolicyLiveView::showShadowBadge()
{
    const bool shadow = m_shadowPolicies.contains(policy());
    m_shadowBadge->setVisible(shadow);
    // A shadow policy rejects nobody: what its list counts are the calls it would have rejected.
    m_top->horizontalHeaderItem(1)->setText(shadow ? tr("Would reject") : tr("Rejected"));
}

QString PolicyLiveView::shadowBadgeText() const
{
    return m_shadowBadge->isHidden() ? QString() : m_shadowBadge->text();
}

void PolicyLiveView::showPolicy(const QString &policy)
{
    addPolicies({policy});
    m_policy->setCurrentIndex(m_policy->findData(policy));
}

QString PolicyLiveView::policy() const
{
    return m_policy->currentData().toString();
}

QString PolicyLiveView::stateText() const
{
    return m_state->isHidden() ? QString() : m_state->text();
}

void PolicyLiveView::setPaused(bool paused)
{
    m_paused = paused;
    {
        const QSignalBlocker quiet(m_pause);
        m_pause->setChecked(paused);
    }
    m_pause->setText(paused ? tr("Resume") : tr("Pause"));
    if (!paused) {
        showState({});
        redraw();
    } else
        showState(tr("Paused at %1; sampling goes on.").arg(model::formatClock(m_lastEndMs)));
}

void PolicyLiveView::showState(const QString &text)
{
    m_state->setText(text);
    m_state->setVisible(!text.isEmpty());
}

void PolicyLiveView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (m_poller)
        m_poller->start();
    if (m_audit)
        m_audit->start();
    redraw();
}

void PolicyLiveView::hideEvent(QHideEvent *event)
{
    QWidget::hideEvent(event);
    if (m_poller)
        m_poller->stop(); // the top list costs Redis calls only while someone looks at it
    if (m_audit)
        m_audit->stop();
}

QString PolicyLiveView::comparedPolicy() const
{
    const QString beside = chosenPolicy(m_compare);
    return beside == policy() ? QString() : beside;
}

void PolicyLiveView::addPolicies(const QStringList &policies)
{
    addPoliciesInNameOrder(m_policy, policies, m_shadowPolicies);
    addPoliciesInNameOrder(m_compare, policies, m_shadowPolicies, 1); // after "no other policy"
}

// The chart's marks: the last 200 entries of the audit log, read again when it has a new one.
void PolicyLiveView::readMarks()
{
    if (!m_session)
        return;
    m_session->auditLog().read(QString(), 200, this, [this](const model::AuditLog::ReadResult &read) {
        if (read.failure)
            return; // the marks already drawn stay; the next new entry reads again
        m_auditEntries = read.entries;
        showMarks();
    });
}

// What changed how the shown policy decides: its own edits and bucket resets, and every publish and save of
// the namespace's lists. Who did it and what, as the History tab words it.
void PolicyLiveView::showMarks()
{
    QVector<TimeSeriesChart::Mark> marks;
    const QString shown = policy();
    for (const model::AuditEntry &entry : std::as_const(m_auditEntries)) {
        const bool namespaceWide = entry.action == QLatin1String("publish") || entry.action == QLatin1String("lists");
        if (!namespaceWide && entry.policy != shown)
            continue;
        const QString what = entry.action == QLatin1String("reset")
            ? tr("reset the bucket of %1").arg(model::subjectText(entry.subject))
            : entry.changeText();
        // Who as written ("alice smith"), its controls made visible: anyone who may write the log names it.
        marks.append({entry.atMs, tr("%1 by %2: %3").arg(entry.action, model::terminalText(entry.who), what)});
    }
    m_chart->setMarks(marks);
}

void PolicyLiveView::applyInterval()
{
    if (m_session)
        m_session->rates()->setIntervalMs(int(m_interval->currentData().toLongLong()));
}

void PolicyLiveView::applyRetention()
{
    if (m_session)
        m_session->rates()->setRetentionMs(m_retention->currentData().toLongLong());
    redraw();
}

void PolicyLiveView::takeSample(const model::RateSample &sample)
{
    if (sample.spanMs > 0)
        m_lastEndMs = sample.endMs;
    // New policies join the list; the one shown stays selected.
    addPolicies(sample.policyNames());
    QStringList problems = sample.problems;
    for (const QString &node : sample.missingNodes)
        problems << tr("%1 did not answer; its decisions are counted when it does.").arg(node);
    if (!m_paused)
        showState(problems.join(QLatin1Char('\n')));
    m_state->setStyleSheet(problems.isEmpty() ? QString() : textStyle(Tone::Warning));
    if (isVisible())
        redraw();
}

void PolicyLiveView::takeRestored()
{
    const model::PolicyRateSampler *rates = m_session->rates();
    addPolicies(rates->policies());
    for (const QString &name : rates->policies()) {
        // Until this run's first sample, the chart ends where the previous run's history does.
        if (const model::RatePoint *latest = rates->history(name)->latest())
            m_lastEndMs = std::max(m_lastEndMs, latest->endMs);
    }
    if (isVisible())
        redraw();
}

void PolicyLiveView::redraw()
{
    if (m_paused || !m_session || m_lastEndMs == 0)
        return;
    const qint64 span = m_span->currentData().toLongLong();
    // A chosen range stays put; a span ends at the last sample.
    const qint64 from = m_range ? m_range->first : m_lastEndMs - std::min(span, m_session->rates()->retentionMs());
    const qint64 to = m_range ? m_range->second : m_lastEndMs;
    // A policy's allowed/s and rejected/s over the span, a gap where nothing was counted.
    const auto linesOf = [this, from, to](const QString &name) {
        std::pair<QVector<QPointF>, QVector<QPointF>> lines;
        auto &[allowed, rejected] = lines;
        const model::RateHistory *history = name.isEmpty() ? nullptr : m_session->rates()->history(name);
        if (!history)
            return lines;
        const qint64 expectedSpan = std::max<qint64>(m_session->rates()->intervalMs(), history->consolidationStepMs());
        const model::RatePoint *previous = nullptr;
        for (const model::RatePoint &point : history->points(from, to)) {
            if (model::unsampledBeforeMs(previous, point, expectedSpan) > 0) {
                const QPointF gap(point.endMs - point.spanMs, qQNaN()); // nothing was counted there
                allowed << gap;
                rejected << gap;
            }
            allowed << QPointF(point.endMs, point.allowedPerSecond());
            rejected << QPointF(point.endMs, point.rejectedPerSecond());
            previous = &point;
        }
        return lines;
    };
    const auto [allowed, rejected] = linesOf(policy());
    const bool shadow = m_shadowPolicies.contains(policy());
    m_chart->setPoints(0, allowed);
    m_chart->setPoints(1, shadow ? QVector<QPointF>{} : rejected);
    m_chart->setPoints(2, shadow ? rejected : QVector<QPointF>{});
    const QString beside = comparedPolicy();
    const auto [besideAllowed, besideRejected] = linesOf(beside);
    m_chart->setSeriesName(3, beside.isEmpty() ? QString() : tr("%1 allowed/s").arg(beside));
    m_chart->setSeriesName(4,
                           beside.isEmpty()                        ? QString()
                               : m_shadowPolicies.contains(beside) ? tr("%1 would reject/s").arg(beside)
                                                                   : tr("%1 rejected/s").arg(beside));
    m_chart->setPoints(3, besideAllowed);
    m_chart->setPoints(4, besideRejected);
    m_chart->setTimeWindow(from, to);
}

// What the shown policy's history holds, from the start of its oldest point to its last; nothing when empty.
std::optional<std::pair<qint64, qint64>> PolicyLiveView::keptSpan() const
{
    const model::RateHistory *history = m_session ? m_session->rates()->history(policy()) : nullptr;
    const QVector<model::RatePoint> points
        = history ? history->points(0, std::numeric_limits<qint64>::max()) : QVector<model::RatePoint>();
    if (points.isEmpty())
        return std::nullopt;
    return std::pair{points.first().endMs - points.first().spanMs, points.last().endMs};
}

// The range picker: a span of the kept history, shown until another span is picked; Cancel keeps what was shown.
void PolicyLiveView::pickRange()
{
    const auto restoreChoice = [this] {
        const QSignalBlocker quiet(m_span);
        m_span->setCurrentIndex(m_spanIndex);
    };
    const std::optional<std::pair<qint64, qint64>> kept = keptSpan();
    if (!kept) {
        restoreChoice();
        showState(tr("Nothing of %1 is kept yet to pick a range from.").arg(policy()));
        return;
    }
    auto *dialog = new TimeRangeDialog(kept->first, kept->second, m_chart->shownSpan(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::finished, this, [this, dialog, restoreChoice](int result) {
        if (result != QDialog::Accepted) {
            restoreChoice();
            return;
        }
        m_range = dialog->range();
        m_spanIndex = m_span->currentIndex();
        m_chart->resetZoom();
        showRangeNote();
        redraw();
    });
    dialog->open();
}

void PolicyLiveView::showRangeNote()
{
    m_rangeNote->setVisible(m_range.has_value());
    if (m_range)
        m_rangeNote->setText(tr("%1 to %2, not following live")
                                 .arg(model::formatDateTime(m_range->first), model::formatClock(m_range->second)));
}

void PolicyLiveView::showTop(const model::TopRejected &reply)
{
    if (reply.policy != m_lastReply.policy) {
        m_tally.clear();
        m_lastNamed.clear();
    }
    m_lastReply = reply;
    m_tally.add(reply);
    showTopList();
}

// The list for the window picked, from the differences of the library's summaries between this tab's
// polls. When rejections stop, the last names stay, greyed and dated: they answer who was limited.
void PolicyLiveView::showTopList()
{
    const model::TopRejected &reply = m_lastReply;
    const qint64 window = m_topWindow->currentData().toLongLong();
    const model::RejectedTally::Result tally = m_tally.over(window);
    // A primary that did not answer leaves its part unknown: with none answering, there is no list to show.
    QVector<model::RejectedSubject> subjects
        = reply.readings.isEmpty() ? QVector<model::RejectedSubject>() : tally.subjects;
    bool quiet = false;
    QString note;
    const QString seen = model::formatDuration(std::max<qint64>(1, tally.coveredMs / 1000));
    if (!subjects.isEmpty()) {
        m_lastNamed = subjects;
        m_lastNamedAtMs = reply.nowMs;
    }
    if (!reply.problems.isEmpty()) {
        note = reply.problems.join(QLatin1Char('\n'));
    } else if (reply.nowMs == 0) {
        note.clear();
    } else if (tally.coveredMs == 0) {
        note = tr("Reading: the counts of the window start with this tab's next read.");
    } else if (subjects.isEmpty() && !m_lastNamed.isEmpty()) {
        quiet = true;
        subjects = m_lastNamed;
        note = tr("Nobody was rejected in the %1 seen. Greyed: the most rejected until %2.")
                   .arg(seen, model::formatClock(m_lastNamedAtMs));
    } else if (subjects.isEmpty()) {
        note = tr("Nobody was rejected in the %1 seen.").arg(seen);
    } else {
        note = tr("Rejections in the %1 seen of the window (this tab reads only while shown), counted by the "
                  "library as it decides.")
                   .arg(seen);
        if (tally.unlistedAtMost > 0)
            note += QLatin1Char(' ')
                + tr("A subject not listed was rejected at most %1 times.")
                      .arg(QLocale().toString(tally.unlistedAtMost));
    }
    m_topNote->setText(note);
    m_top->setRowCount(int(subjects.size()));
    // Which primary decided matters only when there are several.
    m_top->setColumnHidden(2, !m_session || m_session->primaries().size() < 2);
    const QLocale locale;
    for (int row = 0; row < subjects.size(); ++row) {
        const model::RejectedSubject &subject = subjects.at(row);
        auto *name = new QTableWidgetItem(QString::fromUtf8(subject.subject));
        name->setToolTip(name->text());
        name->setData(Qt::UserRole, subject.subject);
        // A subject that entered the library's summary in the window may have had rejections before.
        auto *count = new QTableWidgetItem(
            subject.shortBy > 0
                ? tr("%1 (up to %2 more)").arg(locale.toString(subject.rejections), locale.toString(subject.shortBy))
                : locale.toString(subject.rejections));
        count->setData(Qt::UserRole, subject.rejections);
        count->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_top->setItem(row, 0, name);
        m_top->setItem(row, 1, count);
        m_top->setItem(row, 2, new QTableWidgetItem(subject.node));
        for (int column = 0; quiet && column < 3; ++column)
            m_top->item(row, column)->setForeground(toneColor(Tone::Muted));
    }
    m_watch->setEnabled(!m_top->selectedItems().isEmpty());
}

bool PolicyLiveView::exportCsv(const QString &path, QString *error) const
{
    QByteArray csv = "time,span_ms,allowed,rejected,allowed_per_s,rejected_per_s\n";
    if (m_session) {
        if (const model::RateHistory *history = m_session->rates()->history(policy())) {
            const auto [from, to] = m_chart->shownSpan();
            for (const model::RatePoint &point : history->points(from, to))
                csv += QStringLiteral("%1,%2,%3,%4,%5,%6\n")
                           .arg(QDateTime::fromMSecsSinceEpoch(point.endMs, Qt::UTC).toString(Qt::ISODateWithMs))
                           .arg(point.spanMs)
                           .arg(point.allowed)
                           .arg(point.rejected)
                           .arg(point.allowedPerSecond(), 0, 'f', 3)
                           .arg(point.rejectedPerSecond(), 0, 'f', 3)
                           .toUtf8();
        }
    }
    if (const auto failure = model::writeWholeFile(path, csv)) {
        *error = failure->message;
        return false;
    }
    return true;
}

bool PolicyLiveView::exportPng(const QString &path, QString *error) const
{
    return m_chart->exportPng(path, error);
}

void PolicyLiveView::chooseExportFile(bool png)
{
    const QString stem = policy().isEmpty() ? QStringLiteral("sluice") : policy();
    const QString path = QFileDialog::getSaveFileName(this, png ? tr("Save chart") : tr("Save samples"),
                                                      stem + (png ? QStringLiteral(".png") : QStringLiteral(".csv")),
                                                      png ? tr("PNG images (*.png)") : tr("CSV files (*.csv)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!(png ? exportPng(path, &error) : exportCsv(path, &error)))
        QMessageBox::warning(this, tr("Export"), error);
}

} // namespace sluice::ui
