#include "ui/fire_target_picker.h"

#include "model/policy/policy_summary.h"
#include "ui/count_field.h"

#include <QComboBox>
#include <QGridLayout>
#include <QLabel>
#include <QSpinBox>

namespace sluice::ui {

namespace {

// The combo's item data: "policy:<name>", "seed:<layout>", or empty for nothing.
const QString policyTag = QStringLiteral("policy:");
const QString seedTag = QStringLiteral("seed:");
constexpr model::SeedLayout seedLayouts[] = {model::SeedLayout::ScgTokenBucket, model::SeedLayout::FixedWindowCounter,
                                             model::SeedLayout::MsTokenBucket};

} // namespace

FireTargetPicker::FireTargetPicker(const QString &name, bool optional, QWidget *parent)
    : QWidget(parent), m_optional(optional)
{
    m_choice = new QComboBox(this);
    m_choice->setObjectName(name + QStringLiteral("Choice"));
    m_choice->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_choice->setMinimumContentsLength(18);
    m_firstLabel = new QLabel(this);
    m_first = countField(this, name + QStringLiteral("First"), 1, 1'000'000'000, 10);
    m_secondLabel = new QLabel(this);
    m_second = countField(this, name + QStringLiteral("Second"), 1, 1'000'000'000, 20);
    m_skewLabel = new QLabel(tr("Clock skew"), this);
    m_skew = countField(this, name + QStringLiteral("Skew"), 0, 3'600'000, 0, tr(" ms"));
    m_skew->setToolTip(tr("The callers' clocks disagree by up to this much: connection k of C runs k \u00d7 skew / (C "
                          "\u2212 1) ms ahead. "
                          "Only the ms bucket reads its callers' clocks."));

    auto *layout = new QGridLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_choice, 0, 0, 1, 2);
    layout->addWidget(m_firstLabel, 1, 0);
    layout->addWidget(m_first, 1, 1);
    layout->addWidget(m_secondLabel, 2, 0);
    layout->addWidget(m_second, 2, 1);
    layout->addWidget(m_skewLabel, 3, 0);
    layout->addWidget(m_skew, 3, 1);
    layout->setColumnStretch(1, 1);

    setPolicies({});
    connect(m_choice, &QComboBox::activated, this, [this] { m_chosen = true; });
    connect(m_choice, &QComboBox::currentIndexChanged, this, [this] {
        showParameters();
        Q_EMIT changed();
    });
    for (QSpinBox *box : {m_first, m_second, m_skew})
        connect(box, &QSpinBox::valueChanged, this, &FireTargetPicker::changed);
}

void FireTargetPicker::setPolicies(const QVector<model::Policy> &policies)
{
    // The operator's choice is kept; before one, the first entry (a policy, once they are read).
    const QString kept = m_chosen ? m_choice->currentData().toString() : QString();
    m_policies = policies;
    const QSignalBlocker quiet(m_choice);
    m_choice->clear();
    if (m_optional)
        m_choice->addItem(tr("nothing (one target)"), QString());
    for (const model::Policy &policy : policies)
        m_choice->addItem(QStringLiteral("%1 \u2014 %2 %3/%4").arg(policy.name, model::algorithmName(policy.algorithm))
                              .arg(policy.limit).arg(model::durationText(policy.windowMs, true)),
                          policyTag + policy.name);
    if (!policies.isEmpty())
        m_choice->insertSeparator(m_choice->count());
    for (model::SeedLayout layout : seedLayouts)
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
            if (policy.name == name)
                return model::FireTarget::forPolicy(policy);
    }
    for (model::SeedLayout layout : seedLayouts) {
        if (data != seedTag + model::seedLayoutName(layout))
            continue;
        model::FireTarget target = layout == model::SeedLayout::FixedWindowCounter
            ? model::FireTarget::forSeedScript(layout, m_first->value(), m_second->value() * 1000LL, m_first->value())
            : model::FireTarget::forSeedScript(layout, m_first->value(), 1000, m_second->value());
        target.clockSkewMs = layout == model::SeedLayout::MsTokenBucket ? m_skew->value() : 0;
        return target;
    }
    return std::nullopt;
}

void FireTargetPicker::showParameters()
{
    const QString data = m_choice->currentData().toString();
    const bool seed = data.startsWith(seedTag);
    const bool counter = data == seedTag + model::seedLayoutName(model::SeedLayout::FixedWindowCounter);
    const bool clocks = data == seedTag + model::seedLayoutName(model::SeedLayout::MsTokenBucket);
    m_firstLabel->setText(counter ? tr("Limit") : tr("Rate"));
    m_first->setSuffix(counter ? tr(" calls") : tr(" /s"));
    m_secondLabel->setText(counter ? tr("Window") : tr("Capacity"));
    m_second->setSuffix(counter ? tr(" s") : QString());
    for (QWidget *widget : {static_cast<QWidget *>(m_firstLabel), static_cast<QWidget *>(m_first),
                            static_cast<QWidget *>(m_secondLabel), static_cast<QWidget *>(m_second)})
        widget->setVisible(seed);
    m_skewLabel->setVisible(clocks);
    m_skew->setVisible(clocks);
}

} // namespace sluice::ui
