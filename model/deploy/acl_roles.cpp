// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/deploy/acl_roles.h"

#include <QCoreApplication>

#include <initializer_list>

namespace sluice::model {

namespace {

using Commands = std::initializer_list<const char *>;

// Every client: the PING that marks a connection ready, and the connection's name (Sluice and
// redis-py's client_name set it). AUTH and HELLO need no rule.
const Commands kConnect = {"ping", "client|setname"};

// Everything the limiter library runs (lua/limiter/, lua/clock.lua), beside FCALL itself; PTTL is
// sluice_inspect's. tst_acl_roles checks this list against the Lua sources.
const Commands kLimiterCalls = {"fcall",   "time",    "get",     "set",       "setrange", "hincrby", "hlen",
                                "hgetall", "hdel",    "pexpire", "pexpireat", "zrange",   "zadd",    "zremrangebyscore",
                                "zrem",    "zincrby", "zscore",  "pttl",      "incrby",   "decrby"};

// What a service's client sends beside the limiter's calls: WAIT behind a strict call, and on a Cluster, the
// slot map (CLUSTER SLOTS), which the snippets' ClusterClients and ioredis read (docs/services.md).
const Commands kServiceClients = {"wait", "cluster|slots"};

// The read-only functions (sluice_peek, sluice_inspect, sluice_stats, sluice_most_rejected, sluice_version), and
// the seed layouts' raw reads of the key watch (GET, PTTL).
const Commands kLimiterReads = {"fcall_ro", "time", "get", "hgetall", "zrange", "pttl"};

// The dashboard's reads: finding a Cluster's primaries, the server's status, the loaded library, the
// policy store and audit log, and browsing bucket keys (SCAN, and EXISTS for one named key).
const Commands kDashboardReads
    = {"cluster|shards", "asking", "info", "function|list", "smembers", "hmget", "xrevrange", "scan", "exists"};

// Redis's own latency beside the limiter's (the Overview): LATENCY LATEST holds event names and times only.
const Commands kLatencyReads = {"latency|latest"};
// The slowlog shows every command's arguments, every tenant's subjects among them: the operator's only, with
// CONFIG GET (below) for latency-monitor-threshold.
const Commands kSlowlogReads = {"slowlog|get"};

// apply and rollback (EVAL lua/store_commit.lua), saving the lists (EVAL lua/lists_commit.lua), publish (EVAL lua/library_record.lua, then FUNCTION
// LOAD REPLACE), reset-key (EVAL lua/bucket_reset_record.lua, then DEL), and the persistence check.
const Commands kOperatorWrites
    = {"eval", "sismember", "scard", "sadd", "srem", "del", "hset", "hget", "xadd", "function|load", "config|get"};

// Test fire at the seed layouts' scripts (SCRIPT LOAD, then EVALSHA; lua/compat_*.lua).
const Commands kSeedScripts = {"script|load", "evalsha", "incr", "expire", "setex"};

QStringList commandRules(std::initializer_list<Commands> groups)
{
    QStringList rules{QStringLiteral("-@all")};
    for (const Commands &group : groups) {
        for (const char *command : group) {
            const QString rule = QLatin1Char('+') + QLatin1String(command);
            if (!rules.contains(rule))
                rules << rule;
        }
    }
    return rules;
}

// This file's strings, under the context a translator sees them in.
struct Text {
    Q_DECLARE_TR_FUNCTIONS(sluice::model::AclRoles)
};

} // namespace

QStringList aclRoleNames()
{
    return {QStringLiteral("service"), QStringLiteral("dashboard"), QStringLiteral("operator")};
}

std::optional<AclRole> aclRoleNamed(const QString &name)
{
    for (AclRole role : {AclRole::Service, AclRole::Dashboard, AclRole::Operator})
        if (aclRoleName(role) == name)
            return role;
    return std::nullopt;
}

QString aclRoleName(AclRole role)
{
    switch (role) {
    case AclRole::Service: return QStringLiteral("service");
    case AclRole::Dashboard: return QStringLiteral("dashboard");
    case AclRole::Operator: return QStringLiteral("operator");
    }
    return {};
}

QString aclRoleSummary(AclRole role, const QString &ns)
{
    switch (role) {
    case AclRole::Service:
        return Text::tr(
                   "calls the limiter (FCALL, FCALL_RO, WAIT for strict calls) on the bucket keys %1:*; no admin key, "
                   "no other key")
            .arg(ns);
    case AclRole::Dashboard:
        return Text::tr("reads what the dashboard shows for namespace %1 (status, latency, library, policies, history, "
                        "rates, keys); writes nothing")
            .arg(ns);
    case AclRole::Operator:
        return Text::tr("the dashboard's reads plus the slowlog, apply, rollback, publish, reset-key, acquire and test "
                        "fire in namespace %1")
            .arg(ns);
    }
    return {};
}

QString defaultAclUser(AclRole role, const QString &ns)
{
    return ns + QLatin1Char('-') + aclRoleName(role);
}

QStringList aclRules(AclRole role, const QString &ns, int database)
{
    QStringList rules{QStringLiteral("reset"), QStringLiteral("on"),
                      QLatin1Char('>') + QLatin1String(kAclPasswordPlaceholder), QStringLiteral("resetchannels")};
    const QString buckets = ns + QStringLiteral(":*");                   // ns:<policy>:{<subject>}
    const QString admin = QLatin1Char('{') + ns + QStringLiteral("}:*"); // {ns}:policies, :policy:*, :audit, :library
    switch (role) {
    case AclRole::Service:
        rules << QLatin1Char('~') + buckets;
        rules << commandRules({kConnect, {"fcall", "fcall_ro"}, kLimiterCalls, kServiceClients});
        break;
    case AclRole::Dashboard:
        // Read-only key permissions: even a write command added later could not change a key.
        rules << QStringLiteral("%R~") + buckets << QStringLiteral("%R~") + admin;
        rules << commandRules({kConnect, kDashboardReads, kLimiterReads, kLatencyReads});
        break;
    case AclRole::Operator:
        rules << QLatin1Char('~') + buckets << QLatin1Char('~') + admin;
        // Test fire's own keys (model/fire/fire_target.cpp): its buckets, and the seed layouts' keys around
        // them (the millisecond bucket's tagged id, the Spring Cloud Gateway's request_rate_limiter.{id}.*).
        for (const QString &fire : {QString(), QStringLiteral("{"), QStringLiteral("request_rate_limiter.{")})
            rules << QLatin1Char('~') + fire + ns + QStringLiteral("-fire:*");
        rules << commandRules({kConnect, kDashboardReads, kLimiterReads, kLatencyReads, kLimiterCalls, kOperatorWrites,
                               kSeedScripts, kSlowlogReads});
        break;
    }
    if (database != 0)
        rules << QStringLiteral("+select|%1").arg(database);
    return rules;
}

QString aclSetUserLine(AclRole role, const QString &ns, const QString &user, int database)
{
    return QStringLiteral("ACL SETUSER %1 %2").arg(user, aclRules(role, ns, database).join(QLatin1Char(' ')));
}

} // namespace sluice::model
