// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringList>

namespace sluice::model {

// What a server's maxmemory-policy may drop when it runs out of memory. Every bucket Sluice writes has a
// TTL, so volatile-* policies can evict buckets; allkeys-* can evict any key, the policy store, the
// publish record and the audit log included. Evicting a bucket resets it: its subject gets its full limit
// again. Read from INFO memory's maxmemory_policy, which the dashboard role may read.
enum class EvictionRisk {
    Unknown,    // not known (no INFO, or a policy this version does not know)
    None,       // noeviction: writes fail instead, nothing is dropped
    Buckets,    // volatile-*: keys with a TTL, every bucket among them
    Everything, // allkeys-*: any key, the store and audit log too
};

EvictionRisk evictionRiskOf(const QString &maxmemoryPolicy);
// For the exporter: 0 none, 1 buckets, 2 everything, -1 unknown.
int evictionRiskLevel(EvictionRisk risk);

// One sentence on what the policy may drop, or empty when it drops nothing (or is unknown).
QString evictionWarning(const QString &maxmemoryPolicy);

// One sentence on `evicted` keys dropped (since the server started, or since the last look): empty for none.
// evicted_keys counts the whole server, not only Sluice's keys, which the sentence says.
QString evictedWarning(qint64 evicted, const QString &since);

// Both of the above for a server read once (sluicectl status, the Deployment tab): what its policy may
// drop, and what it evicted since it started; empty when neither applies.
QStringList evictionWarnings(const QString &maxmemoryPolicy, qint64 evictedSinceStart);

} // namespace sluice::model
