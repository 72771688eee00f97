// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/deploy/library_publisher.h"
#include "model/metrics/counter_carry.h"
#include "model/monitor/rejected_tally.h"
#include "redis/redis_client.h"

#include <QElapsedTimer>
#include <QObject>

#include <functional>
#include <memory>
#include <optional>

namespace sluice::model {

// A policy as the running library serves it (sluice_policies), not as the store holds it.
struct PolicyMetrics {
    QString name;
    QString algorithm;
    double limit = 0; // units per window, per subject
    double windowSeconds = 0;
    double burst = 0;
    bool shadow = false;
    bool windowFromFirstCall = false; // a fixed window whose windows open at each subject's first call
};

struct PrimaryMetrics {
    QString node;
    bool up = false; // answered, with its counts or with the reason it has none
    QString problem;
    NodeLibrary::State library = NodeLibrary::State::Unreachable;
    qint64 libraryVersion = 0;
    NodeLibrary::Persistence persistence = NodeLibrary::Persistence::Unknown;
    QString maxmemoryPolicy; // empty: unknown
    qint64 evictedKeys = -1; // the whole server's since it started; -1: unknown
};

// A subject's rejections since it entered its policy's summary in the library (a counter that restarts
// from 0 when the library is reloaded or the subject enters the summary again).
struct SubjectRejections {
    QString policy;
    QString subject;
    quint64 rejections = 0;
};

// Everything one scrape read, for one namespace and database.
struct MetricsSnapshot {
    QString ns;
    QVector<PolicyMetrics> policies;    // by name
    std::optional<PolicyTotals> totals; // none when a primary did not answer: a gap, not a drop
    // Per policy that has subject rules or took reservations (sluice_rule_stats lists it), the subjects
    // its penalty blocks now; a policy without is not in it, and gets none of those series.
    QHash<QString, quint64> blockedSubjects;
    QVector<PrimaryMetrics> primaries;
    std::optional<qint64> publishedVersion; // 0: never published; none: the record could not be read
    QVector<SubjectRejections> topSubjects; // at most topPerPolicy per policy, most rejected first
    QStringList problems;                   // what went wrong, one line each
    double durationSeconds = 0;
    quint64 commands = 0; // sent to Redis for this scrape

    // Every primary answered (and there is at least one).
    bool up() const;
};

// Reads what a Prometheus scrape exposes: per primary the library's counts (sluice_stats and
// sluice_rule_stats), the policies it serves (sluice_policies), its library state and persistence; the published record once;
// and, when asked, each policy's most rejected subjects (sluice_most_rejected). Read only: FCALL_RO, HMGET,
// FUNCTION LIST, CONFIG GET. The commands per scrape grow with primaries, libraries and (for subjects)
// policies, never with subjects or keys. Scrapes asked for while one runs share its result.
class MetricsScraper : public QObject {
    Q_OBJECT
public:
    static constexpr int kMaxTopPerPolicy = 32; // what the library's summary keeps per policy
    // The subjects exposed are those with the most rejections over this window of the scraper's readings.
    static constexpr qint64 kTopWindowMs = 5 * 60 * 1000;

    // `topPerPolicy` 0 leaves the subjects out; at most kMaxTopPerPolicy.
    MetricsScraper(redis::RedisClient *client, const LibraryOwner &owner, int topPerPolicy, QObject *parent = nullptr);

    void scrape(std::function<void(const MetricsSnapshot &)> done);
    // Library reloads, restarts and failovers the counters were carried across.
    int countersCarried() const { return m_carry.resetsSeen(); }

private:
    struct Scrape;
    void readTopSubjects(const std::shared_ptr<Scrape> &scrape);
    void keepMostRejected(const QHash<QString, TopRejected> &lists, MetricsSnapshot *snapshot);
    void finish(const std::shared_ptr<Scrape> &scrape);

    redis::RedisClient *m_client;
    LibraryOwner m_owner;
    int m_topPerPolicy;
    CounterCarry m_carry;
    QHash<QString, RejectedTally> m_rejections; // per policy, the differences of its summaries between scrapes
    // The library's code is read (and hashed) at most every 30 s per primary, not on every scrape.
    std::shared_ptr<RunningCodeMemo> m_codeReads = std::make_shared<RunningCodeMemo>();
    QVector<std::function<void(const MetricsSnapshot &)>> m_waiting; // for the scrape in progress
};

} // namespace sluice::model
