// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/widgets/policy_choices.h"

#include <QComboBox>
#include <QCoreApplication>

namespace sluice::ui {

namespace {

struct Text {
    Q_DECLARE_TR_FUNCTIONS(sluice::ui::PolicyChoices)
};

QString policyAt(const QComboBox *box, int index)
{
    const QVariant data = box->itemData(index);
    return data.typeId() == QMetaType::QString ? data.toString() : QString();
}

} // namespace

QString shownPolicyName(const QString &policy, const QSet<QString> &shadow)
{
    return shadow.contains(policy) ? Text::tr("%1 [shadow]").arg(policy) : policy;
}

void addPolicyInNameOrder(QComboBox *box, const QString &policy, const QSet<QString> &shadow, int first)
{
    if (box->findData(policy) >= 0)
        return;
    int at = first;
    while (at < box->count() && !policyAt(box, at).isEmpty() && policyAt(box, at) < policy)
        ++at;
    box->insertItem(at, shownPolicyName(policy, shadow), policy);
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
