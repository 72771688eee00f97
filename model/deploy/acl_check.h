// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QVector>

namespace sluice::model {

// Whether Redis ACL users reach the keys of more than one namespace: what `sluicectl acl check` reports
// about users made from older `acl` output (before November 2026 an operator's test-fire pattern
// `~<ns>-fire:*` was the whole of a namespace named `<ns>-fire`), or written by hand.

// The key prefixes of a namespace's key space: its buckets, its admin keys, and its test-fire keys in
// every seed layout (the operator role's patterns, which cover all of them, without their '*').
QStringList namespaceKeyPrefixes(const QString &ns);

// Whether some key that starts with `prefix` matches the Redis glob `pattern` (`*`, `?`, `[...]` with `^`
// and ranges, `\` escapes; case-sensitive, as ACL key patterns are).
bool globReachesPrefix(const QByteArray &pattern, const QByteArray &prefix);

struct AclUserReach {
    QString user;
    bool allKeys = false;   // ~* (allkeys): an administrator, not a namespace's role
    QStringList namespaces; // the namespaces whose keys its patterns reach, in the order given
    QStringList reasons;    // per namespace reached: "~pattern reaches <prefix>…"
    bool overlaps() const { return !allKeys && namespaces.size() > 1; }
};

// One line of ACL LIST ("user <name> <rules...>"), judged against `namespaces`.
AclUserReach judgeAclUser(const QByteArray &aclListLine, const QStringList &namespaces);

} // namespace sluice::model
