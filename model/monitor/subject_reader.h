// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/failure.h"
#include "model/limiter/bucket_state.h"
#include "model/limiter/library_owner.h"
#include "redis/redis_client.h"

#include <QObject>
#include <QSet>
#include <QTimer>

#include <optional>

namespace sluice::model {

// What the library would answer one call of cost 1 now (`sluice_peek`, which consumes and counts nothing).
struct PeekedDecision {
    bool admitted = false;
    qint64 remaining = 0;
    qint64 retryAfterMs = -1; // after a rejection; -2: the call can never pass
};

// One policy's bucket of the subject, as last read.
struct SubjectBucket {
    QString policy;
    bool shadow = false;
    std::optional<BucketState> state;       // the last good reading, kept (greyed) when a later one fails
    std::optional<PeekedDecision> decision; // read with the state
    qint64 readAtMs = 0;                    // this machine's clock at the last good reading; 0: never read
    QString problem;                        // why the last reading failed; empty when it worked

    // True when a call of cost 1 now would be rejected, or for a shadow policy would have been.
    bool wouldReject() const;
    // What a call of cost 1 would get now, in words: "admitted (4 left)", "rejected: wait 1.2 s",
    // "rejected: denied by a list", "would reject (shadow)". Empty until read.
    QString decisionText() const;
};

// One subject under every policy of the library: each bucket's state (`sluice_inspect`) and what the library
// would decide for a call now (`sluice_peek`), read at an interval while started, one round outstanding at most.
// All of a subject's buckets share its hash tag, so in a Cluster they live on one primary.
class SubjectReader : public QObject {
    Q_OBJECT
public:
    SubjectReader(redis::RedisClient *client, const LibraryOwner &owner, QObject *parent = nullptr);

    // The subject read from now on (its rows start unread), or why not (empty, a brace, too long: then none).
    [[nodiscard]] std::optional<Failure> setSubject(const QByteArray &subject);
    QByteArray subject() const { return m_subject; }
    // The library's policies, by name (what sluice_stats lists); a policy gone is dropped, a new one added.
    void setPolicies(const QStringList &policies);
    void setShadowPolicies(const QSet<QString> &shadow);
    const QVector<SubjectBucket> &buckets() const { return m_buckets; }

    void setIntervalMs(int intervalMs) { m_timer.setInterval(intervalMs); }
    void start();
    void stop();
    void pollNow();
    int rounds() const { return m_rounds; } // completed rounds

Q_SIGNALS:
    void bucketsChanged(); // the rows themselves: another subject, a policy added or gone
    void roundDone();      // every row was read (or failed) once more

private:
    void take(const QString &policy, const redis::RedisReply &inspected, const redis::RedisReply &peeked);
    SubjectBucket *find(const QString &policy);

    redis::RedisClient *m_client;
    LibraryOwner m_owner;
    QTimer m_timer;
    QByteArray m_subject;
    QVector<SubjectBucket> m_buckets;
    QSet<QString> m_shadow; // the published shadow policies
    int m_generation = 0;   // replies for another subject are dropped
    bool m_outstanding = false;
    int m_rounds = 0;
};

} // namespace sluice::model
