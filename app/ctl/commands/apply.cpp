// SPDX-License-Identifier: GPL-3.0-or-later
// sluicectl apply: make the stored policies match a policy file, or change nothing.

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

struct PlannedChange {
    QString name;
    QString action; // create, update, repair, delete, keep
    QVector<model::FieldChange> fields;
};

// The plan as each policy's action and field changes, in the order they are printed.
QVector<PlannedChange> describe(const model::PolicyPlan &plan, const PolicyStore::ListResult &stored)
{
    QHash<QString, model::Policy> before;
    for (const model::Policy &policy : stored.policies)
        before.insert(policy.name, policy);
    QHash<QString, model::Policy> after;
    for (const model::PolicyChange &change : plan.changes)
        if (change.kind == model::PolicyChange::Kind::Put)
            after.insert(change.policy.name, change.policy);
    auto diff = [&](const QString &name) {
        const auto old = before.constFind(name);
        const auto now = after.constFind(name);
        return model::diffPolicies(old != before.cend() ? &*old : nullptr, now != after.cend() ? &*now : nullptr);
    };
    QVector<PlannedChange> described;
    for (const QString &name : plan.created)
        described.append({name, QStringLiteral("create"), diff(name)});
    for (const QString &name : plan.updated)
        described.append(
            {name, plan.repaired.contains(name) ? QStringLiteral("repair") : QStringLiteral("update"), diff(name)});
    for (const QString &name : plan.deleted)
        described.append({name, QStringLiteral("delete"), {}});
    for (const QString &name : plan.unchanged)
        described.append({name, QStringLiteral("keep"), {}});
    return described;
}

void printPlan(const QVector<PlannedChange> &described)
{
    for (const PlannedChange &change : described)
        printPolicyChange(change.action, change.name, change.fields);
}

QJsonObject planToJson(const CtlRequest &request, const QVector<PlannedChange> &described, bool pending)
{
    QJsonArray changes;
    for (const PlannedChange &change : described) {
        changes.append(QJsonObject{{QStringLiteral("name"), change.name},
                                   {QStringLiteral("action"), change.action},
                                   {QStringLiteral("fields"), fieldChangesToJson(change.fields)}});
    }
    return {{QStringLiteral("namespace"), request.ns},
            {QStringLiteral("dry_run"), request.isSet("dry-run")},
            {QStringLiteral("pending"), pending},
            {QStringLiteral("changes"), changes}};
}

// What the commit really changed, by kind: a planned change the store found already made is not counted.
QString appliedSummary(const model::PolicyPlan &plan, const QStringList &changed)
{
    auto count = [&changed](const QStringList &names) {
        return std::count_if(names.begin(), names.end(),
                             [&changed](const QString &name) { return changed.contains(name); });
    };
    return Ctl::tr("applied: %1 created, %2 updated, %3 deleted")
        .arg(count(plan.created))
        .arg(count(plan.updated))
        .arg(count(plan.deleted));
}

void runApply(const CtlRequest &request)
{
    const QString path = request.args.value(0);
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return fail(request, model::Failure::invalid(Ctl::tr("cannot read %1: %2").arg(path, file.errorString())));
    const model::PolicyFile parsed = model::PolicyFile::parse(file.readAll());
    if (!parsed.ok()) {
        QStringList problems;
        for (const model::PolicyError &error : parsed.errors)
            problems << Ctl::tr("%1: %2").arg(path, error.toString());
        return fail(request, model::Failure::invalid(problems.join(QLatin1Char('\n'))), Ctl::tr("nothing was applied"));
    }

    withStoredPolicies(request, [request, parsed](const PolicyStore::ListResult &stored) {
        const model::PolicyPlan plan = model::PolicyPlan::between(stored, parsed.policies, request.isSet("prune"));
        if (!plan.problems.isEmpty()) {
            QStringList problems;
            for (const model::PolicyError &error : plan.problems)
                problems << error.toString();
            return fail(request, model::Failure::invalid(problems.join(QLatin1Char('\n'))),
                        Ctl::tr("nothing was applied"));
        }
        const QVector<PlannedChange> described = describe(plan, stored);
        if (request.isSet("dry-run") || plan.isEmpty()) {
            if (request.isSet("json")) {
                ctlOut()
                    << QJsonDocument(planToJson(request, described, !plan.isEmpty())).toJson(QJsonDocument::Indented);
            } else {
                printPlan(described);
                ctlOut() << (plan.isEmpty() ? Ctl::tr("already up to date")
                                            : Ctl::tr("dry run: changes are pending; nothing was changed"))
                         << Qt::endl;
            }
            request.finish(plan.isEmpty() ? ExitOk : ExitChangesPending);
            return;
        }
        if (!request.isSet("json"))
            printPlan(described);
        PolicyStore(request.client, request.ns)
            .commit(
                plan.changes, request.who, QCoreApplication::instance(),
                [request, plan, described](const PolicyStore::CommitResult &result) {
            if (result.failure)
                return fail(request, *result.failure, Ctl::tr("nothing was applied"));
            if (request.isSet("json")) {
                QJsonObject json = planToJson(request, described, false);
                json.insert(QStringLiteral("applied"), QJsonArray::fromStringList(result.changed));
                ctlOut() << QJsonDocument(json).toJson(QJsonDocument::Indented);
            } else {
                ctlOut() << appliedSummary(plan, result.changed) << Qt::endl;
            }
            request.finish(ExitOk);
                },
                plan.expectedNames);
    });
}

} // namespace

CtlCommand applyCommand()
{
    CtlCommand command{
        QStringLiteral("apply"),
        CommandGroup::Policies,
        1,
        1,
        Access::WritesUnlessDryRun,
        QStringLiteral("FILE"),
        Ctl::tr("make the stored policies match a policy file, or change nothing"),
        Ctl::tr(
            "Make the stored policies match a JSON policy file in one atomic commit, or change nothing when another "
            "change came in between (exit 6). With --prune, stored policies the file lacks are deleted. --dry-run "
            "prints each field's old and new value and exits 10 when changes are pending."),
        optionNames({"dry-run", "prune", "json"}),
        {{QStringLiteral("apply policies.json --dry-run"), Ctl::tr("show what would change, field by field")},
         {QStringLiteral("apply policies.json --prune"), Ctl::tr("make the store equal the file, deleting the rest")},
         {QStringLiteral("--profile prod --yes apply policies.json"), Ctl::tr("apply through a production profile")}},
        runApply};
    command.checkAfterLostAnswer = QStringLiteral("sluicectl policies; sluicectl history");
    return command;
}

} // namespace sluice::app
