// SPDX-License-Identifier: GPL-3.0-or-later
// sluicectl acl ROLE: the ACL SETUSER line of a least-privilege Redis user for one namespace, printed, never
// sent (the rules themselves are in model/deploy/acl_roles.*). sluicectl acl check: whether the server's ACL
// users each reach one namespace at most (model/deploy/acl_check.*).

#include "app/common/exit_codes.h"
#include "app/ctl/ctl_commands.h"
#include "app/ctl/ctl_request.h"
#include "app/ctl/text_table.h"
#include "model/deploy/acl_check.h"
#include "model/deploy/acl_roles.h"
#include "model/deploy/library_publisher.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace sluice::app {

namespace {

// ACL user names are one argument of ACL SETUSER and one word of an ACL file: no spaces, nothing unprintable.
bool isUsableAclUser(const QString &name)
{
    static const QRegularExpression printable(QRegularExpression::anchoredPattern(QStringLiteral("[!-~]{1,128}")));
    return printable.match(name).hasMatch();
}

void printReach(const CtlRequest &request, const QVector<model::AclUserReach> &users, const QStringList &namespaces)
{
    if (request.isSet("json")) {
        QJsonArray rows;
        for (const model::AclUserReach &user : users)
            rows.append(QJsonObject{{QStringLiteral("user"), user.user},
                                    {QStringLiteral("all_keys"), user.allKeys},
                                    {QStringLiteral("namespaces"), QJsonArray::fromStringList(user.namespaces)},
                                    {QStringLiteral("reasons"), QJsonArray::fromStringList(user.reasons)},
                                    {QStringLiteral("overlaps"), user.overlaps()}});
        ctlOut() << QJsonDocument(QJsonObject{{QStringLiteral("namespaces"), QJsonArray::fromStringList(namespaces)},
                                              {QStringLiteral("users"), rows}})
                        .toJson(QJsonDocument::Compact)
                 << Qt::endl;
        return;
    }
    ctlOut() << Ctl::tr("Namespaces on this server: %1").arg(namespaces.join(QStringLiteral(", "))) << Qt::endl;
    const TextTable table({{"USER", -24}, {"REACHES", -28}, {"VERDICT", 0}}, 2);
    ctlOut() << table.header() << Qt::endl;
    for (const model::AclUserReach &user : users) {
        const QString reaches = user.allKeys ? Ctl::tr("every key")
            : user.namespaces.isEmpty()      ? Ctl::tr("no namespace")
                                             : user.namespaces.join(QStringLiteral(", "));
        const QString verdict = user.allKeys ? Ctl::tr("an administrator (~*), not a namespace's role")
            : user.overlaps()                ? Ctl::tr("OVERLAPS: %1").arg(user.reasons.join(QStringLiteral("; ")))
                                             : Ctl::tr("ok");
        ctlOut() << table.row({user.user, reaches, verdict}) << Qt::endl;
    }
    if (std::any_of(users.cbegin(), users.cend(), [](const model::AclUserReach &u) { return u.overlaps(); }))
        ctlOut() << Ctl::tr("A user that reaches another namespace's keys can read or change them. Recreate it "
                            "from `sluicectl acl ROLE --namespace NS --user NAME` (today's rules are disjoint for "
                            "namespaces Sluice accepts); a namespace ending in -fire, which Sluice no longer "
                            "accepts, overlaps the test-fire keys of the namespace before it: move its policies "
                            "to another name.")
                 << Qt::endl;
}

// Every ACL user of every primary against every namespace a Sluice library on them serves, and this one.
void runAclCheck(const CtlRequest &request)
{
    whenReady(request, [request] {
        auto *context = new QObject(QCoreApplication::instance());
        model::LibraryPublisher(request.client, request.owner())
            .primaryStatus(context, [request, context](const model::DeploymentStatus &status) {
                QStringList namespaces{request.ns};
                for (const model::NodeLibrary &node : status.nodes)
                    for (const model::LoadedLibrary &library : node.libraries)
                        if (library.owner && !namespaces.contains(library.owner->ns))
                            namespaces << library.owner->ns;
                namespaces.sort();
                request.client->sendToPrimaries(
                    {"ACL", "LIST"}, context,
                    [request, namespaces](const QVector<redis::RedisCommands::NodeReply> &replies) {
                QVector<model::AclUserReach> users;
                QSet<QByteArray> seen;
                for (const redis::RedisCommands::NodeReply &node : replies) {
                    if (!node.reply.ok())
                        return fail(request,
                                    model::Failure::fromReply(node.reply)
                                        .prefixed(Ctl::tr("cannot list the ACL users of %1 (it takes ACL LIST, an "
                                                          "administrator's command)")
                                                      .arg(node.node)));
                    for (const redis::RespValue &line : node.reply.value.elements)
                        if (!seen.contains(line.bytes)) {
                            seen.insert(line.bytes);
                            users << model::judgeAclUser(line.bytes, namespaces);
                        }
                }
                printReach(request, users, namespaces);
                const bool overlaps = std::any_of(users.cbegin(), users.cend(),
                                                  [](const model::AclUserReach &u) { return u.overlaps(); });
                request.finish(overlaps ? ExitAclOverlap : ExitOk);
                    });
            });
    });
}

void runAcl(const CtlRequest &request)
{
    if (request.args.value(0) == QLatin1String("check"))
        return runAclCheck(request);
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
        Access::OfflineUnlessChecking,
        QStringLiteral("service|dashboard|operator|check"),
        Ctl::tr("print a least-privilege Redis user, or check the server's users"),
        Ctl::tr("Print the ACL SETUSER line of a least-privilege Redis user for the namespace: a service calling the "
                "limiter, the read-only dashboard, or an operator who applies and publishes. Sends nothing. With "
                "check, read every primary's ACL users (ACL LIST, an administrator's command) and say which reach "
                "the keys of more than one namespace (those a Sluice library on the server serves, and this one); "
                "exit 12 when one does."),
        optionNames({"json"}),
        {{QStringLiteral("acl service --user checkout"), Ctl::tr("a user for a service that calls the limiter")},
         {QStringLiteral("acl dashboard --namespace teamb -n 1"), Ctl::tr("a read-only user for teamb in database 1")},
         {QStringLiteral("--profile prod-admin acl check"),
          Ctl::tr("whether users made from older acl output still reach one namespace each")}},
        runAcl};
}

} // namespace sluice::app
