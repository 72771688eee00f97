// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/connection/connection_session.h"

#include "model/fire/fire_engine.h"
#include "model/limiter/bucket_reset.h"
#include "model/monitor/key_watch.h"
#include "model/monitor/rule_counts.h"
#include "model/monitor/server_diagnostics.h"
#include "model/monitor/subject_reader.h"
#include "model/monitor/top_rejected.h"
#include "model/monitor/top_subjects.h"
#include "model/policy/audit_follower.h"
#include "model/policy/lists_store.h"
#include "model/tables/key_inspector_model.h"

namespace sluice::model {

namespace {

constexpr int monitorIntervalMs = 2000;
constexpr int libraryCheckIntervalMs = 30000;

} // namespace

ConnectionSession::ConnectionSession(const ConnectionProfile &profile, const ConnectionSecrets &secrets,
                                     QObject *parent)
    : ConnectionSession(profile, profile.resolved(secrets), parent)
{
}

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

PolicyStore ConnectionSession::policyStore() const
{
    return PolicyStore(m_client, m_profile.ns);
}

ListsStore ConnectionSession::listsStore() const
{
    return ListsStore(m_client, m_profile.ns);
}

AuditLog ConnectionSession::auditLog() const
{
    return AuditLog(m_client, m_profile.ns);
}

LibraryPublisher ConnectionSession::publisher(PublishAllowance allowance) const
{
    return LibraryPublisher(m_client, m_profile.libraryOwner(), allowance);
}

AuditFollower *ConnectionSession::followAudit(int intervalMs, QObject *parent) const
{
    return new AuditFollower(m_client, m_profile.ns, intervalMs, parent);
}

TopSubjects *ConnectionSession::topSubjects(QObject *parent) const
{
    return new TopSubjects(m_client, m_profile.libraryOwner(), m_rates, parent);
}

RuleCounts *ConnectionSession::ruleCounts(QObject *parent) const
{
    return new RuleCounts(m_client, m_profile.libraryOwner(), m_rates, parent);
}

TopRejectedPoller *ConnectionSession::pollTopRejected(int intervalMs, QObject *parent) const
{
    return new TopRejectedPoller(m_client, m_profile.libraryOwner(), intervalMs, parent);
}

ServerDiagnosticsPoller *ConnectionSession::pollDiagnostics(int intervalMs, QObject *parent) const
{
    return new ServerDiagnosticsPoller(m_client, intervalMs, parent);
}

KeyWatch *ConnectionSession::watchKeys(QObject *parent) const
{
    return new KeyWatch(m_client, m_profile.libraryOwner(), parent);
}

KeyInspectorModel *ConnectionSession::inspectKeys(QObject *parent) const
{
    return new KeyInspectorModel(m_client, m_profile.libraryOwner(), parent);
}

SubjectReader *ConnectionSession::readSubject(QObject *parent) const
{
    return new SubjectReader(m_client, m_profile.libraryOwner(), parent);
}

void ConnectionSession::resetBucket(const QString &policy, const QByteArray &subject, const QString &who,
                                    QObject *context, std::function<void(const std::optional<Failure> &)> done) const
{
    model::resetBucket(m_client, m_profile.libraryOwner(), policy, subject, who, context, std::move(done));
}

std::optional<Failure> ConnectionSession::startFire(FireEngine *engine, FirePlan plan) const
{
    return engine->start(std::move(plan), m_client->options(), m_profile.ns, m_profile.readOnly);
}

QStringList ConnectionSession::primaries() const
{
    return m_client->primaries();
}

quint64 ConnectionSession::commandsSent() const
{
    return m_client->commandsSent();
}

QString ConnectionSession::label() const
{
    return m_profile.name.isEmpty() ? m_client->options().redactedUrl() : m_profile.name;
}

} // namespace sluice::model
