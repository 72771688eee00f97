// SPDX-License-Identifier: GPL-3.0-or-later
#include "redis/command_access.h"

#include <QSet>

namespace sluice::redis {

namespace {

// Grouped by kind by hand, which a formatter would undo.
// clang-format off
// Commands that never change data, plus the connection's own session commands.
const QSet<QByteArray> readCommands = {
    "PING", "ECHO", "INFO", "TIME", "DBSIZE", "ROLE", "LASTSAVE", "HELLO", "AUTH", "SELECT", "READONLY",
    "READWRITE", "ASKING", "TYPE", "TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME", "EXISTS", "RANDOMKEY", "DUMP",
    "GET", "MGET", "GETRANGE", "STRLEN", "GETBIT", "BITCOUNT", "BITPOS", "PFCOUNT",
    "HGET", "HMGET", "HGETALL", "HKEYS", "HVALS", "HLEN", "HEXISTS", "HSTRLEN", "HRANDFIELD",
    "SCAN", "HSCAN", "SSCAN", "ZSCAN",
    "SMEMBERS", "SISMEMBER", "SMISMEMBER", "SCARD", "SRANDMEMBER",
    "LRANGE", "LLEN", "LINDEX", "LPOS",
    "ZRANGE", "ZRANGEBYSCORE", "ZREVRANGE", "ZREVRANGEBYSCORE", "ZRANGEBYLEX", "ZREVRANGEBYLEX", "ZCARD",
    "ZSCORE", "ZMSCORE", "ZRANK", "ZREVRANK", "ZCOUNT", "ZLEXCOUNT",
    "XRANGE", "XREVRANGE", "XLEN", "XREAD",
    "FCALL_RO", "EVAL_RO", "EVALSHA_RO",
};

// Container commands whose subcommand decides.
const QSet<QByteArray> readSubcommands = {
    "CLUSTER SHARDS", "CLUSTER SLOTS", "CLUSTER NODES", "CLUSTER INFO", "CLUSTER KEYSLOT", "CLUSTER MYID",
    "CLUSTER COUNTKEYSINSLOT", "CLUSTER GETKEYSINSLOT",
    "CLIENT LIST", "CLIENT INFO", "CLIENT GETNAME", "CLIENT ID", "CLIENT SETNAME",
    "CONFIG GET", "FUNCTION LIST", "FUNCTION DUMP", "FUNCTION STATS", "SCRIPT EXISTS",
    "MEMORY USAGE", "MEMORY STATS", "OBJECT ENCODING", "OBJECT FREQ", "OBJECT IDLETIME", "OBJECT REFCOUNT",
    "SLOWLOG GET", "SLOWLOG LEN", "LATENCY LATEST", "LATENCY HISTORY", "XINFO STREAM", "XINFO GROUPS",
    "XINFO CONSUMERS", "COMMAND INFO", "COMMAND COUNT", "COMMAND DOCS", "COMMAND GETKEYS", "ACL WHOAMI",
    "SENTINEL GET-MASTER-ADDR-BY-NAME", "SENTINEL MASTERS", "SENTINEL MASTER", "SENTINEL REPLICAS",
    "SENTINEL SENTINELS",
};
// clang-format on

} // namespace

bool isReadOnlyCommand(const QByteArrayList &args)
{
    if (args.isEmpty())
        return false;
    const QByteArray name = args.first().toUpper();
    if (readCommands.contains(name))
        return true;
    return args.size() > 1 && readSubcommands.contains(name + ' ' + args.at(1).toUpper());
}

} // namespace sluice::redis
