// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/failure.h"

#include <optional>

namespace sluice::model {

// The namespace starts every key Sluice writes ({ns}:policies, ns:policy:{subject}), so it is a Cluster
// hash tag: empty, the admin keys fall in different slots (CROSSSLOT); with a brace, every bucket shares
// one tag and so one node. A name ending in "-fire" would be another namespace's test-fire key space
// (model/deploy/acl_roles.cpp proves the roles' key patterns disjoint under this rule). Profiles and the
// command line both take it through this one rule.
// Why `ns` cannot be a namespace, saying what can; nothing when it can.
std::optional<Failure> namespaceProblem(const QString &ns);

} // namespace sluice::model
