// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/policy/policy_editor.h"

#include "model/policy/policy_diff.h"
#include "model/policy/policy_lint.h"
#include "model/policy/policy_summary.h"
#include "ui/policy/conflict_dialog.h"
#include "ui/policy/policy_commit.h"
#include "ui/policy/policy_diff_dialog.h"
#include "ui/widgets/banner.h"
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
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
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

} // namespace

bool PolicyEditor::FieldErrors::any() const
{
    return !name.isEmpty() || !limit.isEmpty() || !window.isEmpty() || !burst.isEmpty() || !shadowOf.isEmpty()
        || !penalty.isEmpty() || !debt.isEmpty() || !description.isEmpty();
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
    layout->addLayout(createFields());

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
    layout->addStretch();

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
              static_cast<QWidget *>(m_description), static_cast<QWidget *>(m_useSlidingWindow)})
            field->setEnabled(false);
        m_saveButton->setToolTip(tr("This connection is read-only."));
    }

    for (QLineEdit *edit : {m_name, m_limit, m_windowCount, m_burst, m_penaltyCount, m_debt, m_description})
        connect(edit, &QLineEdit::textChanged, this, &PolicyEditor::revalidate);
    connect(m_algorithm, &QComboBox::currentIndexChanged, this, &PolicyEditor::algorithmChanged);
    connect(m_windowUnit, &QComboBox::currentIndexChanged, this, &PolicyEditor::revalidate);
    connect(m_penaltyUnit, &QComboBox::currentIndexChanged, this, &PolicyEditor::revalidate);
    connect(m_windowStart, &QComboBox::currentIndexChanged, this, &PolicyEditor::revalidate);
    connect(m_shadow, &QCheckBox::toggled, this, &PolicyEditor::revalidate);
    connect(m_shadowOf, &QComboBox::currentIndexChanged, this, &PolicyEditor::revalidate);
    connect(m_typicalCost, &QSpinBox::valueChanged, this, &PolicyEditor::revalidate);
    algorithmChanged();
    resize(680, 440);
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
    m_limit->setMaximumWidth(160);
    m_limitError = errorLabel(this, "limitError");
    form->addRow(m_limitLabel, fieldWithError(m_limit, m_limitError));

    m_windowLabel = new QLabel(tr("Window"), this);
    m_windowCount = named(new QLineEdit(this), "windowCountEdit");
    m_windowCount->setMaximumWidth(100);
    m_windowUnit = named(new QComboBox(this), "windowUnitCombo");
    for (const WindowUnit &unit : windowUnits)
        m_windowUnit->addItem(tr(unit.name), unit.ms);
    m_windowUnit->setMaximumWidth(160);
    m_windowError = errorLabel(this, "windowError");
    form->addRow(m_windowLabel, fieldWithError(m_windowCount, m_windowError, m_windowUnit));

    m_burstLabel = new QLabel(tr("Burst"), this);
    m_burst = named(new QLineEdit(this), "burstEdit");
    m_burst->setMaximumWidth(160);
    m_burst->setPlaceholderText(tr("same as the limit"));
    m_burstError = errorLabel(this, "burstError");
    m_burstRow = fieldWithError(m_burst, m_burstError);
    form->addRow(m_burstLabel, m_burstRow);

    // Only a fixed window has a start to choose; aligned first, the default (see model::WindowStart).
    m_windowStartLabel = new QLabel(tr("Window start"), this);
    m_windowStart = named(new QComboBox(this), "windowStartCombo");
    m_windowStart->addItem(tr("Aligned to the clock (the same windows for every subject)"),
                           static_cast<int>(model::WindowStart::Aligned));
    m_windowStart->addItem(tr("At each subject's first call (cheapest)"),
                           static_cast<int>(model::WindowStart::FirstCall));
    m_windowStart->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed); // as wide as its longest choice
    m_windowStartLabel->setBuddy(m_windowStart);
    form->addRow(m_windowStartLabel, m_windowStart);

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
    m_debt->setMaximumWidth(160);
    m_debt->setPlaceholderText(tr("none"));
    m_debtLabel->setBuddy(m_debt);
    m_debtError = errorLabel(this, "debtError");
    m_debtRow = fieldWithError(m_debt, m_debtError);
    form->addRow(m_debtLabel, m_debtRow);

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
    m_penaltyCount->clear();
    if (policy.blockMs > 0) {
        m_penaltyUnit->setCurrentIndex(largestExactUnit(m_penaltyUnit, policy.blockMs));
        m_penaltyCount->setText(QString::number(policy.blockMs / m_penaltyUnit->currentData().toLongLong()));
    }
    m_burst->setText(policy.burst > 0 && policy.burst != policy.limit ? QString::number(policy.burst) : QString());
    m_windowStart->setCurrentIndex(m_windowStart->findData(static_cast<int>(policy.windowStart)));
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
    revalidate();
}

std::optional<Policy> PolicyEditor::readForm(FieldErrors *errors) const
{
    Policy policy;
    if (m_base) {
        // What this form does not edit is kept as stored, never dropped by a save.
        policy.predictedRejectedShare = m_base->predictedRejectedShare;
        policy.overrides = m_base->overrides;
        policy.reserveTimeoutMs = m_base->reserveTimeoutMs;
        policy.calendar = m_base->calendar;
        policy.utcOffsetMinutes = m_base->utcOffsetMinutes;
        policy.anchorDay = m_base->anchorDay;
    }
    policy.name = m_name->text().trimmed();
    policy.algorithm = static_cast<Algorithm>(m_algorithm->currentData().toInt());
    policy.shadow = m_shadow->isChecked();
    policy.shadowOf = m_shadowOf->currentData().toString();
    if (!policy.shadowOf.isEmpty() && !m_takenNames.contains(policy.shadowOf))
        errors->shadowOf = tr("no policy of that name is stored");
    if (policy.algorithm == Algorithm::FixedWindow)
        policy.windowStart = static_cast<model::WindowStart>(m_windowStart->currentData().toInt());
    policy.description = m_description->text();
    if (!model::isValidPolicyName(policy.name))
        errors->name = policy.name.isEmpty() ? tr("required") : tr("1 to 64 letters, digits, '_', '.' or '-'");
    else if (m_takenNames.contains(policy.name))
        errors->name = tr("a policy with this name exists");
    if (const auto limit = parseWhole(m_limit->text(), 1, limits::maxLimit, &errors->limit))
        policy.limit = *limit;
    const qint64 unit = m_windowUnit->currentData().toLongLong();
    if (const auto count = parseWhole(m_windowCount->text(), 1, limits::maxWindowMs / unit, &errors->window))
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
    if (algorithmUsesBurst(policy.algorithm) && !m_burst->text().trimmed().isEmpty()) {
        if (const auto burst = parseWhole(m_burst->text(), 1, limits::maxBurst, &errors->burst))
            policy.burst = *burst;
    }
    if (policy.description.size() > limits::maxDescriptionLength)
        errors->description
            = tr("at most %1 characters (this is %2)").arg(limits::maxDescriptionLength).arg(policy.description.size());
    if (errors->any())
        return std::nullopt;
    // What only the whole policy can tell (products that must stay exact, stored entries).
    for (const model::PolicyError &problem : model::validatePolicy(policy)) {
        QString &slot = problem.field == QLatin1String("burst") ? errors->burst
            : problem.field == QLatin1String("window_ms")       ? errors->window
            : problem.field == QLatin1String("name")            ? errors->name
            : problem.field == QLatin1String("shadow_of")       ? errors->shadowOf
            : problem.field == QLatin1String("block_ms")        ? errors->penalty
            : problem.field == QLatin1String("max_debt")        ? errors->debt
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
    showError(m_debtError, errors.debt);
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
                    reject();
                    return;
                }
                m_base = theirs;
                loadPolicy(*theirs);
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
