// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/fire/fire_target_picker.h"

#include "model/format/units.h"
#include "model/policy/policy_summary.h"
#include "ui/widgets/count_field.h"
#include "ui/widgets/long_names.h"

#include <QComboBox>
#include <QGridLayout>
#include <QLabel>
#include <QSpinBox>

namespace sluice::ui {

namespace {

// The combo's item data: "policy:<name>", "seed:<layout>", or empty for nothing.
const QString policyTag = QStringLiteral("policy:");
const QString seedTag = QStringLiteral("seed:");

constexpr int maxCount = 1'000'000'000; // policy_limits::maxLimit and maxBurst
constexpr int maxSeconds = 604'800;     // policy_limits::maxWindowMs

// A parameter field's label, unit and largest value.
struct Field {
    QString label;
    QString suffix;
    int maximum;
};

// The fields of a layout's parameters, in seedParameterForm()'s order.
QVector<Field> parameterFields(model::SeedLayout layout)
{
    switch (layout) {
    case model::SeedLayout::ScgTokenBucket:
    case model::SeedLayout::MsTokenBucket:
        return {{FireTargetPicker::tr("Rate"), FireTargetPicker::tr(" /s"), maxCount},
                {FireTargetPicker::tr("Capacity"), {}, maxCount}};
    case model::SeedLayout::FixedWindowCounter:
        return {{FireTargetPicker::tr("Limit"), FireTargetPicker::tr(" calls"), maxCount},
                {FireTargetPicker::tr("Window"), FireTargetPicker::tr(" s"), maxSeconds}};
    case model::SeedLayout::IntervalTokenBucket:
        return {{FireTargetPicker::tr("Capacity"), {}, maxCount},
                {FireTargetPicker::tr("Add"), FireTargetPicker::tr(" tokens"), maxCount},
                {FireTargetPicker::tr("Every"), FireTargetPicker::tr(" s"), maxSeconds}};
    }
    return {};
}

} // namespace

FireTargetPicker::FireTargetPicker(const QString &name, bool optional, QWidget *parent)
    : QWidget(parent)
    , m_optional(optional)
{
    m_choice = new QComboBox(this);
    m_choice->setObjectName(name + QStringLiteral("Choice"));
    m_choice->setMinimumContentsLength(18);
    elideInTheMiddle(m_choice);
    m_firstLabel = new QLabel(this);
    m_first = countField(this, name + QStringLiteral("First"), 1, maxCount, 10);
    m_secondLabel = new QLabel(this);
    m_second = countField(this, name + QStringLiteral("Second"), 1, maxCount, 20);
    m_thirdLabel = new QLabel(this);
    m_third = countField(this, name + QStringLiteral("Third"), 1, maxCount, 1);
    m_skewLabel = new QLabel(tr("Clock skew"), this);
    m_skew = countField(this, name + QStringLiteral("Skew"), 0, 3'600'000, 0, tr(" ms"));
    m_skew->setToolTip(tr("The callers' clocks disagree by up to this much: connection k of C runs k \u00d7 skew / (C "
                          "\u2212 1) ms ahead. "
                          "Only the ms and interval buckets read their callers' clocks."));

    auto *layout = new QGridLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_choice, 0, 0, 1, 2);
    layout->addWidget(m_firstLabel, 1, 0);
    layout->addWidget(m_first, 1, 1);
    layout->addWidget(m_secondLabel, 2, 0);
    layout->addWidget(m_second, 2, 1);
    layout->addWidget(m_thirdLabel, 3, 0);
    layout->addWidget(m_third, 3, 1);
    layout->addWidget(m_skewLabel, 4, 0);
    layout->addWidget(m_skew, 4, 1);
    layout->setColumnStretch(1, 1);

    setPolicies({});
    connect(m_choice, &QComboBox::activated, this, [this] { m_chosen = true; });
    connect(m_choice, &QComboBox::currentIndexChanged, this, [this] {
        showParameters();
        Q_EMIT changed();
    });
    for (QSpinBox *box : {m_first, m_second, m_third, m_skew})
        connect(box, &QSpinBox::valueChanged, this, &FireTargetPicker::changed);
}

void FireTargetPicker::setPolicies(const QVector<model::Policy> &policies, const QVector<model::SubjectOverride> &lists)
{
    m_lists = lists;
    // The operator's choice is kept; before one, the first entry (a policy, once they are read).
    const QString kept = m_chosen ? m_choice->currentData().toString() : QString();
    m_policies = policies;
    const QSignalBlocker quiet(m_choice);
    m_choice->clear();
    if (m_optional)
        m_choice->addItem(tr("nothing (one target)"), QString());
    for (const model::Policy &policy : policies) {
        // A shadow policy says so: in the test-fire key space it rejects as if enforcing, on real keys it
        // admits everything.
        QString text = QStringLiteral("%1 \u2014 %2 %3/%4")
                           .arg(policy.name, model::algorithmName(policy.algorithm))
                           .arg(model::formatCount(policy.limit), model::windowInWords(policy, true));
        if (policy.shadow)
            text += tr(" (shadow)");
        m_choice->addItem(text, policyTag + policy.name);
    }
    if (!policies.isEmpty())
        m_choice->insertSeparator(m_choice->count());
    for (model::SeedLayout layout : model::seedLayouts)
        m_choice->addItem(tr("seed script: %1").arg(model::seedLayoutName(layout)),
                          seedTag + model::seedLayoutName(layout));
    const int index = kept.isEmpty() ? -1 : m_choice->findData(kept);
    m_choice->setCurrentIndex(index >= 0 ? index : 0);
    showParameters();
    if (index < 0 || kept.isEmpty())
        Q_EMIT changed();
}

bool FireTargetPicker::choose(const QString &name)
{
    int index = m_choice->findData(policyTag + name);
    if (index < 0)
        index = m_choice->findData(seedTag + name);
    if (index < 0)
        return false;
    m_chosen = true;
    m_choice->setCurrentIndex(index);
    return true;
}

std::optional<model::FireTarget> FireTargetPicker::target() const
{
    const QString data = m_choice->currentData().toString();
    if (data.startsWith(policyTag)) {
        const QString name = data.mid(policyTag.size());
        for (const model::Policy &policy : m_policies)
            if (policy.name == name) {
                model::FireTarget target = model::FireTarget::forPolicy(policy);
                target.namespaceLists = m_lists;
                return target;
            }
    }
    const std::optional<model::SeedLayout> layout = chosenLayout();
    if (!layout)
        return std::nullopt;
    const QSpinBox *boxes[] = {m_first, m_second, m_third};
    QVector<qint64> numbers;
    for (int i = 0; i < parameterFields(*layout).size(); ++i)
        numbers << boxes[i]->value();
    // The boxes' ranges (showParameters()) keep every number valid.
    const std::optional<model::SeedParameters> parameters = model::seedParameters(*layout, numbers);
    if (!parameters)
        return std::nullopt;
    model::FireTarget target
        = model::FireTarget::forSeedScript(*layout, parameters->limit, parameters->windowMs, parameters->burst);
    target.clockSkewMs = model::seedLayoutReadsCallerClock(*layout) ? m_skew->value() : 0;
    return target;
}

std::optional<model::SeedLayout> FireTargetPicker::chosenLayout() const
{
    const QString data = m_choice->currentData().toString();
    for (model::SeedLayout layout : model::seedLayouts)
        if (data == seedTag + model::seedLayoutName(layout))
            return layout;
    return std::nullopt;
}

void FireTargetPicker::showParameters()
{
    const std::optional<model::SeedLayout> layout = chosenLayout();
    const QVector<Field> fields = layout ? parameterFields(*layout) : QVector<Field>();
    QLabel *labels[] = {m_firstLabel, m_secondLabel, m_thirdLabel};
    QSpinBox *boxes[] = {m_first, m_second, m_third};
    for (int i = 0; i < 3; ++i) {
        if (i < fields.size()) {
            labels[i]->setText(fields.at(i).label);
            boxes[i]->setSuffix(fields.at(i).suffix);
            boxes[i]->setMaximum(fields.at(i).maximum);
        }
        labels[i]->setVisible(i < fields.size());
        boxes[i]->setVisible(i < fields.size());
    }
    const bool clocks = layout && model::seedLayoutReadsCallerClock(*layout);
    m_skewLabel->setVisible(clocks);
    m_skew->setVisible(clocks);
}

} // namespace sluice::ui
