// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/policy/policy.h"

#include <QByteArray>

namespace sluice::model {

// What QJsonDocument lets through in a policy file, or stops at without saying where, found in the raw
// text: a key given twice in one object (QJsonDocument keeps the last), bytes that are not UTF-8, and
// \u escapes that leave half a UTF-16 surrogate pair alone (no character: Redis would store '?').
// Each problem names its policy (by name, else #position) and field. Where the text stops being JSON
// the search stops too: QJsonDocument says what is wrong there.
QVector<PolicyError> policyFileTextProblems(const QByteArray &json);

} // namespace sluice::model
