// SPDX-License-Identifier: GPL-3.0-or-later
// sluicectl rollback: an earlier version of a policy saved as its new version.

#include "app/common/exit_codes.h"
#include "app/ctl/ctl_commands.h"
#include "app/ctl/ctl_policies.h"
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

void runRollback(const CtlRequest &request)
{
    const QString policy = request.args.value(0);
    bool numeric = false;
    const qint64 version = request.args.value(1).toLongLong(&numeric);
    if (!numeric || version < 1) {
        return failUsage(request,
                         Ctl::tr("VERSION must be a whole number from 1, not \"%1\"").arg(request.args.value(1)));
    }
    withHistory(request, policy, [request, policy, version](const QVector<model::AuditEntry> &entries) {
        const auto found = std::find_if(entries.begin(), entries.end(), [version](const model::AuditEntry &entry) {
            return entry.version == version && entry.after.has_value();
        });
        if (found == entries.end()) {
            return fail(request,
                        model::Failure::serverError(
                            Ctl::tr("the audit log has no version %1 of policy \"%2\"").arg(version).arg(policy)));
        }
        const model::Policy target = *found->after;
        model::PolicyStore(request.client, request.ns)
            .read(policy, QCoreApplication::instance(),
                  [request, policy, version, target](const model::PolicyStore::ReadResult &stored) {
            // A damaged policy is rolled back like any other: that repairs it.
            if (stored.failure && !stored.damaged)
                return fail(request, *stored.failure);
            if (stored.policy && stored.policy->sameDefinition(target)) {
                ctlOut() << Ctl::tr("\"%1\" already has the definition of version %2: nothing to do")
                                .arg(policy)
                                .arg(version)
                         << Qt::endl;
                request.finish(ExitOk);
                return;
            }
            for (const model::FieldChange &change :
                 model::diffPolicies(stored.policy ? &*stored.policy : nullptr, &target))
                ctlOut() << QStringLiteral("%1  %2 -> %3").arg(change.field, -12).arg(change.before, change.after)
                         << Qt::endl;
            if (request.isSet("dry-run")) {
                ctlOut() << Ctl::tr("dry run: nothing was changed") << Qt::endl;
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
                    return fail(request, *result.failure, Ctl::tr("nothing was rolled back"));
                ctlOut() << Ctl::tr("rolled \"%1\" back to the definition of version %2").arg(policy).arg(version)
                         << Qt::endl;
                request.finish(ExitOk);
                });
            });
    });
}

} // namespace

CtlCommand rollbackCommand()
{
    CtlCommand command{
        QStringLiteral("rollback"),
        CommandGroup::Policies,
        2,
        2,
        Access::WritesUnlessDryRun,
        QStringLiteral("POLICY VERSION"),
        Ctl::tr("save an earlier version as the policy's new version"),
        Ctl::tr("Save an earlier version's definition as the policy's new version (audited). Publish afterwards for "
                "services to see it."),
        optionNames({"dry-run"}),
        {{QStringLiteral("rollback login 3 --dry-run"), Ctl::tr("show what version 3 would change")},
         {QStringLiteral("rollback login 3"), Ctl::tr("bring version 3's definition back")}},
        runRollback};
    command.checkAfterLostAnswer = QStringLiteral("sluicectl policies; sluicectl history");
    return command;
}

} // namespace sluice::app
