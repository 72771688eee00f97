// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/policy/policy_editor.h"

#include "model/policy/policy_diff.h"
#include "model/policy/policy_lint.h"
#include "model/policy/policy_summary.h"
#include "ui/policy/conflict_dialog.h"
#include "ui/policy/policy_commit.h"
#include "ui/policy/policy_diff_dialog.h"
#include "ui/policy/subject_rules_table.h"
#include "ui/widgets/banner.h"
#include "ui/widgets/keyboard_use.h"
#include "ui/widgets/named.h"
#include "ui/widgets/state_palette.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QTabWidget>
#include <QVBoxLayout>

namespace sluice::ui {

using model::Algorithm;
using model::Policy;

namespace {

namespace limits = model::policy_limits;

struct WindowUnit {
    qint64 ms;
    const char *name;
};
// The units the window is typed in; milliseconds is the custom window.
constexpr WindowUnit windowUnits[]
    = {{1'000, "seconds"}, {60'000, "minutes"}, {3'600'000, "hours"}, {86'400'000, "days"}, {1, "milliseconds"}};

QString trEditor(const char *text)
{
    return QCoreApplication::translate("sluice::ui::PolicyEditor", text);
}

QLabel *errorLabel(QWidget *parent, const char *name)
{
    auto *label = named(new QLabel(parent), name);
    label->setStyleSheet(textStyle(Tone::Error));
    label->setWordWrap(true);
    return label;
}

// The index of the largest unit in `units` (a combo of windowUnits) that holds `ms` exactly (milliseconds
// always does).
int largestExactUnit(const QComboBox *units, qint64 ms)
{
    int bestIndex = 0;
    qint64 best = 0;
    for (int i = 0; i < units->count(); ++i) {
        const qint64 unit = units->itemData(i).toLongLong();
        if (ms % unit == 0 && unit > best) {
            best = unit;
            bestIndex = i;
        }
    }
    return bestIndex;
}

// A whole number typed by an operator, from `min` to `max`; nullopt and the reason otherwise.
std::optional<qint64> parseWhole(const QString &typed, qint64 min, qint64 max, QString *error)
{
    const QString text = typed.trimmed();
    static const QRegularExpression digits(QStringLiteral("^[0-9]+$"));
    if (text.isEmpty()) {
        *error = trEditor("required");
        return std::nullopt;
    }
    if (!digits.match(text).hasMatch()) {
        static const QRegularExpression negative(QStringLiteral("^-[0-9.]+$"));
        static const QRegularExpression decimal(QStringLiteral("^[0-9]*[.,eE][0-9.eE+-]*$"));
        if (negative.match(text).hasMatch())
            *error = trEditor("must be positive");
        else if (decimal.match(text).hasMatch())
            *error = trEditor("must be a whole number, without a fraction or exponent");
        else
            *error = trEditor("\u201c%1\u201d is not a number: digits only").arg(text.left(20));
        return std::nullopt;
    }
    bool ok = false;
    const qint64 value = text.toLongLong(&ok);
    if (!ok || value > max) {
        *error = trEditor("at most %1").arg(max);
        return std::nullopt;
    }
    if (value < min) {
        *error = trEditor("at least %1").arg(min);
        return std::nullopt;
    }
    return value;
}

void showError(QLabel *label, const QString &error)
{
    label->setText(error);
    label->setVisible(!error.isEmpty());
}

// An offset from UTC as typed and shown: "+05:30", "-08:00".
QString offsetText(int minutes)
{
    return QStringLiteral("%1%2:%3")
        .arg(minutes < 0 ? QLatin1Char('-') : QLatin1Char('+'))
        .arg(std::abs(minutes) / 60, 2, 10, QLatin1Char('0'))
        .arg(std::abs(minutes) % 60, 2, 10, QLatin1Char('0'));
}

// "+05:30", "-8", "+0930", "0" as minutes from UTC; nullopt and the reason otherwise.
std::optional<int> parseOffset(const QString &typed, QString *error)
{
    static const QRegularExpression offset(QStringLiteral("^(?:UTC)?\\s*([+-]?)(\\d{1,2})(?::?(\\d{2}))?$"));
    const QRegularExpressionMatch match = offset.match(typed.trimmed());
    const int minutes = match.captured(3).isEmpty() ? 0 : match.captured(3).toInt();
    if (!match.hasMatch() || minutes >= 60) {
        *error = trEditor("an offset from UTC such as +05:30 or -08:00");
        return std::nullopt;
    }
    const int total = (match.captured(2).toInt() * 60 + minutes) * (match.captured(1) == QLatin1String("-") ? -1 : 1);
    if (total < limits::minUtcOffsetMinutes || total > limits::maxUtcOffsetMinutes) {
        *error = trEditor("from -12:00 to +14:00");
        return std::nullopt;
    }
    return total;
}

} // namespace

bool PolicyEditor::FieldErrors::any() const
{
    return !name.isEmpty() || !limit.isEmpty() || !window.isEmpty() || !burst.isEmpty() || !calendar.isEmpty()
        || !shadowOf.isEmpty() || !penalty.isEmpty() || !debt.isEmpty() || !reserve.isEmpty() || !overrides.isEmpty()
        || !spread.isEmpty() || !description.isEmpty();
}

PolicyEditor::PolicyEditor(model::ConnectionSession *session, const std::optional<Policy> &existing,
                           const QStringList &existingNames, QWidget *parent)
    : QDialog(parent)
    , m_session(session)
    , m_base(existing)
    , m_takenNames(existingNames)
{
    setObjectName(QStringLiteral("policyEditor"));
    setWindowTitle(existing ? tr("Policy \u201c%1\u201d").arg(existing->name) : tr("New policy"));
    m_writable = session && !session->profile().readOnly;
    if (existing)
        m_takenNames.removeAll(existing->name);

    auto *layout = new QVBoxLayout(this);
    // The definition on one tab, the subjects it treats apart on the other, so the form fits 700 pixels.
    m_tabs = named(new QTabWidget(this), "policyTabs");
    auto *definition = new QWidget(m_tabs);
    definition->setLayout(createFields());
    m_tabs->addTab(definition, tr("&Definition"));
    m_overrides = named(new SubjectRulesTable(true, m_tabs), "overridesTable");
    m_tabs->addTab(m_overrides, tr("&Overrides"));
    layout->addWidget(m_tabs, 1);

    m_summary = new Banner(Tone::Info, QStringLiteral("policySummary"), this);
    layout->addWidget(m_summary);

    auto *lintRow = new QHBoxLayout;
    m_lint = new Banner(Tone::Warning, QStringLiteral("lintWarnings"), this);
    m_lint->setTextFormat(Qt::RichText);
    m_useSlidingWindow = named(new QPushButton(tr("Use a sliding window"), this), "useSlidingWindowButton");
    connect(m_useSlidingWindow, &QPushButton::clicked, this, [this] {
        m_algorithm->setCurrentIndex(m_algorithm->findData(static_cast<int>(Algorithm::SlidingWindow)));
    });
    lintRow->addWidget(m_lint, 1);
    lintRow->addWidget(m_useSlidingWindow, 0, Qt::AlignTop);
    layout->addLayout(lintRow);

    m_saveStatus = errorLabel(this, "saveStatus");
    m_saveStatus->hide();
    layout->addWidget(m_saveStatus);

    auto *buttons = new QDialogButtonBox(this);
    m_saveButton = named(buttons->addButton(tr("Review and save\u2026"), QDialogButtonBox::AcceptRole), "saveButton");
    buttons->addButton(m_writable ? QDialogButtonBox::Cancel : QDialogButtonBox::Close);
    connect(m_saveButton, &QPushButton::clicked, this, &PolicyEditor::save);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);

    if (existing) {
        loadPolicy(*existing);
    } else {
        Policy fresh;
        fresh.algorithm = Algorithm::TokenBucket;
        fresh.limit = 100;
        fresh.windowMs = 60'000;
        // A new fixed window opens at each subject's first call (seed 001's counter): the cheapest, needing no
        // clock. A stored policy that does not say keeps meaning aligned (model::WindowStart).
        fresh.windowStart = model::WindowStart::FirstCall;
        loadPolicy(fresh);
        m_burst->clear();
    }
    if (!m_writable) {
        for (QWidget *field :
             {static_cast<QWidget *>(m_name), static_cast<QWidget *>(m_algorithm), static_cast<QWidget *>(m_limit),
              static_cast<QWidget *>(m_windowCount), static_cast<QWidget *>(m_windowUnit),
              static_cast<QWidget *>(m_burst), static_cast<QWidget *>(m_windowStart), static_cast<QWidget *>(m_shadow),
              static_cast<QWidget *>(m_shadowOf), static_cast<QWidget *>(m_penaltyCount),
              static_cast<QWidget *>(m_penaltyUnit), static_cast<QWidget *>(m_debt),
              static_cast<QWidget *>(m_reserveCount), static_cast<QWidget *>(m_reserveUnit),
              static_cast<QWidget *>(m_spread), static_cast<QWidget *>(m_utcOffset),
              static_cast<QWidget *>(m_anchorDay), static_cast<QWidget *>(m_description),
              static_cast<QWidget *>(m_useSlidingWindow)})
            field->setEnabled(false);
        m_overrides->setEditable(false);
        m_saveButton->setToolTip(tr("This connection is read-only."));
    }

    for (QLineEdit *edit : {m_name, m_limit, m_windowCount, m_burst, m_penaltyCount, m_debt, m_reserveCount, m_spread,
                            m_utcOffset, m_description})
        connect(edit, &QLineEdit::textChanged, this, &PolicyEditor::revalidate);
    connect(m_reserveUnit, &QComboBox::currentIndexChanged, this, &PolicyEditor::revalidate);
    connect(m_anchorDay, &QSpinBox::valueChanged, this, &PolicyEditor::revalidate);
    connect(m_overrides, &SubjectRulesTable::changed, this, &PolicyEditor::revalidate);
    connect(m_algorithm, &QComboBox::currentIndexChanged, this, &PolicyEditor::algorithmChanged);
    connect(m_windowUnit, &QComboBox::currentIndexChanged, this, &PolicyEditor::revalidate);
    connect(m_penaltyUnit, &QComboBox::currentIndexChanged, this, &PolicyEditor::revalidate);
    connect(m_windowStart, &QComboBox::currentIndexChanged, this, &PolicyEditor::algorithmChanged);
    connect(m_shadow, &QCheckBox::toggled, this, &PolicyEditor::revalidate);
    connect(m_shadowOf, &QComboBox::currentIndexChanged, this, &PolicyEditor::revalidate);
    connect(m_typicalCost, &QSpinBox::valueChanged, this, &PolicyEditor::revalidate);
    algorithmChanged();
    m_loadedState = fieldState();
    readyForKeyboard(this);
    resize(720, 540);
}

QStringList PolicyEditor::fieldState() const
{
    QStringList state;
    for (const QLineEdit *edit : {m_name, m_limit, m_windowCount, m_burst, m_penaltyCount, m_debt, m_reserveCount,
                                  m_spread, m_utcOffset, m_description})
        state << edit->text();
    for (const QComboBox *combo : {m_algorithm, m_windowUnit, m_windowStart, m_shadowOf, m_penaltyUnit, m_reserveUnit})
        state << QString::number(combo->currentIndex());
    state << QString::number(m_anchorDay->value()) << QString::number(m_shadow->isChecked());
    QString problem;
    if (const std::optional<QVector<model::SubjectOverride>> rules = m_overrides->rules(&problem)) {
        for (const model::SubjectOverride &rule : *rules)
            state << QStringLiteral("%1 %2 %3 %4")
                         .arg(rule.writtenPattern())
                         .arg(static_cast<int>(rule.kind))
                         .arg(rule.limit)
                         .arg(rule.burst);
    } else {
        state << problem; // a row half typed is an edit too
    }
    return state;
}

void PolicyEditor::reject()
{
    if (!m_writable || fieldState() == m_loadedState) {
        QDialog::reject();
        return;
    }
    if (findChild<QMessageBox *>(QStringLiteral("discardConfirmation")))
        return; // already asking
    const QString name = m_base ? m_base->name : m_name->text().trimmed();
    auto *ask
        = new QMessageBox(QMessageBox::Question, tr("Discard changes"),
                          name.isEmpty() ? tr("Discard this new policy?")
                                         : tr("Discard your changes to \u201c%1\u201d? Nothing was saved.").arg(name),
                          QMessageBox::Discard | QMessageBox::Cancel, this);
    ask->setObjectName(QStringLiteral("discardConfirmation"));
    ask->setDefaultButton(QMessageBox::Cancel);
    ask->setAttribute(Qt::WA_DeleteOnClose);
    connect(ask, &QMessageBox::finished, this, [this](int answer) {
        if (answer == QMessageBox::Discard)
            QDialog::reject();
    });
    ask->open();
}

// The policy's fields, each with its error beside it, in the vocabulary the diffs and sluicectl use.
QFormLayout *PolicyEditor::createFields()
{
    auto *form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);

    auto fieldWithError = [this](QWidget *field, QLabel *error, QWidget *extra = nullptr) {
        auto *row = new QWidget(this);
        auto *rowLayout = new QHBoxLayout(row);
        rowLayout->setContentsMargins(0, 0, 0, 0);
        rowLayout->addWidget(field);
        if (extra)
            rowLayout->addWidget(extra);
        rowLayout->addWidget(error, 3);
        rowLayout->addStretch(1);
        return row;
    };

    m_name = named(new QLineEdit(this), "nameEdit");
    // Fields that sit in a box with their error line: the row's label is not their buddy, so they are named.
    m_name->setAccessibleName(tr("Name"));
    m_name->setPlaceholderText(tr("e.g. api.login"));
    m_name->setMinimumWidth(260);
    m_nameError = errorLabel(this, "nameError");
    form->addRow(tr("Name"), fieldWithError(m_name, m_nameError));

    m_algorithm = named(new QComboBox(this), "algorithmCombo");
    for (const QString &name : model::algorithmNames())
        m_algorithm->addItem(name, static_cast<int>(*model::algorithmFromName(name)));
    m_algorithmHelp = named(new QLabel(this), "algorithmHelp");
    m_algorithmHelp->setStyleSheet(textStyle(Tone::Muted)); // secondary text, legible on either palette
    form->addRow(tr("Algorithm"), fieldWithError(m_algorithm, m_algorithmHelp));

    // One vocabulary: the form's labels are the names the diffs, the history and sluicectl use; what each
    // field means under the chosen algorithm is in the help beside the algorithm.
    m_limitLabel = new QLabel(tr("Limit"), this);
    m_limit = named(new QLineEdit(this), "limitEdit");
    m_limit->setAccessibleName(tr("Limit"));
    m_limit->setMaximumWidth(160);
    m_limitError = errorLabel(this, "limitError");
    form->addRow(m_limitLabel, fieldWithError(m_limit, m_limitError));

    m_windowLabel = new QLabel(tr("Window"), this);
    m_windowCount = named(new QLineEdit(this), "windowCountEdit");
    m_windowCount->setAccessibleName(tr("Window"));
    m_windowCount->setMaximumWidth(100);
    m_windowUnit = named(new QComboBox(this), "windowUnitCombo");
    for (const WindowUnit &unit : windowUnits)
        m_windowUnit->addItem(tr(unit.name), unit.ms);
    m_windowUnit->setMaximumWidth(160);
    m_windowError = errorLabel(this, "windowError");
    form->addRow(m_windowLabel, fieldWithError(m_windowCount, m_windowError, m_windowUnit));

    m_burstLabel = new QLabel(tr("Burst"), this);
    m_burst = named(new QLineEdit(this), "burstEdit");
    m_burst->setAccessibleName(tr("Burst"));
    m_burst->setMaximumWidth(160);
    m_burst->setPlaceholderText(tr("same as the limit"));
    m_burstError = errorLabel(this, "burstError");
    m_burstRow = fieldWithError(m_burst, m_burstError);
    form->addRow(m_burstLabel, m_burstRow);

    // Only a fixed window has a start to choose; aligned first, what a policy that does not say means.
    m_windowStartLabel = new QLabel(tr("Window start"), this);
    m_windowStart = named(new QComboBox(this), "windowStartCombo");
    m_windowStart->addItem(tr("Aligned to the clock (the same windows for every subject)"),
                           model::windowStartName(model::WindowStart::Aligned));
    m_windowStart->addItem(tr("At each subject's first call (cheapest)"),
                           model::windowStartName(model::WindowStart::FirstCall));
    // A calendar quota is an aligned window of calendar periods (model::Calendar): its window is the period.
    m_windowStart->addItem(tr("On the calendar: each day from midnight"), model::calendarName(model::Calendar::Day));
    m_windowStart->addItem(tr("On the calendar: each week from Monday"), model::calendarName(model::Calendar::Week));
    m_windowStart->addItem(tr("On the calendar: each month"), model::calendarName(model::Calendar::Month));
    m_windowStart->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed); // as wide as its longest choice
    m_windowStartLabel->setBuddy(m_windowStart);
    form->addRow(m_windowStartLabel, m_windowStart);

    m_calendarLabel = new QLabel(tr("Time zone"), this);
    m_utcOffset = named(new QLineEdit(this), "utcOffsetEdit");
    m_utcOffset->setMaximumWidth(100);
    m_utcOffset->setToolTip(tr("A fixed offset from UTC: daylight saving time is not followed."));
    m_calendarLabel->setBuddy(m_utcOffset);
    m_anchorLabel = new QLabel(tr("from day"), this);
    m_anchorDay = named(new QSpinBox(this), "anchorDaySpin");
    m_anchorDay->setRange(1, 31);
    m_anchorDay->setToolTip(tr("A billing cycle's first day; in a shorter month, its last day."));
    m_anchorLabel->setBuddy(m_anchorDay);
    auto *anchor = new QWidget(this);
    auto *anchorLayout = new QHBoxLayout(anchor);
    anchorLayout->setContentsMargins(0, 0, 0, 0);
    anchorLayout->addWidget(m_anchorLabel);
    anchorLayout->addWidget(m_anchorDay);
    m_calendarError = errorLabel(this, "calendarError");
    m_calendarRow = fieldWithError(m_utcOffset, m_calendarError, anchor);
    form->addRow(m_calendarLabel, m_calendarRow);

    m_shadow
        = named(new QCheckBox(tr("Shadow mode: count rejections, but let every request pass"), this), "shadowCheck");
    form->addRow(QString(), m_shadow);

    // A shadow twin decides every call of a live policy too (model::Policy::shadowOf): a candidate limit
    // measured on live traffic without any service changing its calls.
    m_shadowOfLabel = new QLabel(tr("Shadow of"), this);
    m_shadowOf = named(new QComboBox(this), "shadowOfCombo");
    m_shadowOf->addItem(tr("no policy (its own callers only)"), QString());
    QStringList others = m_takenNames;
    others.sort();
    for (const QString &name : std::as_const(others))
        m_shadowOf->addItem(tr("every call of %1").arg(name), name);
    m_shadowOf->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    m_shadowOfLabel->setBuddy(m_shadowOf);
    m_shadowOfError = errorLabel(this, "shadowOfError");
    form->addRow(m_shadowOfLabel, fieldWithError(m_shadowOf, m_shadowOfError));

    // A breach blocks the subject for this long (model::Policy::blockMs); empty for no penalty.
    m_penaltyCount = named(new QLineEdit(this), "penaltyCountEdit");
    m_penaltyCount->setAccessibleName(tr("Penalty"));
    m_penaltyCount->setMaximumWidth(100);
    m_penaltyCount->setPlaceholderText(tr("none"));
    m_penaltyUnit = named(new QComboBox(this), "penaltyUnitCombo");
    for (const WindowUnit &unit : windowUnits)
        m_penaltyUnit->addItem(tr(unit.name), unit.ms);
    m_penaltyUnit->setCurrentIndex(1); // minutes, the usual penalty
    m_penaltyUnit->setMaximumWidth(160);
    m_penaltyError = errorLabel(this, "penaltyError");
    auto *penaltyLabel = new QLabel(tr("Penalty"), this);
    penaltyLabel->setToolTip(tr("Once this policy rejects a subject, the subject stays rejected this long."));
    penaltyLabel->setBuddy(m_penaltyCount);
    form->addRow(penaltyLabel, fieldWithError(m_penaltyCount, m_penaltyError, m_penaltyUnit));

    // How far a settled reservation may put a subject in debt (model::Policy::maxDebt): the algorithms that
    // settle reservations only.
    m_debtLabel = new QLabel(tr("Most debt"), this);
    m_debtLabel->setToolTip(tr("Units a settled reservation may charge beyond what is left; the subject is then "
                               "rejected until the refill pays them back."));
    m_debt = named(new QLineEdit(this), "debtEdit");
    m_debt->setAccessibleName(tr("Most debt"));
    m_debt->setMaximumWidth(160);
    m_debt->setPlaceholderText(tr("none"));
    m_debtLabel->setBuddy(m_debt);
    // How long a reservation waits for its settlement (model::Policy::reserveTimeoutMs); empty for the window.
    auto *reserve = new QWidget(this);
    auto *reserveLayout = new QHBoxLayout(reserve);
    reserveLayout->setContentsMargins(0, 0, 0, 0);
    auto *reserveLabel = new QLabel(tr("reservations wait"), reserve);
    reserveLabel->setToolTip(tr("A reservation not settled within this time keeps its estimate."));
    m_reserveCount = named(new QLineEdit(reserve), "reserveTimeoutEdit");
    m_reserveCount->setMaximumWidth(80);
    m_reserveCount->setPlaceholderText(tr("a window"));
    reserveLabel->setBuddy(m_reserveCount);
    m_reserveUnit = named(new QComboBox(reserve), "reserveTimeoutUnitCombo");
    for (const WindowUnit &unit : windowUnits)
        m_reserveUnit->addItem(tr(unit.name), unit.ms);
    reserveLayout->addWidget(reserveLabel);
    reserveLayout->addWidget(m_reserveCount);
    reserveLayout->addWidget(m_reserveUnit);
    m_debtError = errorLabel(this, "debtError");
    m_debtRow = fieldWithError(m_debt, m_debtError, reserve);
    form->addRow(m_debtLabel, m_debtRow);

    // A hot subject's buckets (model::Policy::spread); empty for one bucket per subject.
    m_spread = named(new QLineEdit(this), "spreadEdit");
    m_spread->setAccessibleName(tr("Spread over"));
    m_spread->setMaximumWidth(100);
    m_spread->setPlaceholderText(tr("1"));
    auto *spreadUnit = new QLabel(tr("buckets per subject"), this);
    auto *spreadLabel = new QLabel(tr("Spr&ead over"), this);
    spreadLabel->setToolTip(tr("For one hot subject (a global limit): callers pick one of these buckets at random "
                               "per call, each holding its share of the limit, so the calls spread over the "
                               "primaries. See the limiter contract for the error this allows."));
    spreadLabel->setBuddy(m_spread);
    m_spreadError = errorLabel(this, "spreadError");
    form->addRow(spreadLabel, fieldWithError(m_spread, m_spreadError, spreadUnit));

    m_description = named(new QLineEdit(this), "descriptionEdit");
    m_descriptionError = errorLabel(this, "descriptionError");
    form->addRow(tr("Description"), m_description);
    form->addRow(QString(), m_descriptionError);

    m_typicalCost = named(new QSpinBox(this), "typicalCostSpin");
    m_typicalCost->setRange(1, static_cast<int>(std::min<qint64>(limits::maxBurst, 1'000'000'000)));
    m_typicalCost->setMaximumWidth(160);
    m_typicalCost->setToolTip(tr("Not stored: the cost callers usually pass, for the warnings below."));
    form->addRow(tr("Typical cost"), m_typicalCost);
    return form;
}

void PolicyEditor::propose(const Policy &policy)
{
    loadPolicy(policy);
    revalidate();
}

void PolicyEditor::loadPolicy(const Policy &policy)
{
    m_name->setText(policy.name);
    m_algorithm->setCurrentIndex(m_algorithm->findData(static_cast<int>(policy.algorithm)));
    m_limit->setText(QString::number(policy.limit));
    m_windowUnit->setCurrentIndex(largestExactUnit(m_windowUnit, policy.windowMs));
    m_windowCount->setText(QString::number(policy.windowMs / m_windowUnit->currentData().toLongLong()));
    m_debt->setText(policy.maxDebt > 0 ? QString::number(policy.maxDebt) : QString());
    m_spread->setText(policy.spread > 0 ? QString::number(policy.spread) : QString());
    m_penaltyCount->clear();
    if (policy.blockMs > 0) {
        m_penaltyUnit->setCurrentIndex(largestExactUnit(m_penaltyUnit, policy.blockMs));
        m_penaltyCount->setText(QString::number(policy.blockMs / m_penaltyUnit->currentData().toLongLong()));
    }
    m_burst->setText(policy.burst > 0 && policy.burst != policy.limit ? QString::number(policy.burst) : QString());
    m_windowStart->setCurrentIndex(m_windowStart->findData(policy.calendar != model::Calendar::None
                                                               ? model::calendarName(policy.calendar)
                                                               : model::windowStartName(policy.windowStart)));
    m_utcOffset->setText(offsetText(policy.utcOffsetMinutes));
    m_anchorDay->setValue(policy.anchorDay);
    m_reserveCount->clear();
    if (policy.reserveTimeoutMs > 0) {
        m_reserveUnit->setCurrentIndex(largestExactUnit(m_reserveUnit, policy.reserveTimeoutMs));
        m_reserveCount->setText(QString::number(policy.reserveTimeoutMs / m_reserveUnit->currentData().toLongLong()));
    }
    m_overrides->setRules(policy.overrides);
    m_shadow->setChecked(policy.shadow);
    if (!policy.shadowOf.isEmpty() && m_shadowOf->findData(policy.shadowOf) < 0) // its live policy is gone
        m_shadowOf->addItem(tr("every call of %1 (not stored)").arg(policy.shadowOf), policy.shadowOf);
    m_shadowOf->setCurrentIndex(m_shadowOf->findData(policy.shadowOf));
    m_description->setText(policy.description);
}

void PolicyEditor::algorithmChanged()
{
    // What the limit, the window and the burst mean under each algorithm, in the operator's words.
    struct Wording {
        Algorithm algorithm;
        const char *help;
        const char *unit; // what the limit counts
    };
    static const Wording wordings[] = {
        {Algorithm::TokenBucket,
         QT_TR_NOOP("a bucket of tokens: Limit tokens refill every Window; Burst is the bucket's size"),
         QT_TR_NOOP("tokens")},
        {Algorithm::Gcra, QT_TR_NOOP("evenly spaced requests: Limit per Window, Burst of them at once"),
         QT_TR_NOOP("requests")},
        {Algorithm::LeakyBucket,
         QT_TR_NOOP("a queue: Limit requests drain every Window; Burst is the queue's size, and admitted "
                    "requests are told how long to wait"),
         QT_TR_NOOP("requests")},
        {Algorithm::FixedWindow, QT_TR_NOOP("a counter per Window, up to Limit"), QT_TR_NOOP("requests")},
        {Algorithm::SlidingLog, QT_TR_NOOP("exact: one entry per admitted request, Limit in any Window"),
         QT_TR_NOOP("requests")},
        {Algorithm::SlidingWindow, QT_TR_NOOP("weighted current and previous Window, about Limit in any Window"),
         QT_TR_NOOP("requests")},
        {Algorithm::Concurrency,
         QT_TR_NOOP("requests in flight: Limit leases at once; a lease not released expires after Window"),
         QT_TR_NOOP("leases")},
    };
    const auto algorithm = static_cast<Algorithm>(m_algorithm->currentData().toInt());
    for (const Wording &wording : wordings) {
        if (wording.algorithm != algorithm)
            continue;
        m_algorithmHelp->setText(tr(wording.help));
        m_limit->setPlaceholderText(tr(wording.unit));
    }
    m_burstLabel->setVisible(algorithmUsesBurst(algorithm));
    m_burstRow->setVisible(algorithmUsesBurst(algorithm));
    m_debtLabel->setVisible(algorithmSettles(algorithm));
    m_debtRow->setVisible(algorithmSettles(algorithm));
    m_windowStartLabel->setVisible(algorithm == Algorithm::FixedWindow);
    m_windowStart->setVisible(algorithm == Algorithm::FixedWindow);
    const auto calendar = algorithm == Algorithm::FixedWindow
        ? model::calendarFromName(m_windowStart->currentData().toString())
        : std::nullopt;
    for (QWidget *window : {static_cast<QWidget *>(m_windowLabel), static_cast<QWidget *>(m_windowCount),
                            static_cast<QWidget *>(m_windowUnit), static_cast<QWidget *>(m_windowError)})
        window->setVisible(!calendar);
    m_calendarLabel->setVisible(calendar.has_value());
    m_calendarRow->setVisible(calendar.has_value());
    m_anchorLabel->setVisible(calendar == model::Calendar::Month);
    m_anchorDay->setVisible(calendar == model::Calendar::Month);
    m_overrides->setBurstShown(algorithmUsesBurst(algorithm));
    revalidate();
}

std::optional<Policy> PolicyEditor::readForm(FieldErrors *errors) const
{
    Policy policy;
    if (m_base) {
        // What this form does not edit is kept as stored, never dropped by a save.
        policy.predictedRejectedShare = m_base->predictedRejectedShare;
    }
    policy.name = m_name->text().trimmed();
    policy.algorithm = static_cast<Algorithm>(m_algorithm->currentData().toInt());
    policy.shadow = m_shadow->isChecked();
    policy.shadowOf = m_shadowOf->currentData().toString();
    if (!policy.shadowOf.isEmpty() && !m_takenNames.contains(policy.shadowOf))
        errors->shadowOf = tr("no policy of that name is stored");
    if (policy.algorithm == Algorithm::FixedWindow) {
        const QString start = m_windowStart->currentData().toString();
        policy.windowStart = model::windowStartFromName(start).value_or(model::WindowStart::Aligned);
        policy.calendar = model::calendarFromName(start).value_or(model::Calendar::None);
    }
    if (policy.calendar != model::Calendar::None) {
        if (const auto offset = parseOffset(m_utcOffset->text(), &errors->calendar))
            policy.utcOffsetMinutes = *offset;
        if (policy.calendar == model::Calendar::Month)
            policy.anchorDay = m_anchorDay->value();
    }
    if (const auto overrides = m_overrides->rules(&errors->overrides))
        policy.overrides = *overrides;
    policy.description = m_description->text();
    if (!model::isValidPolicyName(policy.name))
        errors->name = policy.name.isEmpty() ? tr("required") : tr("1 to 64 letters, digits, '_', '.' or '-'");
    else if (m_takenNames.contains(policy.name))
        errors->name = tr("a policy with this name exists");
    if (const auto limit = parseWhole(m_limit->text(), 1, limits::maxLimit, &errors->limit))
        policy.limit = *limit;
    const qint64 unit = m_windowUnit->currentData().toLongLong();
    if (policy.calendar != model::Calendar::None)
        policy.windowMs = model::calendarNominalMs(policy.calendar);
    else if (const auto count = parseWhole(m_windowCount->text(), 1, limits::maxWindowMs / unit, &errors->window))
        policy.windowMs = *count * unit;
    if (!errors->window.isEmpty() && errors->window.startsWith(tr("at most")))
        errors->window
            = tr("at most one week (%1 %2)").arg(limits::maxWindowMs / unit).arg(m_windowUnit->currentText());
    const qint64 penaltyUnit = m_penaltyUnit->currentData().toLongLong();
    policy.blockMs = 0;
    if (!m_penaltyCount->text().trimmed().isEmpty()) {
        if (const auto count
            = parseWhole(m_penaltyCount->text(), 1, limits::maxBlockMs / penaltyUnit, &errors->penalty))
            policy.blockMs = *count * penaltyUnit;
    }
    policy.maxDebt = 0;
    if (algorithmSettles(policy.algorithm) && !m_debt->text().trimmed().isEmpty()) {
        if (const auto debt = parseWhole(m_debt->text(), 1, limits::maxBurst, &errors->debt))
            policy.maxDebt = *debt;
    }
    policy.reserveTimeoutMs = 0;
    const qint64 reserveUnit = m_reserveUnit->currentData().toLongLong();
    if (algorithmSettles(policy.algorithm) && !m_reserveCount->text().trimmed().isEmpty()) {
        if (const auto count
            = parseWhole(m_reserveCount->text(), 1, limits::maxWindowMs / reserveUnit, &errors->reserve))
            policy.reserveTimeoutMs = *count * reserveUnit;
    }
    if (algorithmUsesBurst(policy.algorithm) && !m_burst->text().trimmed().isEmpty()) {
        if (const auto burst = parseWhole(m_burst->text(), 1, limits::maxBurst, &errors->burst))
            policy.burst = *burst;
    }
    policy.spread = 0;
    if (!m_spread->text().trimmed().isEmpty()) {
        if (const auto spread = parseWhole(m_spread->text(), 1, limits::maxSpread, &errors->spread))
            policy.spread = *spread == 1 ? 0 : int(*spread); // one bucket is no spread
    }
    if (policy.description.size() > limits::maxDescriptionLength)
        errors->description
            = tr("at most %1 characters (this is %2)").arg(limits::maxDescriptionLength).arg(policy.description.size());
    if (errors->any())
        return std::nullopt;
    // What only the whole policy can tell (products that must stay exact, stored entries).
    for (const model::PolicyError &problem : model::validatePolicy(policy)) {
        QString &slot = problem.field == QLatin1String("burst")    ? errors->burst
            : problem.field == QLatin1String("window_ms")          ? errors->window
            : problem.field == QLatin1String("name")               ? errors->name
            : problem.field == QLatin1String("shadow_of")          ? errors->shadowOf
            : problem.field == QLatin1String("block_ms")           ? errors->penalty
            : problem.field == QLatin1String("max_debt")           ? errors->debt
            : problem.field == QLatin1String("reserve_timeout_ms") ? errors->reserve
            : problem.field == QLatin1String("overrides")          ? errors->overrides
            : problem.field == QLatin1String("spread")             ? errors->spread
            : problem.field == QLatin1String("calendar") || problem.field == QLatin1String("utc_offset_minutes")
                || problem.field == QLatin1String("anchor_day")
            ? errors->calendar
            : errors->limit;
        slot = problem.message;
    }
    if (errors->any())
        return std::nullopt;
    return policy;
}

std::optional<Policy> PolicyEditor::formPolicy() const
{
    FieldErrors errors;
    return readForm(&errors);
}

void PolicyEditor::revalidate()
{
    FieldErrors errors;
    const std::optional<Policy> policy = readForm(&errors);
    showError(m_nameError, errors.name);
    showError(m_limitError, errors.limit);
    showError(m_windowError, errors.window);
    showError(m_burstError, errors.burst);
    showError(m_shadowOfError, errors.shadowOf);
    showError(m_penaltyError, errors.penalty);
    showError(m_spreadError, errors.spread);
    showError(m_debtError, errors.debt.isEmpty() ? errors.reserve : errors.debt);
    showError(m_calendarError, errors.calendar);
    // The table names its own rows' problems; the policy's bounds for an override come from here.
    QString rowProblem;
    m_overrides->setOuterProblem(m_overrides->rules(&rowProblem) ? errors.overrides : QString());
    const int overrideCount = m_overrides->rules(&rowProblem).value_or(QVector<model::SubjectOverride>()).size();
    m_tabs->setTabText(1,
                       errors.overrides.isEmpty() ? tr("&Overrides (%1)").arg(overrideCount) : tr("&Overrides \u26a0"));
    showError(m_descriptionError, errors.description);
    m_saveButton->setEnabled(policy.has_value() && m_writable);
    const auto algorithm = static_cast<Algorithm>(m_algorithm->currentData().toInt());
    m_useSlidingWindow->setVisible(algorithm == Algorithm::FixedWindow && m_writable);
    // While numbers are wrong, the warnings that do not depend on them (the algorithm's, shadow
    // mode's) still apply; neutral numbers stand in for the rest.
    Policy linted;
    if (policy) {
        linted = *policy;
    } else {
        linted.algorithm = algorithm;
        linted.shadow = m_shadow->isChecked();
        linted.limit = 1;
        linted.windowMs = 1000;
    }
    m_summary->setText(policy ? model::describePolicy(*policy)
                              : tr("Fix the fields marked in red to see what this policy does."));
    QStringList warnings;
    for (const model::PolicyWarning &warning : model::lintPolicy(linted, policy ? m_typicalCost->value() : 1))
        warnings << QStringLiteral("\u26a0 ") + warning.message.toHtmlEscaped();
    m_lint->setText(warnings.join(QStringLiteral("<br>")));
    m_lint->setVisible(!warnings.isEmpty());
}

void PolicyEditor::setSaveError(const QString &message, Tone tone)
{
    m_saveStatus->setStyleSheet(textStyle(tone));
    m_saveStatus->setText(message);
    m_saveStatus->setVisible(!message.isEmpty());
}

void PolicyEditor::save()
{
    const std::optional<Policy> policy = formPolicy();
    if (!policy || !m_writable || !m_session)
        return;
    const bool renamed = m_base && m_base->name != policy->name;
    if (m_base && !m_base->unknownFields.isEmpty()) {
        setSaveError(model::unknownFieldsProblem(*m_base).toString(), Tone::Error);
        return;
    }
    if (m_base && m_base->sameDefinition(*policy)) {
        // Not a failure: the form simply matches what is stored.
        setSaveError(tr("Nothing to save: the form matches version %1.").arg(m_base->version), Tone::Muted);
        return;
    }
    PolicyDiffDialog::Content content;
    content.title = tr("Save policy");
    content.intro = m_base
        ? tr("Save these changes to \u201c%1\u201d (version %2)?").arg(m_base->name).arg(m_base->version)
        : tr("Create policy \u201c%1\u201d?").arg(policy->name);
    content.beforeLabel = m_base ? tr("Stored (version %1)").arg(m_base->version) : tr("Stored");
    content.afterLabel = tr("After saving");
    content.changes = model::diffPolicies(m_base ? &*m_base : nullptr, &*policy);
    if (renamed)
        content.warning
            = tr("Renaming creates \u201c%1\u201d with empty buckets and deletes \u201c%2\u201d. Services that call "
                 "\u201c%2\u201d are refused as an unknown policy once the library is published.")
                  .arg(policy->name, m_base->name);
    content.confirmText = tr("Save");
    auto *diff = new PolicyDiffDialog(content, this);
    diff->setAttribute(Qt::WA_DeleteOnClose);
    connect(diff, &QDialog::accepted, this, [this, policy = *policy] { commit(policy); });
    diff->open();
}

void PolicyEditor::commit(const Policy &policy)
{
    if (!m_session)
        return;
    QVector<model::PolicyChange> changes;
    const bool renamed = m_base && m_base->name != policy.name;
    changes.append({model::PolicyChange::Kind::Put, policy, renamed || !m_base ? 0 : m_base->version});
    if (renamed)
        changes.append({model::PolicyChange::Kind::Delete, *m_base, m_base->version});
    const QString what = m_base ? tr("save policy \u201c%1\u201d").arg(policy.name)
                                : tr("create policy \u201c%1\u201d").arg(policy.name);
    setSaveError(QString());
    commitPolicyChanges(this, m_session, what, changes, [this, policy](const model::PolicyStore::CommitResult &result) {
        if (result.failure && result.failure->kind == model::Failure::Kind::Conflict) {
            showConflict(policy);
            return;
        }
        if (result.failure) {
            setSaveError(commitFailureText(*result.failure));
            return;
        }
        Q_EMIT saved(policy.name);
        accept();
    });
}

void PolicyEditor::showConflict(const Policy &mine)
{
    if (!m_session)
        return;
    // What is stored now under the name the save was based on (or, for a new one, under its name).
    const QString storedName = m_base ? m_base->name : mine.name;
    m_session->policyStore().read(storedName, this, [this, mine](const model::PolicyStore::ReadResult &stored) {
        if (stored.failure) {
            setSaveError(
                tr("Someone saved in between, and reading their version failed: %1").arg(stored.failure->message));
            return;
        }
        auto *dialog = new ConflictDialog(m_base, stored.policy, mine, this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &ConflictDialog::chosen, this,
                [this, mine, theirs = stored.policy](ConflictDialog::Choice choice) {
            switch (choice) {
            case ConflictDialog::Choice::Reload:
                if (!theirs) {
                    QDialog::reject(); // what was edited is gone: nothing left to discard
                    return;
                }
                m_base = theirs;
                loadPolicy(*theirs);
                m_loadedState = fieldState();
                setSaveError(QString());
                break;
            case ConflictDialog::Choice::Overwrite:
                m_base = theirs;
                if (!theirs)
                    m_takenNames.removeAll(mine.name);
                commit(mine);
                break;
            case ConflictDialog::Choice::KeepEditing:
                // The next save is compared with, and based on, their version.
                m_base = theirs;
                setSaveError(
                    theirs ? tr("Your next save replaces version %1 by %2.").arg(theirs->version).arg(theirs->updatedBy)
                           : tr("The policy was deleted; your next save creates it again."));
                break;
            }
            if (m_base)
                m_takenNames.removeAll(m_base->name);
            setWindowTitle(m_base ? tr("Policy \u201c%1\u201d").arg(m_base->name) : tr("New policy"));
            revalidate();
        });
        dialog->open();
    });
}

} // namespace sluice::ui
