// SPDX-License-Identifier: GPL-3.0-or-later
// sluicectl policies: the stored policies as a table or JSON.

#include "app/common/exit_codes.h"
#include "app/ctl/ctl_commands.h"
#include "app/ctl/ctl_policies.h"
#include "app/ctl/ctl_request.h"
#include "app/ctl/text_table.h"
#include "model/policy/policy_diff.h"
#include "model/policy/policy_file.h"
#include "model/policy/policy_plan.h"
#include "model/policy/policy_store.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace sluice::app {

using model::PolicyStore;

namespace {

void runPolicies(const CtlRequest &request)
{
    withStoredPolicies(request, [request](const PolicyStore::ListResult &listed) {
        const QVector<model::Policy> &policies = listed.policies;
        if (request.isSet("json")) {
            QJsonArray list;
            for (const model::Policy &policy : policies) {
                QJsonObject object = model::policyToJson(policy);
                object.insert(QStringLiteral("description"), policy.description);
                object.insert(QStringLiteral("version"), static_cast<double>(policy.version));
                object.insert(QStringLiteral("updated_at"), static_cast<double>(policy.updatedAtMs));
                object.insert(QStringLiteral("updated_by"), policy.updatedBy);
                list.append(object);
            }
            for (const model::DamagedPolicy &damaged : listed.damaged)
                list.append(QJsonObject{{QStringLiteral("name"), damaged.name},
                                        {QStringLiteral("damaged"), damaged.problem},
                                        {QStringLiteral("version"), static_cast<double>(damaged.version)}});
            ctlOut() << QJsonDocument(list).toJson(QJsonDocument::Indented);
        } else if (policies.isEmpty() && listed.damaged.isEmpty()) {
            ctlOut() << Ctl::tr("no policies in namespace \"%1\"").arg(request.ns) << Qt::endl;
        } else {
            const TextTable table({{"NAME", -20},
                                   {"ALGORITHM", -14},
                                   {"LIMIT", 10},
                                   {"WINDOW_MS", 10},
                                   {"WINDOW_START", -12},
                                   {"BURST", 10},
                                   {"SHADOW", -6},
                                   {"VERSION", 7},
                                   {"UPDATED", 0}},
                                  2);
            ctlOut() << table.header() << Qt::endl;
            for (const model::Policy &policy : policies) {
                const QString updated
                    = QStringLiteral("%1 by %2")
                          .arg(QDateTime::fromMSecsSinceEpoch(policy.updatedAtMs, Qt::UTC).toString(Qt::ISODate),
                               policy.updatedBy);
                // Only a fixed window has a window start.
                const QString windowStart = policy.algorithm == model::Algorithm::FixedWindow
                    ? model::windowStartName(policy.windowStart)
                    : QStringLiteral("-");
                ctlOut() << table.row({policy.name, model::algorithmName(policy.algorithm),
                                       QString::number(policy.limit), QString::number(policy.windowMs), windowStart,
                                       QString::number(policy.effectiveBurst()),
                                       policy.shadow ? QStringLiteral("yes") : QStringLiteral("no"),
                                       QString::number(policy.version), updated})
                         << Qt::endl;
            }
            const QString none = QStringLiteral("-");
            for (const model::DamagedPolicy &damaged : listed.damaged)
                ctlOut() << table.row({damaged.name, Ctl::tr("DAMAGED"), none, none, none, none, none,
                                       QString::number(damaged.version), damaged.problem})
                         << Qt::endl;
        }
        request.finish(ExitOk);
    });
}

} // namespace

CtlCommand policiesCommand()
{
    return {QStringLiteral("policies"),
            CommandGroup::Policies,
            0,
            0,
            Access::Reads,
            QString(),
            Ctl::tr("list the stored policies"),
            Ctl::tr("List the stored policies with their version; damaged ones are listed apart with what is wrong."),
            optionNames({"json"}),
            {{QStringLiteral("policies"), Ctl::tr("a table of the stored policies")},
             {QStringLiteral("--namespace teamb policies --json"), Ctl::tr("another namespace's policies, as JSON")}},
            runPolicies};
}

} // namespace sluice::app
