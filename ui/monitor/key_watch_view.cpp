// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/monitor/key_watch_view.h"

#include "model/format/figure_age.h"
#include "model/format/units.h"
#include "model/monitor/level_projection.h"
#include "model/monitor/server_status.h"
#include "model/monitor/watch_list_store.h"
#include "model/policy/policy_summary.h"
#include "ui/widgets/column_widths.h"
#include "ui/widgets/long_names.h"
#include "ui/widgets/policy_choices.h"
#include "ui/widgets/state_palette.h"
#include "ui/widgets/time_series_chart.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace sluice::ui {

using model::SeedLayout;

namespace {

enum Column {
    KeyColumn,
    AlgorithmColumn,
    AvailableColumn,
    RejectedPerSecondColumn,
    AllowedColumn,
    RejectedColumn,
    FullInColumn,
    ColumnCount
};

constexpr qint64 shownSpanMs = 60 * 1000;  // a bucket changes within seconds: one minute, readings visible
constexpr int seedRole = Qt::UserRole + 1; // the source combo: a seed layout, not a policy

QString seedLayoutTitle(SeedLayout layout)
{
    switch (layout) {
    case SeedLayout::ScgTokenBucket: return QObject::tr("Spring Cloud Gateway token bucket (id)");
    case SeedLayout::FixedWindowCounter: return QObject::tr("INCR + EXPIRE counter (key)");
    case SeedLayout::MsTokenBucket: return QObject::tr("Millisecond token bucket (key)");
    case SeedLayout::IntervalTokenBucket: return QObject::tr("Interval-refill token bucket (key)");
    }
    return {};
}

QTableWidgetItem *cell(const QString &text, bool number = true)
{
    auto *item = new QTableWidgetItem(text);
    if (number)
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

} // namespace

KeyWatchView::KeyWatchView(model::ConnectionSession *session, QWidget *parent)
    : QWidget(parent)
{
    m_source = new QComboBox(this);
    m_source->setObjectName(QStringLiteral("watchSource"));
    m_source->setAccessibleName(tr("Policy or seed layout to watch"));
    elideInTheMiddle(m_source);
    m_source->setMinimumContentsLength(20);
    m_source->setPlaceholderText(tr("policy"));
    m_subject = new QLineEdit(this);
    m_subject->setObjectName(QStringLiteral("watchSubject"));
    m_subject->setAccessibleName(tr("Subject to watch"));
    m_subject->setPlaceholderText(tr("subject, e.g. a user id or an IP address"));
    m_parameters = new QLineEdit(this);
    m_parameters->setObjectName(QStringLiteral("watchParameters"));
    m_parameters->hide();
    m_add = new QPushButton(tr("Watch"), this);
    m_add->setObjectName(QStringLiteral("watchAdd"));
    m_remove = new QPushButton(tr("Remove"), this);
    m_remove->setObjectName(QStringLiteral("watchRemove"));
    m_remove->setEnabled(false);
    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("watchError"));
    m_error->setStyleSheet(textStyle(Tone::Error));
    m_error->hide();

    auto *form = new QHBoxLayout;
    form->addWidget(new QLabel(tr("Watch"), this));
    form->addWidget(m_source);
    form->addWidget(m_subject, 1);
    form->addWidget(m_parameters, 1);
    form->addWidget(m_add);
    form->addWidget(m_remove);

    m_table = new QTableWidget(0, ColumnCount, this);
    m_table->setObjectName(QStringLiteral("watchTable"));
    m_table->setAccessibleName(tr("Watched buckets"));
    m_table->setHorizontalHeaderLabels({tr("Bucket"), tr("Algorithm"), tr("Available"), tr("Rejected/s"), tr("Allowed"),
                                        tr("Rejected"), tr("Full again in")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    setColumnWidths(m_table, KeyColumn,
                    {{AlgorithmColumn, QStringLiteral("fixed_window_counter")},
                     {AvailableColumn, QStringLiteral("1,000 of 1,000")},
                     {RejectedPerSecondColumn, QStringLiteral("10,000.0")},
                     {AllowedColumn, QStringLiteral("1,000,000")},
                     {RejectedColumn, QStringLiteral("1,000,000")},
                     {FullInColumn, QStringLiteral("59 min 59 s")}});

    m_chartTitle = new QLabel(tr("Select a watched bucket to chart it."), this);
    m_chartTitle->setObjectName(QStringLiteral("watchChartTitle"));
    m_chartTitle->setWordWrap(true);
    m_chart = new TimeSeriesChart(this);
    m_chart->addSeries({tr("available"), toneColor(Tone::Level), TimeSeriesChart::Axis::Left, false, true});
    m_chart->addSeries({tr("projected refill"), toneColor(Tone::Level), TimeSeriesChart::Axis::Left, true});
    m_chart->addSeries({tr("rejected/s"), toneColor(Tone::Rejected), TimeSeriesChart::Axis::Right});
    m_chart->setAxisTitles(tr("units available"), tr("rejected/s"));

    auto *chartBox = new QWidget(this);
    auto *chartLayout = new QVBoxLayout(chartBox);
    chartLayout->setContentsMargins(0, 0, 0, 0);
    chartLayout->addWidget(m_chartTitle);
    chartLayout->addWidget(m_chart, 1);
    auto *split = new QSplitter(Qt::Vertical, this);
    split->setObjectName(QStringLiteral("watchedKeysSplit"));
    split->addWidget(m_table);
    split->addWidget(chartBox);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 2);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(12, 12, 12, 12);
    layout->addLayout(form);
    layout->addWidget(m_error);
    layout->addWidget(split, 1);

    for (SeedLayout layout : model::seedLayouts) {
        m_source->addItem(seedLayoutTitle(layout));
        m_source->setItemData(m_source->count() - 1, int(layout), seedRole);
    }
    m_source->insertSeparator(0);
    m_source->setCurrentIndex(-1);

    connect(m_add, &QPushButton::clicked, this, &KeyWatchView::addFromForm);
    connect(m_source, &QComboBox::currentIndexChanged, this, &KeyWatchView::showParameterField);
    for (QLineEdit *field : {m_subject, m_parameters}) {
        connect(field, &QLineEdit::returnPressed, this, &KeyWatchView::addFromForm);
        connect(field, &QLineEdit::textEdited, this, [this] { showError({}); });
    }
    connect(m_table, &QTableWidget::itemSelectionChanged, this, [this] {
        m_remove->setEnabled(selectedId() > 0);
        redrawChart();
    });
    connect(m_remove, &QPushButton::clicked, this, [this] {
        if (m_watch && selectedId() > 0)
            m_watch->remove(selectedId());
    });
    if (session)
        followSession(session);
}

void KeyWatchView::followSession(model::ConnectionSession *session)
{
    m_session = session;
    m_watch = session->watchKeys(this);
    m_watch->setIntervalMs(session->rates()->intervalMs());
    connect(m_watch, &model::KeyWatch::keysChanged, this, &KeyWatchView::rebuildTable);
    connect(m_watch, &model::KeyWatch::roundDone, this, [this] {
        if (isVisible()) // a hidden tab catches up when shown
            showReadings();
    });
    connect(session->rates(), &model::PolicyRateSampler::sampled, this, &KeyWatchView::updatePolicies);
    connect(session->libraryWatch(), &model::LibraryWatch::checked, this,
            [this](const model::LibraryWatch::Report &report) {
        markShadow(model::shadowPolicyNames(report.status.published.policies));
    });
    m_watch->start();
    rebuildTable();
}

void KeyWatchView::updatePolicies(const model::RateSample &sample)
{
    // The watch reads as often as the rates are sampled.
    if (m_watch && m_session && m_watch->intervalMs() != m_session->rates()->intervalMs())
        m_watch->setIntervalMs(m_session->rates()->intervalMs());
    if (m_watch && m_session)
        m_watch->setRetentionMs(m_session->rates()->retentionMs());
    addPoliciesInNameOrder(m_source, sample.policyNames(), m_shadowPolicies); // above the seed layouts
}

void KeyWatchView::markShadow(const QSet<QString> &shadow)
{
    if (shadow == m_shadowPolicies)
        return;
    m_shadowPolicies = shadow;
    markShadowPolicies(m_source, shadow);
    rebuildTable();
}

void KeyWatchView::keepListIn(QSettings *settings, const QString &profile)
{
    if (!m_watch)
        return;
    model::WatchListStore store(settings, profile);
    for (const model::WatchEntry &entry : store.load()) {
        // An entry the watch refuses now (a subject no longer valid) is dropped with the next save.
        const auto refused = entry.layout ? m_watch->addSeedKey(*entry.layout, entry.subject, entry.parameters)
                                          : m_watch->addSubject(entry.policy, entry.subject);
        Q_UNUSED(refused);
    }
    connect(m_watch, &model::KeyWatch::keysChanged, this, [this, store]() mutable { store.save(m_watch->keys()); });
}

bool KeyWatchView::watchSubject(const QString &policy, const QByteArray &subject)
{
    if (!m_watch)
        return false;
    return showAdded(m_watch->addSubject(policy, subject));
}

bool KeyWatchView::watchSeedKey(SeedLayout layout, const QByteArray &id,
                                const std::optional<model::SeedParameters> &parameters)
{
    if (!m_watch)
        return false;
    return showAdded(m_watch->addSeedKey(layout, id, parameters));
}

bool KeyWatchView::showAdded(const std::optional<model::Failure> &refused)
{
    showError(model::messageOf(refused));
    if (!refused)
        select(m_watch->keys().last().id);
    return !refused;
}

void KeyWatchView::addFromForm()
{
    const int index = m_source->currentIndex();
    if (index < 0) {
        showError(tr("Choose a policy or a seed layout."));
        return;
    }
    const QByteArray subject = m_subject->text().trimmed().toUtf8();
    const QVariant seed = m_source->itemData(index, seedRole);
    if (seed.isNull()) {
        if (watchSubject(chosenPolicy(m_source), subject))
            m_subject->clear();
        return;
    }
    const SeedLayout layout = SeedLayout(seed.toInt());
    const QString text = m_parameters->text().trimmed();
    const std::optional<model::SeedParameters> parameters
        = text.isEmpty() ? std::nullopt : model::parseSeedParameters(layout, text);
    if (!text.isEmpty() && !parameters) {
        showError(tr("Write the parameters as %1 (whole numbers from 1), or leave them out.")
                      .arg(model::seedParameterForm(layout).toLower()));
        return;
    }
    if (watchSeedKey(layout, subject, parameters)) {
        m_subject->clear();
        m_parameters->clear();
    }
}

void KeyWatchView::showParameterField()
{
    const QVariant seed = m_source->currentData(seedRole);
    m_parameters->setVisible(!seed.isNull());
    if (!seed.isNull())
        m_parameters->setPlaceholderText(
            tr("%1 (optional: to refill it to now)").arg(model::seedParameterForm(SeedLayout(seed.toInt())).toLower()));
}

void KeyWatchView::showError(const QString &error)
{
    m_error->setText(error);
    m_error->setVisible(!error.isEmpty());
}

QString KeyWatchView::errorText() const
{
    return m_error->isHidden() ? QString() : m_error->text();
}

void KeyWatchView::select(int id)
{
    for (int row = 0; row < m_table->rowCount(); ++row)
        if (m_table->item(row, KeyColumn)->data(Qt::UserRole).toInt() == id)
            m_table->selectRow(row);
}

int KeyWatchView::selectedId() const
{
    const QList<QTableWidgetItem *> selected = m_table->selectedItems();
    return selected.isEmpty() ? 0 : m_table->item(selected.first()->row(), KeyColumn)->data(Qt::UserRole).toInt();
}

void KeyWatchView::rebuildTable()
{
    const int selected = selectedId();
    m_table->setRowCount(0);
    if (!m_watch)
        return;
    for (const model::WatchedKey &key : m_watch->keys()) {
        const int row = m_table->rowCount();
        m_table->insertRow(row);
        const bool shadow = !key.layout && m_shadowPolicies.contains(key.policy);
        auto *name = cell(shadow ? model::withShadowMark(key.label()) : key.label(), false);
        name->setData(Qt::UserRole, key.id);
        name->setToolTip(QString::fromUtf8(key.key));
        m_table->setItem(row, KeyColumn, name);
        for (int column = AlgorithmColumn; column < ColumnCount; ++column)
            m_table->setItem(row, column, cell(QString(), column != AlgorithmColumn));
        showRow(row);
    }
    if (selected > 0)
        select(selected);
    else if (m_table->rowCount() > 0)
        m_table->selectRow(m_table->rowCount() - 1);
    redrawChart();
}

void KeyWatchView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    showReadings();
}

void KeyWatchView::showReadings()
{
    for (int row = 0; row < m_table->rowCount(); ++row)
        showRow(row);
    redrawChart();
}

void KeyWatchView::showRow(int row)
{
    const model::WatchedKey *key
        = m_watch ? m_watch->key(m_table->item(row, KeyColumn)->data(Qt::UserRole).toInt()) : nullptr;
    if (!key)
        return;
    const QLocale locale;
    m_table->item(row, AlgorithmColumn)->setText(key->algorithm);
    m_table->item(row, KeyColumn)->setForeground(key->problem.isEmpty() ? QBrush() : QBrush(toneColor(Tone::Warning)));
    m_table->item(row, KeyColumn)->setToolTip(key->problem.isEmpty() ? QString::fromUtf8(key->key) : key->problem);
    if (key->samples.isEmpty())
        return;
    const model::KeySample &last = key->samples.last();
    // Whole units: a seed bucket refilled to now may hold part of a token, which no call can take.
    m_table->item(row, AvailableColumn)
        ->setText(last.capacity >= 0 ? tr("%1 of %2")
                                           .arg(locale.toString(std::floor(last.level), 'f', 0),
                                                locale.toString(last.capacity, 'f', 0))
                                     : locale.toString(last.level, 'g', 12));
    if (last.resetAfterMs >= 0)
        m_table->item(row, FullInColumn)
            ->setText(last.resetAfterMs == 0 ? tr("full") : model::formatWait(last.resetAfterMs));
    if (key->layout) {
        markStale(row, *key); // the seed layouts count nothing more
        return;
    }
    m_table->item(row, RejectedPerSecondColumn)->setText(model::formatDecimal(last.rejectedPerSecond));
    m_table->item(row, AllowedColumn)->setText(locale.toString(last.allowed));
    m_table->item(row, RejectedColumn)->setText(locale.toString(last.rejected));
    markStale(row, *key);
}

// A reading that failed leaves the last figures on the row, greyed, saying what failed and as of when.
void KeyWatchView::markStale(int row, const model::WatchedKey &key)
{
    const bool stale = !key.problem.isEmpty() && !key.samples.isEmpty();
    const QString asOf = stale ? model::notThePresent(key.problem, key.samples.last().timeMs) : QString();
    for (int column = AlgorithmColumn; column < m_table->columnCount(); ++column) {
        QTableWidgetItem *item = m_table->item(row, column);
        if (!item || column == KeyColumn)
            continue;
        item->setForeground(stale ? QBrush(toneColor(Tone::Muted)) : QBrush());
        item->setToolTip(asOf);
    }
}

void KeyWatchView::redrawChart()
{
    const model::WatchedKey *key = m_watch ? m_watch->key(selectedId()) : nullptr;
    if (!key) {
        for (int series = 0; series < 3; ++series)
            m_chart->setPoints(series, {});
        m_chartTitle->setText(m_watch && !m_watch->keys().isEmpty()
                                  ? tr("Select a watched bucket to chart it.")
                                  : tr("Nothing is watched yet: name a policy and a subject above, "
                                       "or use Watch subject on the Live tab's most rejected list."));
        return;
    }
    if (!key->problem.isEmpty())
        m_chartTitle->setText(
            QStringLiteral("<b>%1</b> \u2014 %2").arg(key->label().toHtmlEscaped(), key->problem.toHtmlEscaped()));
    else if (key->layout && key->parameters)
        m_chartTitle->setText(tr("<b>%1</b> \u2014 readings refilled to now with the parameters given, as its script "
                                 "would on a call (this layout keeps no counts).")
                                  .arg(key->label().toHtmlEscaped()));
    else if (key->layout)
        m_chartTitle->setText(
            tr("<b>%1</b> \u2014 the value as the script stored it at its last call (it refills only when called, "
               "at a rate the keys do not hold: give the parameters to see it refilled to now; it keeps no counts).")
                .arg(key->label().toHtmlEscaped()));
    else
        m_chartTitle->setText(
            tr("<b>%1</b> \u2014 dots are readings; the pale line is the refill projected between them.")
                .arg(key->label().toHtmlEscaped()));
    if (key->samples.isEmpty())
        return;
    const qint64 until = key->samples.last().timeMs;
    const qint64 from = until - shownSpanMs;
    QVector<QPointF> levels, rejected;
    for (int i = 0; i < key->samples.size(); ++i) {
        const model::KeySample &sample = key->samples.at(i);
        if (sample.timeMs < from)
            continue;
        levels << QPointF(sample.timeMs, sample.level);
        if (!key->layout)
            rejected << QPointF(sample.timeMs, sample.rejectedPerSecond);
    }
    m_chart->setPoints(0, levels);
    m_chart->setPoints(1,
                       key->layout
                           ? QVector<QPointF>()
                           : model::projectedLevel(key->algorithm, key->samples, from, until + m_watch->intervalMs()));
    m_chart->setPoints(2, rejected);
    m_chart->setTimeWindow(from, until + m_watch->intervalMs());
}

} // namespace sluice::ui
