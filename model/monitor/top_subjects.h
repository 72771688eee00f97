// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/monitor/policy_rate_sampler.h"
#include "model/monitor/top_rejected.h"

#include <QElapsedTimer>
#include <QHash>

namespace sluice::model {

// The most rejected subject of each policy that is rejecting now, for the Overview's rows. After a
// rate sample (at most every kMinGapMs), it asks every primary for the top subject (`_top <policy>
// 1`) of the kMaxPolicies policies that rejected most in that sample: a few commands, never a key
// scan. A policy that stopped rejecting keeps its last subject, with the Redis time it was read.
class TopSubjects : public QObject {
    Q_OBJECT
public:
    static constexpr int kMinGapMs = 5000;
    static constexpr int kMaxPolicies = 10;

    struct Entry {
        RejectedSubject subject;
        qint64 readAtMs = 0; // Redis time of the reading
    };

    TopSubjects(redis::RedisClient *client, const LibraryOwner &owner, PolicyRateSampler *sampler,
                QObject *parent = nullptr);

    const Entry *of(const QString &policy) const;

Q_SIGNALS:
    void updated();

private:
    void takeSample(const RateSample &sample);
    void read(const QStringList &policies);

    redis::RedisClient *m_client;
    QByteArray m_topFunction;
    QHash<QString, Entry> m_entries;
    QElapsedTimer m_sinceLastRead;
    int m_outstanding = 0;
};

} // namespace sluice::model
