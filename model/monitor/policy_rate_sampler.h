// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/limiter/library_owner.h"
#include "model/monitor/rate_history.h"
#include "redis/redis_client.h"

#include <QHash>
#include <QObject>
#include <QSet>
#include <QTimer>

#include <map>
#include <memory>
#include <optional>

namespace sluice::model {

// One primary's `sluice_stats` totals: decisions since its library copy first counted (epochMs).
struct StatsReading {
    // sluice_stats's since_second that asks for the totals alone (no per-second series come after it).
    static inline const QByteArray totalsOnly = QByteArrayLiteral("9007199254740991");

    struct Totals {
        quint64 allowed = 0;
        quint64 rejected = 0;
    };
    qint64 nowMs = 0;
    qint64 epochMs = 0;
    QHash<QString, Totals> totals; // by policy

    // Empty (and why in `problem`) when the reply is not one of sluice_stats.
    static std::optional<StatsReading> parse(const redis::RespValue &reply, QString *problem);
};

// One policy's decisions during one sample, and its totals since the library was loaded.
struct PolicyRate {
    QString policy;
    RatePoint point;
    quint64 allowedTotal = 0;
    quint64 rejectedTotal = 0;
};

// Every policy's decisions during one sampling interval, summed over the primaries.
struct RateSample {
    qint64 endMs = 0; // Redis time of the first primary that answered
    qint32 spanMs = 0;
    QVector<PolicyRate> policies; // by name
    // Primaries that did not answer: their decisions are counted when they answer again.
    QStringList missingNodes;
    QStringList problems; // one line per primary that answered with something unexpected

    QStringList policyNames() const; // of `policies`, by name
};

// Samples every policy's allowed and rejected decisions with `sluice_stats` on every primary, at an
// interval of 250 ms to 10 s, and keeps each policy's series for a retention of 5 minutes to 24
// hours (RateHistory). Counts are the differences of the library's exact totals between two
// readings of the same primary, so a sample holds exactly the decisions taken between them
// whatever the interval. A reload of the library or a restart (the reply's epoch changes) starts a
// primary's differences afresh. One reading is outstanding at most: a slow server skips ticks
// instead of piling them up.
class PolicyRateSampler : public QObject {
    Q_OBJECT
public:
    static constexpr int kMinIntervalMs = 250;
    static constexpr int kMaxIntervalMs = 10000;
    static constexpr qint64 kMinRetentionMs = 5 * 60 * 1000;
    static constexpr qint64 kMaxRetentionMs = 24 * 60 * 60 * 1000;

    PolicyRateSampler(redis::RedisClient *client, const LibraryOwner &owner, QObject *parent = nullptr);

    // Out-of-range values are clamped into range. Changing either keeps the series collected so far.
    void setIntervalMs(int intervalMs);
    void setRetentionMs(qint64 retentionMs);
    int intervalMs() const { return m_timer.interval(); }
    qint64 retentionMs() const { return m_retentionMs; }

    void start();
    void stop();
    bool isRunning() const { return m_timer.isActive(); }
    // Reads now (the first reading only sets the baselines the next one counts from).
    void sampleNow();

    QStringList policies() const;
    const RateHistory *history(const QString &policy) const;
    // Every policy's series as kept now (what the history store saves).
    RateSeries series() const;
    // Puts points of an earlier run before the series: those ending before a policy's first sample
    // of this run, as far back as the retention keeps.
    void restore(const RateSeries &series);
    const RateSample &lastSample() const { return m_last; }
    int skippedTicks() const { return m_skipped; }
    int readings() const { return m_readingsTaken; } // completed readings, baselines included

Q_SIGNALS:
    void sampled(const sluice::model::RateSample &sample);
    void restored();
    // A primary's library is another than at its last reading: reloaded (a publish), gone, or back.
    // The library watch checks at once on it, rather than at its next interval.
    void libraryChanged();

private:
    void takeReplies(const QVector<redis::RedisClient::NodeReply> &replies);
    void rebuildHistories();

    redis::RedisClient *m_client;
    QByteArray m_statsFunction;
    QTimer m_timer;
    qint64 m_retentionMs = 60 * 60 * 1000;
    bool m_outstanding = false;
    int m_skipped = 0;
    int m_readingsTaken = 0;
    QHash<QString, StatsReading> m_readings; // per primary, the last reading
    QSet<QString> m_uncounted;               // primaries whose last answer was not a reading
    std::map<QString, std::unique_ptr<RateHistory>> m_histories;
    RateSample m_last;
};

} // namespace sluice::model
