// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/monitor/server_monitor.h"

#include "redis/info_reply.h"

namespace sluice::model {

using redis::RedisClient;
using redis::RedisReply;

ServerMonitor::ServerMonitor(RedisClient *client, const QString &targetLabel, int intervalMs, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_targetLabel(targetLabel)
{
    m_pollTimer.setInterval(intervalMs);
    connect(&m_pollTimer, &QTimer::timeout, this, &ServerMonitor::poll);
    connect(client, &RedisClient::stateChanged, this, &ServerMonitor::onConnectionState);
}

void ServerMonitor::start()
{
    m_pollTimer.start();
    onConnectionState(m_client->state(), m_client->lastError());
    if (m_client->state() == RedisClient::State::Disconnected)
        m_client->open();
}

void ServerMonitor::onConnectionState(RedisClient::State state, const QString &reason)
{
    switch (state) {
    case RedisClient::State::Ready:
        setHealth(Health::Ready, {});
        poll();
        break;
    case RedisClient::State::Connecting: setHealth(Health::Connecting, {}); break;
    case RedisClient::State::Reconnecting:
    case RedisClient::State::Disconnected: setHealth(Health::Unreachable, reason); break;
    case RedisClient::State::Failed: setHealth(Health::Failed, reason); break;
    }
}

void ServerMonitor::poll()
{
    if (m_pollOutstanding || m_client->state() != RedisClient::State::Ready)
        return;
    m_pollOutstanding = true;
    // Both go out in one pipeline; the save points reply always arrives after INFO's.
    auto info = std::make_shared<QHash<QString, QString>>();
    m_client->send({QByteArrayLiteral("INFO")}, this, [this, info](const RedisReply &reply) {
        if (reply.ok())
            *info = redis::parseInfo(reply.value.bytes);
        else if (reply.failure == RedisReply::Failure::None)
            setHealth(Health::Ready, tr("INFO refused: %1").arg(reply.errorText()));
    });
    m_client->send({QByteArrayLiteral("CONFIG"), QByteArrayLiteral("GET"), QByteArrayLiteral("save")}, this,
                   [this, info](const RedisReply &reply) {
        m_pollOutstanding = false;
        if (info->isEmpty())
            return;
        ServerStatus status = ServerStatus::fromInfo(*info);
        const auto &items = reply.value.elements;
        status.rdbKnown = reply.ok() && items.size() == 2;
        status.rdbEnabled = status.rdbKnown && !items.at(1).bytes.trimmed().isEmpty();
        m_status = status;
        m_hasStatus = true;
        Q_EMIT statusChanged(m_status);
    });
}

void ServerMonitor::setHealth(Health health, const QString &problem)
{
    if (health == m_health && problem == m_problem)
        return;
    m_health = health;
    m_problem = problem;
    Q_EMIT healthChanged(health, problem);
}

} // namespace sluice::model
