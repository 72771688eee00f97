#include "model/policy/policy_plan.h"

#include <QHash>
#include <QSet>

namespace sluice::model {

PolicyPlan PolicyPlan::between(const QVector<Policy> &stored, const QVector<Policy> &desired, bool prune)
{
    QHash<QString, Policy> storedByName;
    for (const Policy &policy : stored)
        storedByName.insert(policy.name, policy);

    PolicyPlan plan;
    QSet<QString> desiredNames;
    for (const Policy &policy : desired) {
        desiredNames.insert(policy.name);
        const auto it = storedByName.constFind(policy.name);
        if (it == storedByName.cend()) {
            plan.created << policy.name;
            plan.changes.append({PolicyChange::Kind::Put, policy, 0});
        } else if (it->sameDefinition(policy)) {
            plan.unchanged << policy.name;
        } else {
            plan.updated << policy.name;
            plan.changes.append({PolicyChange::Kind::Put, policy, it->version});
        }
    }
    if (prune) {
        for (const Policy &policy : stored) {
            if (desiredNames.contains(policy.name))
                continue;
            plan.deleted << policy.name;
            plan.changes.append({PolicyChange::Kind::Delete, policy, policy.version});
        }
    }
    return plan;
}

} // namespace sluice::model
