// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/policy/policy.h"

#include <QJsonObject>

namespace sluice::model {

// The JSON policy file that drives `sluicectl apply` and the GUI's import and export:
//   {"policies": [{"name": "api", "algorithm": "token_bucket", "limit": 100, "window_ms": 60000,
//                  "burst": 150, "shadow": false, "description": "..."}]}
// Types are strict: numbers must be whole JSON numbers, shadow a JSON boolean, and unknown fields
// are errors (a typo must not silently fall back to a default). So are a key given twice and text
// that is not Unicode (see policyFileTextProblems()): the file must mean exactly one thing.
struct PolicyFile {
    QVector<Policy> policies;
    QVector<PolicyError> errors; // every problem found; a file with any is applied not at all

    bool ok() const { return errors.isEmpty(); }
    static PolicyFile parse(const QByteArray &json);
};

// One policy's definition as a JSON object of the file format (bookkeeping left out).
QJsonObject policyToJson(const Policy &policy);
// The file form of these policies, sorted by name.
QByteArray writePolicyFile(QVector<Policy> policies);

} // namespace sluice::model
