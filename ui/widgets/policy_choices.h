// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QSet>
#include <QString>

class QComboBox;
class QWidget;

namespace sluice::ui {

// The policy drop-downs (Live, Watched keys, Key inspector): each policy item's data is the policy's name,
// its text the name as shown, a shadow policy marked "[shadow]" as on the Overview. Other items (a "All
// policies" or a seed layout) have no such data and stay where they are.
QString shownPolicyName(const QString &policy, const QSet<QString> &shadow);
// An empty drop-down of policies, named for tests and screen readers, that elides long names in the middle;
// its first item, `none`, chooses no policy (addPoliciesInNameOrder's `first` is then 1).
QComboBox *policyDropDown(QWidget *parent, const QString &objectName, const QString &accessibleName,
                          const QString &none);
// Adds the policies among the policy items from `first` on, in name order, those not listed yet. Called on every
// reading with every policy: it looks each up in a set of the listed ones, not through the items (a lookup per
// item made a reading of 1,000 policies cost tens of ms per drop-down).
void addPoliciesInNameOrder(QComboBox *box, const QStringList &policies, const QSet<QString> &shadow, int first = 0);
// Marks and unmarks every policy item after the published shadow policies changed.
void markShadowPolicies(QComboBox *box, const QSet<QString> &shadow);
// The chosen policy's name, or nothing when the item chosen is not a policy.
QString chosenPolicy(const QComboBox *box);

} // namespace sluice::ui
