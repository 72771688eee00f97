// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/monitor/server_status.h"
#include "redis/redis_client.h"

#include <QObject>
#include <QTimer>

namespace sluice::model {

// Polls the main node of a deployment with INFO at a fixed interval and reports what it finds, or why it
// cannot. Every request is asynchronous; one poll is outstanding at most.
class ServerMonitor : public QObject {
    Q_OBJECT
public:
    enum class Health { Connecting, Ready, Unreachable, Failed };
    Q_ENUM(Health)

    ServerMonitor(redis::RedisClient *client, const QString &targetLabel, int intervalMs = 2000,
                  QObject *parent = nullptr);

    void start();

    QString targetLabel() const { return m_targetLabel; }
    Health health() const { return m_health; }
    QString problem() const { return m_problem; }
    const ServerStatus &status() const { return m_status; }
    bool hasStatus() const { return m_hasStatus; }

Q_SIGNALS:
    void healthChanged(sluice::model::ServerMonitor::Health health, const QString &problem);
    void statusChanged(const sluice::model::ServerStatus &status);

private:
    void onConnectionState(redis::RedisClient::State state, const QString &reason);
    void poll();
    void setHealth(Health health, const QString &problem);

    redis::RedisClient *m_client;
    QString m_targetLabel;
    QTimer m_pollTimer;
    bool m_pollOutstanding = false;
    Health m_health = Health::Connecting;
    QString m_problem;
    ServerStatus m_status;
    bool m_hasStatus = false;
};

} // namespace sluice::model
