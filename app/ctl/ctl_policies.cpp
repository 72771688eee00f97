// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/ctl/ctl_policies.h"

#include "app/ctl/ctl_tr.h"
#include "app/ctl/text_table.h"

#include <QCoreApplication>

namespace sluice::app {

namespace {

// The audit stream keeps about 10,000 entries; a policy's history is never longer.
constexpr int wholeHistory = 10000;

} // namespace

void warnDamaged(const CtlRequest &request, const QVector<model::DamagedPolicy> &damaged)
{
    for (const model::DamagedPolicy &policy : damaged)
        ctlErr() << Ctl::tr("sluicectl: %1: warning: policy \"%2\" is damaged (%3): apply a file that defines it to "
                            "repair it, or apply --prune a file without it to delete it")
                        .arg(request.command, policy.name, policy.problem)
                 << Qt::endl;
}

void withStoredPolicies(const CtlRequest &request, std::function<void(const model::PolicyStore::ListResult &)> next)
{
    // The store's callbacks carry what they need; the store itself need not outlive this call.
    model::PolicyStore(request.client, request.ns)
        .list(QCoreApplication::instance(), [request, next](const model::PolicyStore::ListResult &listed) {
            if (listed.failure)
                return fail(request, *listed.failure);
            warnDamaged(request, listed.damaged);
            next(listed);
        });
}

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

void printPolicyChange(const QString &action, const QString &name, const QVector<model::FieldChange> &fields)
{
    ctlOut() << QStringLiteral("%1 %2").arg(action, -8).arg(name) << Qt::endl;
    // A created or repaired policy has no readable old definition: its new fields alone.
    const bool whole = action == QLatin1String("create") || action == QLatin1String("repair");
    for (const model::FieldChange &field : fields) {
        const QString line = whole
            ? QStringLiteral("    %1  %2").arg(field.label, -12).arg(field.after)
            : QStringLiteral("    %1  %2 -> %3").arg(field.label, -12).arg(field.before, field.after);
        ctlOut() << line << Qt::endl;
    }
}

QJsonArray fieldChangesToJson(const QVector<model::FieldChange> &fields)
{
    QJsonArray list;
    for (const model::FieldChange &field : fields)
        list.append(QJsonObject{{QStringLiteral("field"), field.field},
                                {QStringLiteral("old"), field.before},
                                {QStringLiteral("new"), field.after}});
    return list;
}

} // namespace sluice::app
