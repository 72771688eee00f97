#pragma once

#include "model/policy/policy_store.h"

namespace sluice::model {

// What applying a desired set of policies to the stored ones would do. Each change carries the
// stored version it was planned against, so a save in between turns the commit into a conflict.
struct PolicyPlan {
    QVector<PolicyChange> changes;
    QStringList created;
    QStringList updated;
    QStringList deleted;   // only when pruning
    QStringList unchanged;

    // prune: also delete stored policies the desired set lacks.
    static PolicyPlan between(const QVector<Policy> &stored, const QVector<Policy> &desired, bool prune);
    bool isEmpty() const { return changes.isEmpty(); }
};

} // namespace sluice::model
