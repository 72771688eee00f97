// SPDX-License-Identifier: GPL-3.0-or-later
// sluicectl history: the audit log, who changed what and when.

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

QJsonValue definitionJson(const std::optional<model::Policy> &policy)
{
    return policy ? QJsonValue(model::policyToJson(*policy)) : QJsonValue();
}

void runHistory(const CtlRequest &request)
{
    const QString policy = request.args.value(0);
    withHistory(request, policy, [request](const QVector<model::AuditEntry> &entries) {
        if (request.isSet("json")) {
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
                if (entry.action == QLatin1String("lists")) {
                    object.insert(QStringLiteral("old"), model::overridesToJson(entry.listsBefore));
                    object.insert(QStringLiteral("new"), model::overridesToJson(entry.listsAfter));
                }
                list.append(object);
            }
            ctlOut() << QJsonDocument(list).toJson(QJsonDocument::Indented);
        } else if (entries.isEmpty()) {
            ctlOut() << Ctl::tr("no history in namespace \"%1\"").arg(request.ns) << Qt::endl;
        } else {
            const TextTable table(
                {{"WHEN", -20}, {"WHO", -28}, {"POLICY", -20}, {"ACTION", -8}, {"VERSION", 7}, {"CHANGE", 0}}, 2);
            ctlOut() << table.header() << Qt::endl;
            for (const model::AuditEntry &entry : entries)
                ctlOut() << table.row({QDateTime::fromMSecsSinceEpoch(entry.atMs, Qt::UTC).toString(Qt::ISODate),
                                       entry.who, model::auditSubjectText(entry), entry.action,
                                       entry.version > 0 ? QString::number(entry.version) : QStringLiteral("-"),
                                       entry.changeText()})
                         << Qt::endl;
        }
        request.finish(ExitOk);
    });
}

} // namespace

CtlCommand historyCommand()
{
    return {QStringLiteral("history"),
            CommandGroup::Policies,
            0,
            1,
            Access::Reads,
            QStringLiteral("[POLICY]"),
            Ctl::tr("show who changed what, and when"),
            Ctl::tr("Show the audit log (who changed what, when), newest first."),
            optionNames({"json"}),
            {{QStringLiteral("history"), Ctl::tr("every change, newest first")},
             {QStringLiteral("history login --json"), Ctl::tr("one policy's changes, as JSON")}},
            runHistory};
}

} // namespace sluice::app
