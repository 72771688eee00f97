// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/monitor/eviction_risk.h"

#include <QCoreApplication>

namespace sluice::model {

namespace {

struct Text {
    Q_DECLARE_TR_FUNCTIONS(sluice::model::EvictionRisk)
};

} // namespace

EvictionRisk evictionRiskOf(const QString &maxmemoryPolicy)
{
    if (maxmemoryPolicy == QLatin1String("noeviction"))
        return EvictionRisk::None;
    if (maxmemoryPolicy.startsWith(QLatin1String("volatile-")))
        return EvictionRisk::Buckets;
    if (maxmemoryPolicy.startsWith(QLatin1String("allkeys-")))
        return EvictionRisk::Everything;
    return EvictionRisk::Unknown;
}

int evictionRiskLevel(EvictionRisk risk)
{
    switch (risk) {
    case EvictionRisk::None: return 0;
    case EvictionRisk::Buckets: return 1;
    case EvictionRisk::Everything: return 2;
    case EvictionRisk::Unknown: break;
    }
    return -1;
}

QString evictionWarning(const QString &maxmemoryPolicy)
{
    switch (evictionRiskOf(maxmemoryPolicy)) {
    case EvictionRisk::Buckets:
        return Text::tr("maxmemory-policy %1 can evict limiter buckets when memory runs out (each has a TTL): "
                        "buckets may be reset, and subjects get their full limit again; use noeviction, or a "
                        "Redis of the limiter's own")
            .arg(maxmemoryPolicy);
    case EvictionRisk::Everything:
        return Text::tr("maxmemory-policy %1 can evict any key when memory runs out: limiter buckets (subjects "
                        "get their full limit again), and the policy store, the publish record and the audit log "
                        "too; use noeviction, or a Redis of the limiter's own")
            .arg(maxmemoryPolicy);
    case EvictionRisk::None:
    case EvictionRisk::Unknown: break;
    }
    return {};
}

QString evictedWarning(qint64 evicted, const QString &since)
{
    if (evicted <= 0)
        return {};
    const QString count = evicted == 1 ? Text::tr("1 key evicted") : Text::tr("%1 keys evicted").arg(evicted);
    return Text::tr("%1 %2 (evicted_keys counts the whole server, not only Sluice's keys): buckets may have been "
                    "reset, letting subjects in again at their full limit")
        .arg(count, since);
}

QStringList evictionWarnings(const QString &maxmemoryPolicy, qint64 evictedSinceStart)
{
    QStringList warnings{evictionWarning(maxmemoryPolicy),
                         evictedWarning(evictedSinceStart, Text::tr("since the server started"))};
    warnings.removeAll(QString());
    return warnings;
}

} // namespace sluice::model
