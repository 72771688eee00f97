// SPDX-License-Identifier: GPL-3.0-or-later
// sluicectl acl ROLE: the ACL SETUSER line of a least-privilege Redis user for one namespace, printed, never
// sent (the rules themselves are in model/deploy/acl_roles.*).

#include "app/common/exit_codes.h"
#include "app/ctl/ctl_commands.h"
#include "app/ctl/ctl_request.h"
#include "model/deploy/acl_roles.h"

#include <QCoreApplication>
#include <QRegularExpression>

namespace sluice::app {

namespace {

// ACL user names are one argument of ACL SETUSER and one word of an ACL file: no spaces, nothing unprintable.
bool isUsableAclUser(const QString &name)
{
    static const QRegularExpression printable(QRegularExpression::anchoredPattern(QStringLiteral("[!-~]{1,128}")));
    return printable.match(name).hasMatch();
}

void runAcl(const CtlRequest &request)
{
    const std::optional<model::AclRole> role = model::aclRoleNamed(request.args.value(0));
    if (!role) {
        failUsage(request,
                  Ctl::tr("unknown role \"%1\"; the roles are: %2")
                      .arg(request.args.value(0), model::aclRoleNames().join(QStringLiteral(", "))));
        return;
    }
    const QString user = request.target.user.isEmpty() ? model::defaultAclUser(*role, request.ns) : request.target.user;
    if (!isUsableAclUser(user)) {
        failUsage(request, Ctl::tr("--user must be 1 to 128 printable characters without spaces"));
        return;
    }
    ctlOut() << QStringLiteral("# %1 (%2): %3")
                    .arg(user, model::aclRoleName(*role), model::aclRoleSummary(*role, request.ns))
             << Qt::endl
             << Ctl::tr(
                    "# %1 stands for the password: write it there, or replace >%1 with # and the password's SHA-256 "
                    "in hex.")
                    .arg(QLatin1String(model::kAclPasswordPlaceholder))
             << Qt::endl
             << model::aclSetUserLine(*role, request.ns, user, request.target.database) << Qt::endl;
    request.finish(ExitOk);
}

} // namespace

CtlCommand aclCommand()
{
    return {
        QStringLiteral("acl"),
        CommandGroup::Deployment,
        1,
        1,
        Access::Offline,
        QStringLiteral("service|dashboard|operator"),
        Ctl::tr("print a least-privilege Redis user"),
        Ctl::tr("Print the ACL SETUSER line of a least-privilege Redis user for the namespace: a service calling the "
                "limiter, the read-only dashboard, or an operator who applies and publishes. Sends nothing."),
        {},
        {{QStringLiteral("acl service --user checkout"), Ctl::tr("a user for a service that calls the limiter")},
         {QStringLiteral("acl dashboard --namespace teamb -n 1"), Ctl::tr("a read-only user for teamb in database 1")}},
        runAcl};
}

} // namespace sluice::app
