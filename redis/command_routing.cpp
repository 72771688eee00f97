// SPDX-License-Identifier: GPL-3.0-or-later
#include "redis/command_routing.h"

#include "redis/cluster_topology.h"

#include <QHash>

namespace sluice::redis {

namespace {

// Where a command keeps its first key.
enum class KeyPosition { FirstArgument, AfterSubcommand, Scripted, None };

const QHash<QByteArray, KeyPosition> &keyPositions()
{
    static const QHash<QByteArray, KeyPosition> table = [] {
        QHash<QByteArray, KeyPosition> positions;
        for (const char *name : {"FCALL", "FCALL_RO", "EVAL", "EVAL_RO", "EVALSHA", "EVALSHA_RO"})
            positions.insert(name, KeyPosition::Scripted);
        for (const char *name : {"MEMORY", "OBJECT"})
            positions.insert(name, KeyPosition::AfterSubcommand);
        for (const char *name :
             {"ACL",     "ASKING",  "AUTH",   "BGSAVE",   "CLIENT",   "CLUSTER",  "COMMAND",  "CONFIG",    "DBSIZE",
              "DEBUG",   "ECHO",    "EXEC",   "FLUSHALL", "FLUSHDB",  "FUNCTION", "HELLO",    "INFO",      "LASTSAVE",
              "LATENCY", "MONITOR", "MULTI",  "PING",     "PUBLISH",  "QUIT",     "READONLY", "READWRITE", "ROLE",
              "SAVE",    "SCAN",    "SCRIPT", "SELECT",   "SENTINEL", "SLOWLOG",  "SWAPDB",   "TIME",      "WAIT"})
            positions.insert(name, KeyPosition::None);
        return positions;
    }();
    return table;
}

KeyPosition keyPosition(const QByteArray &name)
{
    const auto &table = keyPositions();
    // Commands are nearly always written in capitals; only others pay for the conversion.
    auto found = table.constFind(name);
    if (found == table.constEnd()) {
        const QByteArray upper = name.toUpper();
        if (upper != name)
            found = table.constFind(upper);
    }
    return found == table.constEnd() ? KeyPosition::FirstArgument : *found;
}

} // namespace

std::optional<QByteArray> routingKey(const QByteArrayList &args)
{
    if (args.size() < 2)
        return std::nullopt;
    switch (keyPosition(args.first())) {
    case KeyPosition::FirstArgument: return args.at(1);
    case KeyPosition::AfterSubcommand: return args.size() > 2 ? std::optional<QByteArray>(args.at(2)) : std::nullopt;
    case KeyPosition::Scripted:
        if (args.size() < 4 || args.at(2).toLongLong() <= 0)
            return std::nullopt;
        return args.at(3);
    case KeyPosition::None: break;
    }
    return std::nullopt;
}

std::optional<Redirect> parseRedirect(const QByteArray &error, const QString &answeredBy)
{
    const QList<QByteArray> parts = error.split(' ');
    if (parts.size() != 3 || (parts.at(0) != "MOVED" && parts.at(0) != "ASK"))
        return std::nullopt;
    bool slotOk = false;
    const int slot = parts.at(1).toInt(&slotOk);
    QString address = QString::fromUtf8(parts.at(2));
    if (address.startsWith(QLatin1Char(':')))
        address.prepend(answeredBy);
    Redirect redirect;
    QString ignored;
    if (!slotOk || slot < 0 || slot >= clusterSlotCount || !HostPort::parse(address, &redirect.node, &ignored))
        return std::nullopt;
    redirect.ask = parts.at(0) == "ASK";
    redirect.slot = slot;
    return redirect;
}

} // namespace sluice::redis
