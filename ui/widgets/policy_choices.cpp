// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/widgets/policy_choices.h"

#include "model/policy/policy_summary.h"
#include "ui/widgets/long_names.h"

#include <QComboBox>

namespace sluice::ui {

namespace {

QString policyAt(const QComboBox *box, int index)
{
    const QVariant data = box->itemData(index);
    return data.typeId() == QMetaType::QString ? data.toString() : QString();
}

} // namespace

QString shownPolicyName(const QString &policy, const QSet<QString> &shadow)
{
    return shadow.contains(policy) ? model::withShadowMark(policy) : policy;
}

QComboBox *policyDropDown(QWidget *parent, const QString &objectName, const QString &accessibleName,
                          const QString &none)
{
    auto *box = new QComboBox(parent);
    box->setObjectName(objectName);
    box->setAccessibleName(accessibleName);
    box->setMinimumContentsLength(16);
    elideInTheMiddle(box);
    box->addItem(none);
    return box;
}

void addPoliciesInNameOrder(QComboBox *box, const QStringList &policies, const QSet<QString> &shadow, int first)
{
    QSet<QString> listed;
    for (int index = first; index < box->count(); ++index)
        listed.insert(policyAt(box, index));
    for (const QString &policy : policies) {
        if (listed.contains(policy))
            continue;
        int at = first;
        while (at < box->count() && !policyAt(box, at).isEmpty() && policyAt(box, at) < policy)
            ++at;
        box->insertItem(at, shownPolicyName(policy, shadow), policy);
        listed.insert(policy);
    }
}

void markShadowPolicies(QComboBox *box, const QSet<QString> &shadow)
{
    for (int index = 0; index < box->count(); ++index)
        if (const QString policy = policyAt(box, index); !policy.isEmpty())
            box->setItemText(index, shownPolicyName(policy, shadow));
}

QString chosenPolicy(const QComboBox *box)
{
    return box->currentIndex() < 0 ? QString() : policyAt(box, box->currentIndex());
}

} // namespace sluice::ui
