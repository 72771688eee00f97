// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/failure.h"
#include "model/limiter/library_owner.h"
#include "model/limiter/seed_bucket.h"
#include "model/monitor/bounded_ring.h"
#include "redis/redis_client.h"

#include <QObject>
#include <QTimer>

#include <optional>

namespace sluice::model {

// One reading of a watched bucket.
struct KeySample {
    qint64 timeMs = 0;        // Redis time for Sluice buckets, the dashboard's clock for seed layouts
    double level = 0;         // units available now (Sluice); tokens or count (seed layouts: SeedBucketState)
    double capacity = -1;     // -1: unknown (a seed layout watched without its parameters)
    qint64 resetAfterMs = -1; // until the bucket is full again; -1: unknown
    quint64 allowed = 0;      // the bucket's own counters (Sluice)
    quint64 rejected = 0;
    double rejectedPerSecond = 0; // since the previous reading
};

// A bucket on the watch list: a Sluice policy's subject, or a key of a seed system's layout.
struct WatchedKey {
    int id = 0;
    QString policy; // empty for a seed layout
    std::optional<SeedLayout> layout;
    std::optional<SeedParameters> parameters; // a seed layout's, when given: its tokens are refilled to now
    QByteArray subject;                       // the Sluice subject, or the seed layout's id / key
    QByteArray key;                           // the key read
    QString algorithm;                        // as the library reports it (Sluice), or the layout's name
    QString problem;                          // why the last reading failed; empty when it worked
    BoundedRing<KeySample> samples;

    QString label() const;
};

// Reads every watched bucket at an interval: `sluice_inspect` for Sluice buckets (routed to the
// primary of the key's slot, so a Cluster works as it is), the raw values for seed layouts (refilled to
// the dashboard's clock when their parameters are known). One
// round is outstanding at most; samples are kept for the retention in bounded rings.
class KeyWatch : public QObject {
    Q_OBJECT
public:
    static constexpr int kMaxKeys = 200;

    KeyWatch(redis::RedisClient *client, const LibraryOwner &owner, QObject *parent = nullptr);

    // Watches a key, the new entry then last in keys(), or says why not (already watched, too
    // many, bad subject).
    [[nodiscard]] std::optional<Failure> addSubject(const QString &policy, const QByteArray &subject);
    [[nodiscard]] std::optional<Failure> addSeedKey(SeedLayout layout, const QByteArray &id,
                                                    const std::optional<SeedParameters> &parameters);
    void remove(int id);
    const QVector<WatchedKey> &keys() const { return m_keys; }
    const WatchedKey *key(int id) const;

    void setIntervalMs(int intervalMs);
    int intervalMs() const { return m_timer.interval(); }
    void setRetentionMs(qint64 retentionMs);
    void start();
    void stop();
    void pollNow();
    int rounds() const { return m_rounds; } // completed rounds

Q_SIGNALS:
    void keysChanged();   // added or removed
    void sampled(int id); // one key got a reading (or a problem)
    void roundDone();

private:
    std::optional<Failure> add(WatchedKey key);
    void read(const WatchedKey &key, const std::shared_ptr<int> &outstanding);
    void takeInspect(int id, const redis::RedisReply &reply);
    void takeSeed(int id, const SeedBucketRead &read, qint64 timeMs);
    void finishOne(const std::shared_ptr<int> &outstanding);
    WatchedKey *find(int id);
    int capacity() const; // samples per key for the retention at the interval
    void resizeRings();

    redis::RedisClient *m_client;
    LibraryOwner m_owner;
    QTimer m_timer;
    qint64 m_retentionMs = 60 * 60 * 1000;
    QVector<WatchedKey> m_keys;
    int m_nextId = 1;
    bool m_outstanding = false;
    int m_rounds = 0;
};

} // namespace sluice::model
