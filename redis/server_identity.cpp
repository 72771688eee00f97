// SPDX-License-Identifier: GPL-3.0-or-later
#include "redis/server_identity.h"

#include <QCoreApplication>
#include <QStringList>

namespace sluice::redis {

ServerIdentity ServerIdentity::fromInfo(const QHash<QString, QString> &info)
{
    ServerIdentity identity;
    const bool valkey = info.value(QStringLiteral("server_name")) == QLatin1String("valkey");
    identity.product = valkey ? QStringLiteral("Valkey") : QStringLiteral("Redis");
    identity.version = info.value(valkey ? QStringLiteral("valkey_version") : QStringLiteral("redis_version"));
    if (identity.version.isEmpty())
        identity.product.clear();
    // Valkey 8 names the field server_mode; Redis and Valkey 7.2 redis_mode.
    identity.mode = info.value(QStringLiteral("redis_mode"), info.value(QStringLiteral("server_mode"), identity.mode));
    return identity;
}

QString ServerIdentity::displayName() const
{
    return known() ? product + QLatin1Char(' ') + version : QString();
}

std::optional<QString> ServerIdentity::unsupported() const
{
    if (product != QLatin1String("Redis"))
        return std::nullopt; // every Valkey has functions: it began as Redis 7.2
    bool numeric = false;
    const int major = version.section(QLatin1Char('.'), 0, 0).toInt(&numeric);
    if (!numeric || major >= 7)
        return std::nullopt;
    return QCoreApplication::translate("sluice::redis::ServerIdentity",
                                       "Sluice needs Redis 7 or later (functions); this server is %1")
        .arg(version);
}

} // namespace sluice::redis
