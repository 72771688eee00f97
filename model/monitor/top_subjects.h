// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/monitor/policy_rate_sampler.h"
#include "model/monitor/rejected_tally.h"

#include <QElapsedTimer>
#include <QHash>

namespace sluice::model {

// The most rejected subject of each policy that is rejecting now, for the Overview's rows. After a
// rate sample (at most every kMinGapMs), it reads the library's summary (`_most_rejected <policy>`) of
// the kMaxPolicies policies that rejected most in that sample on every primary: a few commands, never a
// key scan. A subject's rejections are the differences between this reader's readings over the last
// kWindowMs (RejectedTally; a first reading counts from the library's load). A policy that stopped rejecting
// keeps its last subject, with the Redis time it was read.
class TopSubjects : public QObject {
    Q_OBJECT
public:
    static constexpr int kMinGapMs = 5000;
    static constexpr int kMaxPolicies = 10;
    static constexpr qint64 kWindowMs = 60 * 1000;

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
    QByteArray m_function;
    QHash<QString, Entry> m_entries;
    QHash<QString, RejectedTally> m_tallies; // per policy read
    QElapsedTimer m_sinceLastRead;
    int m_outstanding = 0;
};

} // namespace sluice::model
