// SPDX-License-Identifier: GPL-3.0-or-later
// sluicectl apply, policies and export: the stored policies as files and tables.

#include "app/common/exit_codes.h"
#include "app/ctl/ctl_request.h"
#include "app/ctl/text_table.h"
#include "model/policy/policy_diff.h"
#include "model/policy/policy_file.h"
#include "model/policy/policy_plan.h"
#include "model/policy/policy_store.h"
#include "model/whole_file.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace sluice::app {

using model::PolicyStore;

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("sluicectl", text);
}

// Damaged policies are listed apart and every command goes on with the healthy ones; this says
// what is wrong with each and how to repair it.
void warnDamaged(const CtlRequest &request, const QVector<model::DamagedPolicy> &damaged)
{
    for (const model::DamagedPolicy &policy : damaged)
        ctlErr() << tr("sluicectl: %1: warning: policy \"%2\" is damaged (%3): apply a file that defines it to "
                       "repair it, or apply --prune a file without it to delete it")
                        .arg(request.command, policy.name, policy.problem)
                 << Qt::endl;
}

// Lists the stored policies, or reports why not and exits.
void withStoredPolicies(const CtlRequest &request, std::function<void(const PolicyStore::ListResult &)> next)
{
    // The store's callbacks carry what they need; the store itself need not outlive this call.
    PolicyStore(request.client, request.ns)
        .list(QCoreApplication::instance(), [request, next](const PolicyStore::ListResult &listed) {
            if (listed.failure)
                return fail(request, *listed.failure);
            warnDamaged(request, listed.damaged);
            next(listed);
        });
}

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
            {QStringLiteral("dry_run"), request.dryRun},
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
    return tr("applied: %1 created, %2 updated, %3 deleted")
        .arg(count(plan.created))
        .arg(count(plan.updated))
        .arg(count(plan.deleted));
}

} // namespace

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

void runApply(const CtlRequest &request)
{
    const QString path = request.args.value(0);
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return fail(request, model::Failure::invalid(tr("cannot read %1: %2").arg(path, file.errorString())));
    const model::PolicyFile parsed = model::PolicyFile::parse(file.readAll());
    if (!parsed.ok()) {
        QStringList problems;
        for (const model::PolicyError &error : parsed.errors)
            problems << tr("%1: %2").arg(path, error.toString());
        return fail(request, model::Failure::invalid(problems.join(QLatin1Char('\n'))), tr("nothing was applied"));
    }

    withStoredPolicies(request, [request, parsed](const PolicyStore::ListResult &stored) {
        const model::PolicyPlan plan = model::PolicyPlan::between(stored, parsed.policies, request.prune);
        const QVector<PlannedChange> described = describe(plan, stored);
        if (request.dryRun || plan.isEmpty()) {
            if (request.json) {
                ctlOut()
                    << QJsonDocument(planToJson(request, described, !plan.isEmpty())).toJson(QJsonDocument::Indented);
            } else {
                printPlan(described);
                ctlOut() << (plan.isEmpty() ? tr("already up to date")
                                            : tr("dry run: changes are pending; nothing was changed"))
                         << Qt::endl;
            }
            request.finish(plan.isEmpty() ? ExitOk : ExitChangesPending);
            return;
        }
        if (!request.json)
            printPlan(described);
        PolicyStore(request.client, request.ns)
            .commit(
                plan.changes, request.who, QCoreApplication::instance(),
                [request, plan, described](const PolicyStore::CommitResult &result) {
            if (result.failure)
                return fail(request, *result.failure, tr("nothing was applied"));
            if (request.json) {
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

void runPolicies(const CtlRequest &request)
{
    withStoredPolicies(request, [request](const PolicyStore::ListResult &listed) {
        const QVector<model::Policy> &policies = listed.policies;
        if (request.json) {
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
            ctlOut() << tr("no policies in namespace \"%1\"").arg(request.ns) << Qt::endl;
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
                ctlOut() << table.row({damaged.name, tr("DAMAGED"), none, none, none, none, none,
                                       QString::number(damaged.version), damaged.problem})
                         << Qt::endl;
        }
        request.finish(ExitOk);
    });
}

void runExport(const CtlRequest &request)
{
    withStoredPolicies(request, [request](const PolicyStore::ListResult &listed) {
        const QVector<model::Policy> &policies = listed.policies;
        const QByteArray document = model::writePolicyFile(policies);
        if (request.args.isEmpty()) {
            ctlOut() << QString::fromUtf8(document);
            ctlOut().flush();
            request.finish(ExitOk);
            return;
        }
        if (const auto failure = model::writeWholeFile(request.args.first(), document))
            return fail(request, *failure);
        ctlOut() << tr("exported %1 policies to %2").arg(policies.size()).arg(request.args.first()) << Qt::endl;
        request.finish(ExitOk);
    });
}

} // namespace sluice::app
