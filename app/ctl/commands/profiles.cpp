// SPDX-License-Identifier: GPL-3.0-or-later
// sluicectl profiles: the connection profiles the dashboard saved, which --profile NAME uses.

#include "app/common/exit_codes.h"
#include "app/ctl/ctl_commands.h"
#include "app/ctl/ctl_request.h"
#include "model/connection/connection_profile.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace sluice::app {

namespace {

void runProfiles(const CtlRequest &request)
{
    QString settingsProblem;
    const auto settings = model::ProfileSettings::openShared(&settingsProblem);
    if (!settingsProblem.isEmpty())
        return fail(request, model::Failure::invalid(settingsProblem));
    const QVector<model::ConnectionProfile> profiles = model::ProfileSettings(settings.get()).profiles();
    if (request.isSet("json")) {
        QJsonArray array;
        for (const model::ConnectionProfile &profile : profiles)
            array << QJsonObject{
                {QStringLiteral("name"), profile.name},
                {QStringLiteral("url"), profile.options.redactedUrl()},
                {QStringLiteral("namespace"), profile.ns},
                {QStringLiteral("environment"), model::ConnectionProfile::environmentName(profile.environment)},
                {QStringLiteral("read_only"), profile.readOnly}};
        ctlOut() << QJsonDocument(array).toJson(QJsonDocument::Indented);
    } else if (profiles.isEmpty()) {
        ctlOut()
            << QCoreApplication::translate("sluicectl", "no connection profiles saved (%1)").arg(settings->fileName())
            << Qt::endl;
    } else {
        for (const model::ConnectionProfile &profile : profiles)
            ctlOut() << QStringLiteral("%1  %2  namespace %3  %4%5")
                            .arg(profile.name, profile.options.redactedUrl(), profile.ns,
                                 model::ConnectionProfile::environmentName(profile.environment),
                                 profile.readOnly ? QStringLiteral("  read-only") : QString())
                     << Qt::endl;
    }
    request.finish(ExitOk);
}

} // namespace

CtlCommand profilesCommand()
{
    return {QStringLiteral("profiles"),
            CommandGroup::Connection,
            0,
            0,
            Access::Offline,
            QString(),
            Ctl::tr("list the dashboard's connection profiles"),
            Ctl::tr("List the connection profiles saved by the dashboard, for --profile."),
            optionNames({"json"}),
            {{QStringLiteral("profiles"), Ctl::tr("the profiles --profile can name")}},
            runProfiles};
}

} // namespace sluice::app
