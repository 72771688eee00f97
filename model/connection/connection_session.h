// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/connection/connection_profile.h"
#include "model/deploy/library_watch.h"
#include "model/monitor/policy_rate_sampler.h"
#include "model/monitor/rate_history_keeper.h"
#include "model/monitor/server_monitor.h"
#include "redis/redis_client.h"

#include <QObject>

namespace sluice::model {

// One live connection as the dashboard holds it: the profile it came from, its client (read-only
// when the profile says so), the server monitor, the library watch and the rate sampler on it. Deleting the session
// closes everything it opened.
class ConnectionSession : public QObject {
    Q_OBJECT
public:
    // `resolved` is the profile's options with its secrets filled in.
    ConnectionSession(const ConnectionProfile &profile, const redis::ConnectionOptions &resolved,
                      QObject *parent = nullptr);

    ~ConnectionSession() override;

    // Keeps the rate sampler's series in `directory` across runs (RateHistoryKeeper); before start().
    void keepRateHistory(const QString &directory);
    void start();

    const ConnectionProfile &profile() const { return m_profile; }
    // The profile's name, or where it points when it has none (--url, the sandbox).
    QString label() const;
    redis::RedisClient *client() const { return m_client; }
    // True while the deployment's main node is connected and ready for commands.
    bool isReady() const;
    // Each node's own connection, as the status bar's tooltip lists it.
    struct NodeReport {
        QString node;      // host:port or the socket path
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
