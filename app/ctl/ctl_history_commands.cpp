// SPDX-License-Identifier: GPL-3.0-or-later
// sluicectl history and rollback: the audit log, and restoring an earlier version of a policy.

#include "app/common/exit_codes.h"
#include "app/ctl/ctl_request.h"
#include "app/ctl/text_table.h"
#include "model/policy/audit_log.h"
#include "model/policy/policy_diff.h"
#include "model/policy/policy_file.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace sluice::app {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("sluicectl", text);
}

// The audit stream keeps about 10,000 entries; a policy's history is never longer.
constexpr int wholeHistory = 10000;

void withHistory(const CtlRequest &request, const QString &policy,
                 std::function<void(const QVector<model::AuditEntry> &)> next)
{
    model::AuditLog(request.client, request.ns)
        .read(policy, wholeHistory, QCoreApplication::instance(),
              [request, next](const model::AuditLog::ReadResult &read) {
        if (read.failure)
            return fail(request, *read.failure);
        next(read.entries);
        });
}

QJsonValue definitionJson(const std::optional<model::Policy> &policy)
{
    return policy ? QJsonValue(model::policyToJson(*policy)) : QJsonValue();
}

} // namespace

void runHistory(const CtlRequest &request)
{
    const QString policy = request.args.value(0);
    withHistory(request, policy, [request](const QVector<model::AuditEntry> &entries) {
        if (request.json) {
            QJsonArray list;
            for (const model::AuditEntry &entry : entries) {
                QJsonObject object{{QStringLiteral("id"), QString::fromLatin1(entry.id)},
                                   {QStringLiteral("policy"), entry.policy},
                                   {QStringLiteral("action"), entry.action},
                                   {QStringLiteral("who"), entry.who},
                                   {QStringLiteral("at"), static_cast<double>(entry.atMs)},
                                   {QStringLiteral("version"), static_cast<double>(entry.version)},
                                   {QStringLiteral("old"), definitionJson(entry.before)},
                                   {QStringLiteral("new"), definitionJson(entry.after)}};
                if (entry.rollbackTo > 0)
                    object.insert(QStringLiteral("rollback_to"), static_cast<double>(entry.rollbackTo));
                if (entry.action == QLatin1String("reset")) {
                    object.insert(QStringLiteral("subject"), QString::fromUtf8(entry.subject));
                    object.insert(QStringLiteral("old"), entry.bucketState);
                }
                list.append(object);
            }
            ctlOut() << QJsonDocument(list).toJson(QJsonDocument::Indented);
        } else if (entries.isEmpty()) {
            ctlOut() << tr("no history in namespace \"%1\"").arg(request.ns) << Qt::endl;
        } else {
            const TextTable table(
                {{"WHEN", -20}, {"WHO", -28}, {"POLICY", -20}, {"ACTION", -8}, {"VERSION", 7}, {"CHANGE", 0}}, 2);
            ctlOut() << table.header() << Qt::endl;
            for (const model::AuditEntry &entry : entries)
                ctlOut() << table.row(
                    {QDateTime::fromMSecsSinceEpoch(entry.atMs, Qt::UTC).toString(Qt::ISODate), entry.who,
                     entry.policy.isEmpty() ? QStringLiteral("(library)") : entry.policy, entry.action,
                     entry.version > 0 ? QString::number(entry.version) : QStringLiteral("-"), entry.changeText()})
                         << Qt::endl;
        }
        request.finish(ExitOk);
    });
}

void runRollback(const CtlRequest &request)
{
    const QString policy = request.args.value(0);
    bool numeric = false;
    const qint64 version = request.args.value(1).toLongLong(&numeric);
    if (!numeric || version < 1) {
        return failUsage(request, tr("VERSION must be a whole number from 1, not \"%1\"").arg(request.args.value(1)));
    }
    withHistory(request, policy, [request, policy, version](const QVector<model::AuditEntry> &entries) {
        const auto found = std::find_if(entries.begin(), entries.end(), [version](const model::AuditEntry &entry) {
            return entry.version == version && entry.after.has_value();
        });
        if (found == entries.end()) {
            return fail(request,
                        model::Failure::serverError(
                            tr("the audit log has no version %1 of policy \"%2\"").arg(version).arg(policy)));
        }
        const model::Policy target = *found->after;
        model::PolicyStore(request.client, request.ns)
            .read(policy, QCoreApplication::instance(),
                  [request, policy, version, target](const model::PolicyStore::ReadResult &stored) {
            // A damaged policy is rolled back like any other: that repairs it.
            if (stored.failure && !stored.damaged)
                return fail(request, *stored.failure);
            if (stored.policy && stored.policy->sameDefinition(target)) {
                ctlOut()
                    << tr("\"%1\" already has the definition of version %2: nothing to do").arg(policy).arg(version)
                    << Qt::endl;
                request.finish(ExitOk);
                return;
            }
            for (const model::FieldChange &change :
                 model::diffPolicies(stored.policy ? &*stored.policy : nullptr, &target))
                ctlOut() << QStringLiteral("%1  %2 -> %3").arg(change.field, -12).arg(change.before, change.after)
                         << Qt::endl;
            if (request.dryRun) {
                ctlOut() << tr("dry run: nothing was changed") << Qt::endl;
                request.finish(ExitOk);
                return;
            }
            const qint64 storedVersion = stored.policy ? stored.policy->version
                : stored.damaged                       ? stored.damaged->version
                                                       : 0;
            const model::PolicyChange change{model::PolicyChange::Kind::Put, target, storedVersion, version};
            model::PolicyStore(request.client, request.ns)
                .commit({change}, request.who, QCoreApplication::instance(),
                        [request, policy, version](const model::PolicyStore::CommitResult &result) {
                if (result.failure)
                    return fail(request, *result.failure, tr("nothing was rolled back"));
                ctlOut() << tr("rolled \"%1\" back to the definition of version %2").arg(policy).arg(version)
                         << Qt::endl;
                request.finish(ExitOk);
                });
            });
    });
}

} // namespace sluice::app
