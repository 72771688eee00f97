#include "model/server_status.h"

#include <QCoreApplication>
#include <QLocale>
#include <QRegularExpression>
#include <QStringList>

namespace sluice::model {

ServerStatus ServerStatus::fromInfo(const QHash<QString, QString> &info)
{
    auto number = [&info](const char *key) { return info.value(QLatin1String(key)).toLongLong(); };
    ServerStatus status;
    status.version = info.value(QStringLiteral("redis_version"));
    status.mode = info.value(QStringLiteral("redis_mode"), QStringLiteral("standalone"));
    status.role = info.value(QStringLiteral("role"));
    status.uptimeSeconds = number("uptime_in_seconds");
    status.usedMemoryBytes = number("used_memory");
    status.peakMemoryBytes = number("used_memory_peak");
    status.maxMemoryBytes = number("maxmemory");
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

QString formatBytes(qint64 bytes)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
    if (bytes < 1024)
        return QCoreApplication::translate("sluice", "%1 B").arg(bytes);
    double value = static_cast<double>(bytes);
    int unit = -1;
    while (value >= 1024.0 && unit < 3) {
        value /= 1024.0;
        ++unit;
    }
    return QStringLiteral("%1 %2").arg(value, 0, 'f', 1).arg(QLatin1String(units[unit]));
}

QString formatDuration(qint64 seconds)
{
    struct Unit { qint64 seconds; const char *name; };
    static const Unit units[] = {{86400, "d"}, {3600, "h"}, {60, "min"}, {1, "s"}};
    QStringList parts;
    for (const Unit &unit : units) {
        if (seconds >= unit.seconds || (parts.isEmpty() && unit.seconds == 1)) {
            parts << QStringLiteral("%1 %2").arg(seconds / unit.seconds).arg(QLatin1String(unit.name));
            seconds %= unit.seconds;
        }
        if (parts.size() == 2)
            break;
    }
    return parts.join(QLatin1Char(' '));
}

QString formatWait(qint64 ms)
{
    const QLocale locale;
    if (ms < 1000)
        return QCoreApplication::translate("sluice::model", "%1 ms").arg(ms);
    if (ms < 120 * 1000)
        return QCoreApplication::translate("sluice::model", "%1 s").arg(locale.toString(ms / 1000.0, 'f', 1));
    const qint64 seconds = ms / 1000;
    if (seconds < 2 * 3600)
        return QCoreApplication::translate("sluice::model", "%1 min %2 s").arg(seconds / 60).arg(seconds % 60);
    return QCoreApplication::translate("sluice::model", "%1 h %2 min").arg(seconds / 3600).arg(seconds / 60 % 60);
}

} // namespace sluice::model
