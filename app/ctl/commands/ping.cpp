// SPDX-License-Identifier: GPL-3.0-or-later
// sluicectl ping: proves the server answers, then says what it is.

#include "app/common/exit_codes.h"
#include "app/ctl/ctl_commands.h"
#include "app/ctl/ctl_request.h"
#include "model/deploy/deployment_probe.h"

#include <QCoreApplication>

namespace sluice::app {

namespace {

void runPing(const CtlRequest &request)
{
    model::probeDeployment(request.client, QCoreApplication::instance(),
                           [request](const model::DeploymentProbe &probe) {
        if (!probe.ping.ok())
            return fail(request, model::Failure::fromReply(probe.ping));
        const QString target = request.client->options().redactedUrl();
        if (!probe.server.known())
            ctlOut() << QCoreApplication::translate("sluicectl", "PONG from %1 (server details not available: %2)")
                            .arg(target, probe.infoError)
                     << Qt::endl;
        else
            ctlOut() << QCoreApplication::translate("sluicectl", "PONG from %1: %2, %3")
                            .arg(target, probe.server.displayName(), probe.description)
                     << Qt::endl;
        request.finish(ExitOk);
    });
}

} // namespace

CtlCommand pingCommand()
{
    return {QStringLiteral("ping"),
            CommandGroup::Connection,
            0,
            0,
            Access::Reads,
            QString(),
            Ctl::tr("check that the server answers"),
            Ctl::tr("Check that the server answers; print its version and mode."),
            {},
            {{QStringLiteral("ping"), Ctl::tr("the server at 127.0.0.1:6379")},
             {QStringLiteral("-u rediss://redis.example:6380 --cacert ca.pem ping"), Ctl::tr("a TLS server")}},
            runPing};
}

} // namespace sluice::app
