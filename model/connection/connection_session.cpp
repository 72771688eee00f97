#include "model/connection_session.h"

namespace sluice::model {

namespace {

constexpr int monitorIntervalMs = 2000;
constexpr int libraryCheckIntervalMs = 30000;

} // namespace

ConnectionSession::ConnectionSession(const ConnectionProfile &profile, const redis::ConnectionOptions &resolved, QObject *parent)
    : QObject(parent)
    , m_profile(profile)
    , m_client(new redis::RedisClient(resolved, this))
{
    m_client->setReadOnly(profile.readOnly);
    m_monitor = new ServerMonitor(m_client, m_client->options().redactedUrl(), monitorIntervalMs, this);
    m_watch = new LibraryWatch(m_client, profile.ns, libraryCheckIntervalMs, this);
    m_rates = new PolicyRateSampler(m_client, this);
}

void ConnectionSession::start()
{
    m_monitor->start(); // opens the client
    m_watch->start();
    m_rates->start();
}

QString ConnectionSession::label() const
{
    return m_profile.name.isEmpty() ? m_client->options().redactedUrl() : m_profile.name;
}

} // namespace sluice::model
