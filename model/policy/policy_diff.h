// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/policy/policy.h"

namespace sluice::model {

// One definition field that differs between two versions of a policy, as text for a diff view.
struct FieldChange {
    QString field;  // the stored field name ("limit", "window_ms", ...)
    QString before; // empty when the policy did not exist before
    QString after;  // empty when it does not exist after
};

// The definition fields that differ; a missing side (nullptr) is a created or deleted policy, which
// lists every field. Bookkeeping (version, updated_by/at) is not part of a definition.
QVector<FieldChange> diffPolicies(const Policy *before, const Policy *after);

// The field values of a definition as the diff shows them, in the stored order.
QVector<QPair<QString, QString>> definitionTexts(const Policy &policy);

} // namespace sluice::model
