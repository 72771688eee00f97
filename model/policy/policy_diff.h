// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/policy/policy.h"

namespace sluice::model {

// One definition field of a policy as every screen names and shows it.
struct DefinitionField {
    QString field; // the policy file's and the store's name ("limit", "window_ms"), for JSON
    QString label; // the name the form, the diffs, the history and sluicectl's text use ("Limit", "Window")
    QString text;  // the value in words ("1,000", "1 minute", "on")
};

// One definition field that differs between two versions of a policy.
struct FieldChange {
    QString field;
    QString label;
    QString before; // empty when the policy did not exist before
    QString after;  // empty when it does not exist after
};

// The definition fields that differ; a missing side (nullptr) is a created or deleted policy, which
// lists every field that applies (one empty on both sides is left out). Bookkeeping (version,
// updated_by/at) is not part of a definition.
QVector<FieldChange> diffPolicies(const Policy *before, const Policy *after);

// The fields of a definition as the diffs show them, in the stored order.
QVector<DefinitionField> definitionFields(const Policy &policy);

// What one policy becomes between two sets of definitions (a published library and the stored
// policies, say): added, changed field by field, or removed.
struct PolicyDelta {
    enum class Kind { Added, Changed, Removed };
    QString name;
    Kind kind = Kind::Changed;
    QVector<FieldChange> fields; // every field when added; none when removed
};

// The policies that differ between `from` and `to`, by name; unchanged ones are left out.
QVector<PolicyDelta> policyDeltas(const QVector<Policy> &from, const QVector<Policy> &to);

} // namespace sluice::model
