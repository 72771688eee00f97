// SPDX-License-Identifier: GPL-3.0-or-later
// sluicectl export: the stored policies as a policy file.

#include "app/common/exit_codes.h"
#include "app/ctl/ctl_commands.h"
#include "app/ctl/ctl_policies.h"
#include "app/ctl/ctl_request.h"
#include "app/ctl/text_table.h"
#include "model/files/own_files.h"
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
        ctlOut() << Ctl::tr("exported %1 policies to %2").arg(policies.size()).arg(request.args.first()) << Qt::endl;
        request.finish(ExitOk);
    });
}

} // namespace

CtlCommand exportCommand()
{
    return {
        QStringLiteral("export"),
        CommandGroup::Policies,
        0,
        1,
        Access::Reads,
        QStringLiteral("[FILE]"),
        Ctl::tr("write the stored policies as a policy file"),
        Ctl::tr(
            "Write the stored policies as a policy file that apply takes back; to FILE (whole or not at all), or to "
            "standard output."),
        {},
        {{QStringLiteral("export backup.json"), Ctl::tr("a backup to restore with apply")},
         {QStringLiteral("export | jq '.policies[].name'"), Ctl::tr("the names, through jq")}},
        runExport};
}

} // namespace sluice::app
