// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/failure.h"
#include "model/limiter/seed_layouts.h"
#include "redis/redis_client.h"

#include <QObject>
#include <QSet>

#include <optional>

namespace sluice::model {

// Which bucket keys to browse: one policy's or every policy's, by a glob on the subject.
struct BucketFilter {
    QString policy;         // empty: every policy
    QString subjectPattern; // Redis glob (*, ?, [...], \ escapes); empty: every subject

    // The SCAN MATCH pattern within `ns`, or nothing and why the filter cannot be used.
    std::optional<QByteArray> matchPattern(const QString &ns, QString *problem) const;
};

struct FoundBucket {
    QByteArray key;
    QString policy;     // empty for a seed layout's bucket
    QByteArray subject; // or the seed layout's bucket id
    QString node;       // the primary holding it
    // A spread policy's subject (Policy::spread) is found as one: `key` is then the subject's key without a
    // bucket number, which no bucket has, and these are its buckets' keys, in order; `node` is empty.
    QByteArrayList spreadKeys;
};

// Browses the bucket keys of a namespace with SCAN on every primary (never KEYS), a bounded
// COUNT per step so no step holds a server for long. Work happens only when asked (fetch), a
// bounded number of steps at a time, so a filter that matches little hands control back. A
// filter naming a policy and a subject without wildcards names one key: it is looked up, not scanned.
// The buckets of a seed layout are browsed the same way, by the key that names each.
class KeyScanner : public QObject {
    Q_OBJECT
public:
    static constexpr int kStepCount = 100;         // SCAN COUNT: slots one step examines
    static constexpr int kMaxStepsPerFetch = 2500; // per primary, per fetch

    KeyScanner(redis::RedisClient *client, const QString &ns, QObject *parent = nullptr);

    // The spread policies (name: buckets) whose buckets are found as one per subject, from the next start.
    void setSpreadPolicies(const QHash<QString, int> &spread) { m_spread = spread; }
    const QHash<QString, int> &spreadPolicies() const { return m_spread; }
    // Starts over with a new filter on the primaries the client knows now, or says why not (the
    // filter is not valid, or nothing is connected). Nothing is sent until fetch().
    [[nodiscard]] std::optional<Failure> start(const BucketFilter &filter);
    // The same for a seed layout's buckets whose id matches `idPattern` (a Redis glob; empty: any).
    [[nodiscard]] std::optional<Failure> startSeed(SeedLayout layout, const QString &idPattern);
    // Scans on until at least `wanted` more buckets are found, every primary is done, or the
    // step budget is spent; found() as replies come, then fetchDone().
    void fetch(int wanted);
    // Forgets the scan (replies still on their way are dropped): nothing more to fetch until a start.
    void stop();
    bool isStarted() const { return !m_cursors.isEmpty(); }
    bool isFetching() const { return m_outstanding > 0; }
    bool atEnd() const; // every primary's cursor came back to 0 (or failed)
    bool isExactLookup() const { return !m_exactKey.isEmpty(); }
    int steps() const { return m_steps; } // SCAN commands answered since start
    int primaries() const { return int(m_cursors.size()); }
    QStringList problems() const; // "host:port: why" per primary whose scan failed

Q_SIGNALS:
    void found(const QVector<sluice::model::FoundBucket> &buckets);
    void fetchDone();

private:
    struct Cursor {
        QString node;
        QByteArray position = "0";
        bool done = false;
        QString problem;
        int stepsThisFetch = 0;
    };
    void step(int index);
    void takeStep(int index, const redis::RedisReply &reply);
    void lookUp();
    [[nodiscard]] std::optional<Failure> startOn(const QStringList &nodes);
    bool decode(FoundBucket *bucket) const; // its policy and subject (or seed id); false when not a bucket key
    // A spread policy's bucket as its subject (see FoundBucket::spreadKeys); other buckets unchanged.
    FoundBucket asSpreadSubject(FoundBucket bucket) const;

    redis::RedisClient *m_client;
    QString m_ns;
    QByteArray m_match;
    std::optional<SeedLayout> m_layout; // browsing a seed layout's buckets
    QByteArray m_exactKey;              // the one key the filter names, or empty
    FoundBucket m_exact;
    QVector<Cursor> m_cursors;
    QSet<QByteArray> m_seen; // SCAN may return a key twice; a spread subject's buckets are one
    QHash<QString, int> m_spread;
    QByteArray m_onlySubject; // a spread policy's subject looked up by name: its buckets only
    int m_generation = 0;     // replies of an earlier start are dropped
    int m_wanted = 0;
    int m_outstanding = 0;
    int m_steps = 0;
};

} // namespace sluice::model
