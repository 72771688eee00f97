// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "app/ctl/ctl_request.h"
#include "model/policy/audit_log.h"
#include "model/policy/policy_diff.h"
#include "model/policy/policy_store.h"

#include <QJsonArray>

#include <functional>

// What the policy commands (apply, policies, export, history, rollback, publish --dry-run) share.
namespace sluice::app {

// Damaged policies are listed apart and every command goes on with the healthy ones; this says
// what is wrong with each and how to repair it.
void warnDamaged(const CtlRequest &request, const QVector<model::DamagedPolicy> &damaged);
// Lists the stored policies, or reports why not and ends the command.
void withStoredPolicies(const CtlRequest &request, std::function<void(const model::PolicyStore::ListResult &)> next);
// The audit log, of one policy or all, or reports why not and ends the command.
void withHistory(const CtlRequest &request, const QString &policy,
                 std::function<void(const QVector<model::AuditEntry> &)> next);
// One policy's planned change and its fields in the words the form and the diffs use: "update   api",
// then "    Limit         100 -> 200"; a created or repaired policy lists its new fields alone.
void printPolicyChange(const QString &action, const QString &name, const QVector<model::FieldChange> &fields);
// The same for --json: each field by its policy-file name, with its old and new text.
QJsonArray fieldChangesToJson(const QVector<model::FieldChange> &fields);

} // namespace sluice::app
