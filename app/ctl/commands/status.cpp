// SPDX-License-Identifier: GPL-3.0-or-later
// sluicectl status: each primary's library, and whether it runs the published one.

#include "app/common/exit_codes.h"
#include "app/ctl/ctl_commands.h"
#include "app/ctl/ctl_nodes.h"
#include "app/ctl/ctl_request.h"
#include "app/ctl/text_table.h"
#include "model/deploy/library_publisher.h"
#include "model/limiter/bucket_key.h"
#include "model/limiter/reference_limiter.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace sluice::app {

using model::LibraryPublisher;
using model::NodeLibrary;

namespace {

void reportStatus(const CtlRequest &request, const model::DeploymentStatus &status)
{
    if (status.failure)
        return fail(request, *status.failure);
    const model::LibraryRecord &published = status.published;
    const model::DeploymentStatus::History history = status.history();
    if (request.isSet("json")) {
        QJsonArray damaged;
        for (const model::DamagedPolicy &policy : status.damaged)
            damaged.append(
                QJsonObject{{QStringLiteral("name"), policy.name}, {QStringLiteral("damaged"), policy.problem}});
        ctlOut() << QJsonDocument(
                        QJsonObject{{QStringLiteral("history"), historyName(history)},
                                    {QStringLiteral("stored_policies"), static_cast<double>(status.storedPolicies)},
                                    {QStringLiteral("damaged"), damaged},
                                    {QStringLiteral("version"), static_cast<double>(published.version)},
                                    {QStringLiteral("digest"), QString::fromLatin1(published.digest)},
                                    {QStringLiteral("published_at"), static_cast<double>(published.publishedAtMs)},
                                    {QStringLiteral("published_by"), published.publishedBy},
                                    {QStringLiteral("stored_differs"), status.storedDiffers},
                                    {QStringLiteral("drift"), status.drift()},
                                    {QStringLiteral("library"), QString::fromLatin1(request.owner().libraryName())},
                                    {QStringLiteral("nodes"), nodesToJson(status.nodes)}})
                        .toJson(QJsonDocument::Indented);
    } else {
        ctlOut() << Ctl::tr("library %1 serves %2; services call %3")
                        .arg(QString::fromLatin1(request.owner().libraryName()), request.owner().describe(),
                             QString::fromLatin1(request.owner().function("acquire")))
                 << Qt::endl;
        if (history == model::DeploymentStatus::History::NeverPublished)
            ctlOut() << Ctl::tr("never published in namespace \"%1\"; %2 policies stored")
                            .arg(request.ns)
                            .arg(status.storedPolicies)
                     << Qt::endl;
        else if (history == model::DeploymentStatus::History::DataLost)
            ctlOut() << Ctl::tr(
                            "the stored policies, audit log and publish record of namespace \"%1\" are gone, but "
                            "primaries still run a published library: the data was flushed or lost in a restart "
                            "without persistence. Restore it with: sluicectl apply LAST_EXPORT.json, then sluicectl "
                            "publish")
                            .arg(request.ns)
                     << Qt::endl;
        else
            ctlOut() << Ctl::tr("published version %1 (digest %2), %3 policies, at %4 by %5")
                            .arg(published.version)
                            .arg(QString::fromLatin1(published.digest))
                            .arg(published.policyCount)
                            .arg(QDateTime::fromMSecsSinceEpoch(published.publishedAtMs, Qt::UTC).toString(Qt::ISODate),
                                 published.publishedBy)
                     << Qt::endl;
        if (status.storedDiffers)
            ctlOut() << (history == model::DeploymentStatus::History::Published
                             ? Ctl::tr("the stored policies differ from the published library: publish to apply them")
                             : Ctl::tr("the stored policies were never published: publish to serve them"))
                     << Qt::endl;
        for (const model::DamagedPolicy &policy : status.damaged)
            ctlOut() << Ctl::tr("policy \"%1\" is damaged (%2) and cannot be published until apply repairs it")
                            .arg(policy.name, policy.problem)
                     << Qt::endl;
        printNodes(status.nodes);
        if (history == model::DeploymentStatus::History::NeverPublished && status.persistsNothing())
            ctlErr() << Ctl::tr("sluicectl: status: if policies were published here before a restart, they were lost "
                                "with the data; restore them with sluicectl apply LAST_EXPORT.json, then publish")
                     << Qt::endl;
    }
    if (status.drift())
        ctlErr() << Ctl::tr("sluicectl: drift: not every primary runs the published library; publish to restore it")
                 << Qt::endl;
    request.finish(status.drift() ? ExitDrift : ExitOk);
}

void runStatus(const CtlRequest &request)
{
    LibraryPublisher(request.client, request.owner())
        .status(QCoreApplication::instance(),
                [request](const model::DeploymentStatus &status) { reportStatus(request, status); });
}

} // namespace

CtlCommand statusCommand()
{
    return {QStringLiteral("status"),
            CommandGroup::Deployment,
            0,
            0,
            Access::Reads,
            QString(),
            Ctl::tr("show each primary's library and drift"),
            Ctl::tr("Show each primary's limiter libraries and whether they run the published one; exit 7 on drift."),
            optionNames({"json"}),
            {{QStringLiteral("status"), Ctl::tr("each primary's library, current or not")},
             {QStringLiteral("status --json"), Ctl::tr("the same as JSON, for monitoring")}},
            runStatus};
}

} // namespace sluice::app
