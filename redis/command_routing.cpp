#include "redis/command_routing.h"

#include "redis/cluster_topology.h"

#include <QSet>

namespace sluice::redis {

std::optional<QByteArray> routingKey(const QByteArrayList &args)
{
    if (args.size() < 2)
        return std::nullopt;
    const QByteArray name = args.first().toUpper();
    static const QSet<QByteArray> scripted{"FCALL", "FCALL_RO", "EVAL", "EVAL_RO", "EVALSHA", "EVALSHA_RO"};
    if (scripted.contains(name)) {
        if (args.size() < 4 || args.at(2).toLongLong() <= 0)
            return std::nullopt;
        return args.at(3);
    }
    static const QSet<QByteArray> keyless{
        "ACL",     "ASKING",  "AUTH",     "BGSAVE",   "CLIENT", "CLUSTER", "COMMAND",  "CONFIG",
        "DBSIZE",  "DEBUG",   "ECHO",     "EXEC",     "FLUSHALL", "FLUSHDB", "FUNCTION", "HELLO",
        "INFO",    "LASTSAVE", "LATENCY", "MONITOR",  "MULTI",  "PING",    "PUBLISH",  "QUIT",
        "READONLY", "READWRITE", "ROLE",  "SAVE",     "SCAN",   "SCRIPT",  "SELECT",   "SENTINEL",
        "SLOWLOG", "SWAPDB",  "TIME",     "WAIT"};
    if (keyless.contains(name))
        return std::nullopt;
    // MEMORY USAGE key, OBJECT ENCODING key: the key follows the subcommand.
    if (name == "MEMORY" || name == "OBJECT")
        return args.size() > 2 ? std::optional<QByteArray>(args.at(2)) : std::nullopt;
    return args.at(1);
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
