// sluicectl apply, policies and export: the stored policies as files and tables.

#include "app/ctl_request.h"
#include "app/exit_codes.h"
#include "app/text_table.h"
#include "model/policy/policy_file.h"
#include "model/policy/policy_plan.h"
#include "model/policy/policy_store.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

namespace sluice::app {

using model::PolicyStore;

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("sluicectl", text);
}

// Lists the stored policies, or reports why not and exits.
void withStoredPolicies(const CtlRequest &request, std::function<void(const QVector<model::Policy> &)> next)
{
    // The store's callbacks carry what they need; the store itself need not outlive this call.
    PolicyStore(request.client, request.ns)
        .list(QCoreApplication::instance(), [request, next](const PolicyStore::ListResult &listed) {
            if (listed.failure)
                return fail(request, *listed.failure);
            next(listed.policies);
        });
}

} // namespace

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

    withStoredPolicies(request, [request, parsed](const QVector<model::Policy> &stored) {
        const model::PolicyPlan plan = model::PolicyPlan::between(stored, parsed.policies, request.prune);
        for (const QString &name : plan.created)
            ctlOut() << "create   " << name << Qt::endl;
        for (const QString &name : plan.updated)
            ctlOut() << "update   " << name << Qt::endl;
        for (const QString &name : plan.deleted)
            ctlOut() << "delete   " << name << Qt::endl;
        for (const QString &name : plan.unchanged)
            ctlOut() << "keep     " << name << Qt::endl;
        if (request.dryRun || plan.isEmpty()) {
            ctlOut() << (request.dryRun ? tr("dry run: nothing was changed") : tr("already up to date")) << Qt::endl;
            QCoreApplication::exit(ExitOk);
            return;
        }
        PolicyStore(request.client, request.ns).commit(plan.changes, request.who, QCoreApplication::instance(),
                      [request, plan](const PolicyStore::CommitResult &result) {
            if (result.failure)
                return fail(request, *result.failure, tr("nothing was applied"));
            ctlOut() << tr("applied: %1 created, %2 updated, %3 deleted")
                            .arg(plan.created.size()).arg(plan.updated.size()).arg(plan.deleted.size())
                     << Qt::endl;
            QCoreApplication::exit(ExitOk);
        });
    });
}

void runPolicies(const CtlRequest &request)
{
    withStoredPolicies(request, [request](const QVector<model::Policy> &policies) {
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
            ctlOut() << QJsonDocument(list).toJson(QJsonDocument::Indented);
        } else if (policies.isEmpty()) {
            ctlOut() << tr("no policies in namespace \"%1\"").arg(request.ns) << Qt::endl;
        } else {
            const TextTable table({{"NAME", -20}, {"ALGORITHM", -14}, {"LIMIT", 10}, {"WINDOW_MS", 10},
                                   {"BURST", 10}, {"SHADOW", -6}, {"VERSION", 7}, {"UPDATED", 0}},
                                  2);
            ctlOut() << table.header() << Qt::endl;
            for (const model::Policy &policy : policies) {
                const QString updated
                    = QStringLiteral("%1 by %2")
                          .arg(QDateTime::fromMSecsSinceEpoch(policy.updatedAtMs, Qt::UTC).toString(Qt::ISODate),
                               policy.updatedBy);
                ctlOut() << table.row({policy.name, model::algorithmName(policy.algorithm),
                                       QString::number(policy.limit), QString::number(policy.windowMs),
                                       QString::number(policy.effectiveBurst()),
                                       policy.shadow ? QStringLiteral("yes") : QStringLiteral("no"),
                                       QString::number(policy.version), updated})
                         << Qt::endl;
            }
        }
        QCoreApplication::exit(ExitOk);
    });
}

void runExport(const CtlRequest &request)
{
    withStoredPolicies(request, [request](const QVector<model::Policy> &policies) {
        const QByteArray document = model::writePolicyFile(policies);
        if (request.args.isEmpty()) {
            ctlOut() << QString::fromUtf8(document);
            ctlOut().flush();
            QCoreApplication::exit(ExitOk);
            return;
        }
        // Written whole or not at all: a failed export never leaves half a file behind.
        QSaveFile file(request.args.first());
        if (!file.open(QIODevice::WriteOnly) || file.write(document) != document.size() || !file.commit()) {
            return fail(
                request,
                model::Failure::serverError(tr("cannot write %1: %2").arg(request.args.first(), file.errorString())));
        }
        ctlOut() << tr("exported %1 policies to %2").arg(policies.size()).arg(request.args.first())
                 << Qt::endl;
        QCoreApplication::exit(ExitOk);
    });
}

} // namespace sluice::app
