// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStringList>

#include <optional>

namespace sluice::model {

// The least-privilege Redis ACL users of one namespace, in one place (docs/user-guide.md#acl-roles
// explains every rule). Redis checks the commands a function or script runs against the caller's
// own rules, so each role lists what Sluice's Lua runs as well as what its client sends.
enum class AclRole {
    Service,   // calls the limiter (FCALL, FCALL_RO) on the namespace's bucket keys
    Dashboard, // reads what the dashboard shows; writes nothing
    Operator,  // the dashboard's reads plus apply, rollback, publish, reset-key, acquire and test fire
};

QStringList aclRoleNames(); // "service", "dashboard", "operator"
std::optional<AclRole> aclRoleNamed(const QString &name);
QString aclRoleName(AclRole role);
// One line on what the role may do, for the comment above its ACL SETUSER line.
QString aclRoleSummary(AclRole role, const QString &ns);

// The password placeholder the printed rule carries (">" + it); never a real secret.
inline constexpr const char *kAclPasswordPlaceholder = "CHANGE-ME";

// The user name when none is given: "<namespace>-<role>" (sluice-service for the default namespace).
QString defaultAclUser(AclRole role, const QString &ns);

// The rules after "ACL SETUSER <user>": reset first, so running the line again gives exactly these
// rules; the password placeholder; the key patterns; the commands. A database other than 0 adds
// +select|<database>, the one database the user may switch to (ACL has no other database rule).
QStringList aclRules(AclRole role, const QString &ns, int database = 0);

// The whole "ACL SETUSER <user> <rules...>" line.
QString aclSetUserLine(AclRole role, const QString &ns, const QString &user, int database = 0);

} // namespace sluice::model
