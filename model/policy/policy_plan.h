// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/policy/policy_store.h"

namespace sluice::model {

// What applying a desired set of policies to the stored ones would do. Each change carries the
// stored version it was planned against, and every policy the plan keeps is checked at its version
// too (with a prune, the set of names as well), so a save in between turns the commit into a
// conflict and the store ends equal to the desired set or unchanged.
struct PolicyPlan {
    QVector<PolicyChange> changes; // the writes, then a version check of every policy kept
    QStringList created;
    QStringList updated;  // including damaged policies the desired set defines again
    QStringList repaired; // the damaged ones among `updated`
    QStringList deleted;  // only when pruning (damaged ones too)
    QStringList unchanged;
    std::optional<QStringList> expectedNames; // when pruning: the stored names planned against
    // What would be wrong between the policies stored after it (a shadow twin without its live policy):
    // a plan with problems is not to be committed.
    QVector<PolicyError> problems;

    // prune: also delete stored policies the desired set lacks.
    static PolicyPlan between(const PolicyStore::ListResult &stored, const QVector<Policy> &desired, bool prune);
    qsizetype writeCount() const { return created.size() + updated.size() + deleted.size(); }
    bool isEmpty() const { return writeCount() == 0; }
};

} // namespace sluice::model
