// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/monitor/server_status.h"

#include <QCoreApplication>
#include <QLocale>
#include <QRegularExpression>
#include <QStringList>

namespace sluice::model {

ServerStatus ServerStatus::fromInfo(const QHash<QString, QString> &info)
{
    auto number = [&info](const char *key) { return info.value(QLatin1String(key)).toLongLong(); };
    ServerStatus status;
    status.server = redis::ServerIdentity::fromInfo(info);
    status.role = info.value(QStringLiteral("role"));
    status.uptimeSeconds = number("uptime_in_seconds");
    status.usedMemoryBytes = number("used_memory");
    status.peakMemoryBytes = number("used_memory_peak");
    status.maxMemoryBytes = number("maxmemory");
    status.maxmemoryPolicy = info.value(QStringLiteral("maxmemory_policy"));
    status.evictedKeys = number("evicted_keys");
    status.connectedClients = number("connected_clients");
    status.opsPerSecond = number("instantaneous_ops_per_sec");
    status.aofEnabled = number("aof_enabled") != 0;

    // Keyspace lines look like db0 -> "keys=12,expires=3,avg_ttl=0".
    static const QRegularExpression dbKey(QStringLiteral("^db\\d+$"));
    static const QRegularExpression keysField(QStringLiteral("(?:^|,)keys=(\\d+)"));
    for (auto it = info.cbegin(); it != info.cend(); ++it) {
        if (!dbKey.match(it.key()).hasMatch())
            continue;
        const QRegularExpressionMatch match = keysField.match(it.value());
        if (match.hasMatch())
            status.keys += match.captured(1).toLongLong();
    }
    return status;
}

} // namespace sluice::model
