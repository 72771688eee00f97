// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/deploy/library_publisher.h"
#include "redis/redis_client.h"

#include <QHash>
#include <QObject>
#include <QTimer>

namespace sluice::model {

// Keeps watching the limiter library on a deployment: after every reconnect and topology change
// (a restart, a failover, a resharding), and every `intervalMs` besides, it reads the deployment
// status and reports drift. A server restarted without persistence loses the library and the
// publish record with it, so the watch remembers which version each primary ran and reports that
// loss even when the deployment itself no longer knows anything was published.
class LibraryWatch : public QObject {
    Q_OBJECT
public:
    struct Lost {
        QString node;
        qint64 version = 0; // what it ran when last seen
    };
    struct Report {
        DeploymentStatus status;
        QVector<Lost> lost; // primaries that ran the library and no longer do, until it is back
        bool drift() const;
        // One line per problem, for a banner or a log; empty without drift.
        QStringList problems() const;
    };

    LibraryWatch(redis::RedisClient *client, const LibraryOwner &owner, int intervalMs = 30000,
                 QObject *parent = nullptr);

    void start();
    void checkNow();
    const Report &lastReport() const { return m_report; }
    int checks() const { return m_checks; }

Q_SIGNALS:
    // After each check, drift or not.
    void checked(const sluice::model::LibraryWatch::Report &report);

private:
    void onConnectionState(redis::RedisClient::State state);
    void takeStatus(const DeploymentStatus &status);
    void reportNotConnected();

    redis::RedisClient *m_client;
    LibraryPublisher m_publisher;
    QTimer m_interval;
    QTimer m_soon; // coalesces the checks a burst of topology changes asks for
    bool m_checking = false;
    bool m_checkAgain = false;
    redis::RedisClient::State m_lastState = redis::RedisClient::State::Disconnected;
    QHash<QString, qint64> m_ranVersion; // per primary, the version it ran when last current
    Report m_report;
    int m_checks = 0;
};

} // namespace sluice::model
