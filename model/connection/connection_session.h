// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/connection/connection_profile.h"
#include "model/deploy/library_publisher.h"
#include "model/deploy/library_watch.h"
#include "model/failure.h"
#include "model/fire/fire_plan.h"
#include "model/monitor/policy_rate_sampler.h"
#include "model/monitor/rate_history_keeper.h"
#include "model/monitor/server_monitor.h"
#include "model/policy/audit_log.h"
#include "model/policy/policy_store.h"
#include "redis/redis_client.h"

#include <QObject>

#include <functional>
#include <optional>

namespace sluice::model {

class AuditFollower;
class FireEngine;
class KeyInspectorModel;
class ListsStore;
class RuleCounts;
class ServerDiagnosticsPoller;
class KeyWatch;
class SubjectReader;
class TopRejectedPoller;
class TopSubjects;

// One live connection as the dashboard holds it: the profile it came from, its client (read-only
// when the profile says so), the server monitor, the library watch and the rate sampler on it. Deleting the session
// closes everything it opened. The screens reach Redis only through it: it hands out the model's services on its
// connection, in its namespace, and never the client itself.
class ConnectionSession : public QObject {
    Q_OBJECT
public:
    // To the profile's server with `secrets`.
    ConnectionSession(const ConnectionProfile &profile, const ConnectionSecrets &secrets, QObject *parent = nullptr);
    // To `resolved` (the sandbox, a --url, tests), shown as `profile`.
    ConnectionSession(const ConnectionProfile &profile, const redis::ConnectionOptions &resolved,
                      QObject *parent = nullptr);

    ~ConnectionSession() override;

    // Keeps the rate sampler's series in `directory` across runs (RateHistoryKeeper); before start().
    void keepRateHistory(const QString &directory);
    void start();

    const ConnectionProfile &profile() const { return m_profile; }
    // The profile's name, or where it points when it has none (--url, the sandbox).
    QString label() const;
    // True while the deployment's main node is connected and ready for commands.
    bool isReady() const;
    // Each node's own connection, as the status bar's tooltip lists it.
    struct NodeReport {
        QString node; // host:port or the socket path
        bool primary = false;
        bool ready = false;
        QString state;     // "ready", "connecting", ...
        QString lastError; // why it is not ready, when known
    };
    QVector<NodeReport> nodes() const;
    ServerMonitor *monitor() const { return m_monitor; }
    LibraryWatch *libraryWatch() const { return m_watch; }
    // Every policy's live rates, sampled while the session runs (the overview, the charts).
    PolicyRateSampler *rates() const { return m_rates; }
    // The rate history kept on disk; nullptr unless keepRateHistory() was called.
    RateHistoryKeeper *rateHistory() const { return m_history; }

    // The model's services on this connection and namespace.
    PolicyStore policyStore() const;
    ListsStore listsStore() const;
    AuditLog auditLog() const;
    LibraryPublisher publisher(PublishAllowance allowance = {}) const;
    AuditFollower *followAudit(int intervalMs, QObject *parent) const;
    TopSubjects *topSubjects(QObject *parent) const;
    RuleCounts *ruleCounts(QObject *parent) const;
    TopRejectedPoller *pollTopRejected(int intervalMs, QObject *parent) const;
    ServerDiagnosticsPoller *pollDiagnostics(int intervalMs, QObject *parent) const;
    KeyWatch *watchKeys(QObject *parent) const;
    KeyInspectorModel *inspectKeys(QObject *parent) const;
    // One subject's buckets under every policy, and what each would decide now.
    SubjectReader *readSubject(QObject *parent) const;
    // Resets one bucket to full, audited as `who` (model/limiter/bucket_reset.h).
    void resetBucket(const QString &policy, const QByteArray &subject, const QString &who, QObject *context,
                     std::function<void(const std::optional<Failure> &)> done) const;
    // Starts `engine` on connections of its own to this server, as this profile allows (read-only refuses).
    std::optional<Failure> startFire(FireEngine *engine, FirePlan plan) const;
    // The primaries as the client names them (host:port or a socket path), in no particular order.
    QStringList primaries() const;
    // Commands sent on this connection so far: what the dashboard itself costs the server.
    quint64 commandsSent() const;

Q_SIGNALS:
    // The main node became ready (at the start and after every reconnect).
    void ready();
    // A node's connection changed state, or the set of nodes changed.
    void nodesChanged();

private:
    ConnectionProfile m_profile;
    redis::RedisClient *m_client;
    ServerMonitor *m_monitor;
    LibraryWatch *m_watch;
    PolicyRateSampler *m_rates;
    RateHistoryKeeper *m_history = nullptr;
};

} // namespace sluice::model
