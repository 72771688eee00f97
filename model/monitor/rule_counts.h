// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/limiter/library_owner.h"
#include "model/monitor/policy_rate_sampler.h"
#include "model/monitor/rule_stats.h"
#include "redis/redis_client.h"

#include <QElapsedTimer>
#include <QObject>

namespace sluice::model {

// Each policy's subject rules and reservations at work, summed over the primaries (sluice_rule_stats),
// for the Overview: read beside the rate samples, at most every kMinGapMs (blocks are counted in
// granules of a 64th of block_ms, so a faster read would say no more).
class RuleCounts : public QObject {
    Q_OBJECT
public:
    static constexpr int kMinGapMs = 5000;

    struct Entry {
        PolicyRuleCounts sum; // over the primaries that answered
        qint64 readAtMs = 0;  // Redis time of the reading
        bool complete = true; // every primary answered: the sum can be vouched for
    };

    RuleCounts(redis::RedisClient *client, const LibraryOwner &owner, PolicyRateSampler *sampler,
               QObject *parent = nullptr);

    // The policy's counts, or nullptr when it has no rules and took no reservations (or none were read).
    const Entry *of(const QString &policy) const;

Q_SIGNALS:
    void updated();

private:
    void read();

    redis::RedisClient *m_client;
    QByteArray m_function;
    QHash<QString, Entry> m_entries;
    QElapsedTimer m_sinceLastRead;
    bool m_outstanding = false;
};

} // namespace sluice::model
