// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/format/units.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QLocale>
#include <QRegularExpression>
#include <QStringList>

#include <cmath>

namespace sluice::model {

QString formatCount(qint64 n)
{
    return QLocale().toString(n);
}

QString formatDecimal(double value)
{
    // Decided on the value as shown: 6.98 is "7", never "7.0".
    const double tenths = std::round(value * 10) / 10;
    const bool fraction = std::abs(tenths) < 10 && tenths != std::floor(tenths);
    return QLocale().toString(value, 'f', fraction ? 1 : 0);
}

QString formatShare(double share)
{
    return QLocale().toString(100 * share, 'f', 1) + QLatin1Char('%');
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
    struct Unit {
        qint64 seconds;
        const char *name;
    };
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

QString formatClock(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms).toString(QStringLiteral("HH:mm:ss"));
}

QString formatDateTime(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

std::optional<qint64> parseDurationMs(const QString &text)
{
    static const QRegularExpression form(QStringLiteral("^\\s*(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|min|h|d)?\\s*$"));
    const QRegularExpressionMatch match = form.match(text);
    if (!match.hasMatch())
        return std::nullopt;
    const QString unit = match.captured(2);
    const qint64 scale = unit.isEmpty() || unit == QLatin1String("ms") ? 1
        : unit == QLatin1String("s")                                   ? 1000
        : unit == QLatin1String("h")                                   ? 3600000
        : unit == QLatin1String("d")                                   ? 86400000
                                                                       : 60000;
    const double ms = match.captured(1).toDouble() * double(scale);
    if (ms > 9e15 || ms != std::floor(ms))
        return std::nullopt;
    return qint64(ms);
}

} // namespace sluice::model
