// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/policy/policy_plan.h"

#include "model/limiter/limiter_library.h"

#include <QCoreApplication>
#include <QHash>
#include <QSet>

namespace sluice::model {

namespace {

// This file's strings, under the context a translator sees them in.
struct Text {
    Q_DECLARE_TR_FUNCTIONS(sluice::model::PolicyPlan)
};

} // namespace

PolicyPlan PolicyPlan::between(const PolicyStore::ListResult &stored, const QVector<Policy> &desired, bool prune)
{
    QHash<QString, Policy> storedByName;
    for (const Policy &policy : stored.policies)
        storedByName.insert(policy.name, policy);
    QHash<QString, DamagedPolicy> damagedByName;
    for (const DamagedPolicy &policy : stored.damaged)
        damagedByName.insert(policy.name, policy);

    PolicyPlan plan;
    QVector<PolicyChange> checks;
    QSet<QString> desiredNames;
    for (const Policy &policy : desired) {
        desiredNames.insert(policy.name);
        const auto it = storedByName.constFind(policy.name);
        if (const auto damaged = damagedByName.constFind(policy.name); damaged != damagedByName.cend()) {
            plan.updated << policy.name;
            plan.repaired << policy.name;
            plan.changes.append({PolicyChange::Kind::Put, policy, damaged->version});
        } else if (it == storedByName.cend()) {
            plan.created << policy.name;
            plan.changes.append({PolicyChange::Kind::Put, policy, 0});
        } else if (it->sameDefinition(policy)) {
            plan.unchanged << policy.name;
            checks.append({PolicyChange::Kind::Check, *it, it->version});
        } else {
            plan.updated << policy.name;
            plan.changes.append({PolicyChange::Kind::Put, policy, it->version});
        }
    }
    if (prune) {
        plan.expectedNames = stored.names();
        for (const Policy &policy : stored.policies) {
            if (desiredNames.contains(policy.name))
                continue;
            plan.deleted << policy.name;
            plan.changes.append({PolicyChange::Kind::Delete, policy, policy.version});
        }
        for (const DamagedPolicy &damaged : stored.damaged) {
            if (desiredNames.contains(damaged.name))
                continue;
            Policy named;
            named.name = damaged.name;
            plan.deleted << damaged.name;
            plan.changes.append({PolicyChange::Kind::Delete, named, damaged.version});
        }
    }
    plan.changes += checks;
    QHash<QString, Policy> after = prune ? QHash<QString, Policy>() : storedByName;
    for (const Policy &policy : desired)
        after.insert(policy.name, policy);
    plan.problems = twinProblems(after.values()) + namespaceOverrideProblems(after.values());
    if (after.size() > policy_limits::maxPoliciesPerNamespace)
        plan.problems.append(PolicyError{QString(), QStringLiteral("policies"),
                                         Text::tr("the namespace would hold %1 policies; it may hold at most %2")
                                             .arg(after.size())
                                             .arg(policy_limits::maxPoliciesPerNamespace)});
    else if (const qsizetype bytes = LimiterLibrary::build(after.values(), {}, LibraryOwner{}, 0).source.size();
             bytes > policy_limits::maxLibraryBytes)
        plan.problems.append(PolicyError{QString(), QStringLiteral("policies"), LimiterLibrary::tooLarge(bytes)});
    for (const PolicyChange &change : std::as_const(plan.changes)) {
        const auto stored = storedByName.constFind(change.policy.name);
        if (change.kind == PolicyChange::Kind::Put && stored != storedByName.cend() && !stored->unknownFields.isEmpty())
            plan.problems.append(unknownFieldsProblem(*stored));
    }
    return plan;
}

} // namespace sluice::model
