// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/connection/connection_session.h"


namespace sluice::model {

namespace {

constexpr int monitorIntervalMs = 2000;
constexpr int libraryCheckIntervalMs = 30000;

} // namespace

ConnectionSession::ConnectionSession(const ConnectionProfile &profile, const redis::ConnectionOptions &resolved,
                                     QObject *parent)
    : QObject(parent)
    , m_profile(profile)
    , m_client(new redis::RedisClient(resolved, this))
{
    m_client->setReadOnly(profile.readOnly);
    m_monitor = new ServerMonitor(m_client, m_client->options().redactedUrl(), monitorIntervalMs, this);
    m_watch = new LibraryWatch(m_client, profile.libraryOwner(), libraryCheckIntervalMs, this);
    m_rates = new PolicyRateSampler(m_client, profile.libraryOwner(), this);
    connect(m_rates, &PolicyRateSampler::libraryChanged, m_watch, &LibraryWatch::checkNow);
    connect(m_client, &redis::RedisClient::stateChanged, this, [this](redis::RedisClient::State state) {
        if (state == redis::RedisClient::State::Ready)
            Q_EMIT ready();
    });
    connect(m_client, &redis::RedisClient::nodeStatesChanged, this, &ConnectionSession::nodesChanged);
}

ConnectionSession::~ConnectionSession()
{
    if (m_history)
        m_history->finish(); // while the sampler still holds this run's series
}

void ConnectionSession::keepRateHistory(const QString &directory)
{
    if (m_history)
        return;
    const RateHistoryStore::Identity identity{m_profile.name, m_profile.ns, m_profile.options.database,
                                              m_client->options().redactedUrl()};
    m_history = new RateHistoryKeeper(m_rates, RateHistoryStore(directory, identity), this);
}

void ConnectionSession::start()
{
    if (m_history)
        m_history->start(); // before the sampler's first reading, which only sets baselines

    m_monitor->start(); // opens the client
    m_watch->start();
    m_rates->start();
}

bool ConnectionSession::isReady() const
{
    return m_client->state() == redis::RedisClient::State::Ready;
}

QVector<ConnectionSession::NodeReport> ConnectionSession::nodes() const
{
    QVector<NodeReport> reports;
    for (const redis::RedisClient::NodeState &node : m_client->nodeStates()) {
        reports.push_back({node.node, node.primary, node.state == redis::RedisClient::State::Ready,
                           redis::RedisConnection::stateName(node.state), node.lastError});
    }
    return reports;
}

QString ConnectionSession::label() const
{
    return m_profile.name.isEmpty() ? m_client->options().redactedUrl() : m_profile.name;
}

} // namespace sluice::model
