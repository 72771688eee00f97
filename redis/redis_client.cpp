// SPDX-License-Identifier: GPL-3.0-or-later
#include "redis/redis_client.h"

#include "redis/command_access.h"
#include "redis/command_routing.h"
#include "redis/redis_log.h"

#include <QPointer>

#include <algorithm>

namespace sluice::redis {

namespace {

// Redirections one command may follow before its last answer is taken as final. A resharding moves
// a slot once, a failover once more; more than this means the Cluster disagrees with itself.
constexpr int maxRedirects = 16;
// Between a Sentinel promoting a replica and demoting the old primary, the old one still takes
// writes that the new one never sees: the sooner the client asks, the fewer are lost.
constexpr int sentinelPollMs = 500;
constexpr int refreshRetryMs = 500;
constexpr int firstAttemptGraceMs = 100;

bool startsWithAny(const QByteArray &error, std::initializer_list<const char *> prefixes)
{
    return std::any_of(prefixes.begin(), prefixes.end(),
                       [&error](const char *prefix) { return error.startsWith(prefix); });
}

RedisReply failure(RedisReply::Failure kind, const QString &message)
{
    RedisReply reply;
    reply.failure = kind;
    reply.failureMessage = message;
    return reply;
}

} // namespace

struct RedisClient::Routed {
    QByteArrayList args;
    std::optional<int> slot; // of the routing key; none for keyless commands
    QString fixedNode;       // sendToNode: this node and no other
    QPointer<QObject> context;
    Callback callback;
    qint64 deadlineMs = 0;
    int redirects = 0;
    int retries = 0;
    std::optional<HostPort> askNode; // an ASK redirection applies to the next attempt only
};

RedisClient::RedisClient(const ConnectionOptions &options, QObject *parent)
    : QObject(parent)
    , m_options(options)
    , m_slotOwners(clusterSlotCount, nullptr)
{
    m_clock.start();
    // Precise timers: a coarse one may fire 5% early, and these pauses are promised (docs/user-guide.md).
    m_sentinelPoll.setTimerType(Qt::PreciseTimer);
    m_resolveRetry.setTimerType(Qt::PreciseTimer);
    m_sentinelPoll.setInterval(sentinelPollMs);
    connect(&m_sentinelPoll, &QTimer::timeout, this, &RedisClient::resolvePrimary);
    m_resolveRetry.setSingleShot(true);
    connect(&m_resolveRetry, &QTimer::timeout, this, &RedisClient::resolvePrimary);
    m_parkedTimer.setInterval(50);
    connect(&m_parkedTimer, &QTimer::timeout, this, &RedisClient::checkParked);
}

RedisClient::~RedisClient()
{
    // Connections fail their commands as they go; those answers must not start retries.
    m_state = State::Disconnected;
    const auto connections = m_nodes.values();
    m_nodes.clear();
    m_main = nullptr;
    qDeleteAll(connections);
    failParked(tr("connection closed"));
}

void RedisClient::open()
{
    if (m_state != State::Disconnected && m_state != State::Failed)
        return;
    m_lastError.clear();
    m_openedAtMs = m_clock.elapsed();
    m_firstAttemptOver = false;
    setState(State::Connecting);
    if (m_options.usesSentinel()) {
        m_kind = Kind::Sentinel;
        m_resolveBackoff.reset();
        m_sentinelPoll.start();
        resolvePrimary();
        return;
    }
    m_main = connectionFor(m_options);
    discover();
}

void RedisClient::close()
{
    m_sentinelPoll.stop();
    m_resolveRetry.stop();
    m_routable = false;
    setState(State::Disconnected);
    const auto connections = m_nodes.values();
    for (RedisConnection *connection : connections)
        retire(connection);
    std::fill(m_slotOwners.begin(), m_slotOwners.end(), nullptr);
    m_primaries.clear();
    failParked(tr("connection closed"));
}

RedisConnection *RedisClient::connectionFor(const ConnectionOptions &options)
{
    const QString address = options.address();
    if (RedisConnection *existing = m_nodes.value(address))
        return existing;
    auto *connection = new RedisConnection(options, this);
    connection->setAutoReconnect(m_autoReconnect);
    m_nodes.insert(address, connection);
    watchConnection(connection);
    connection->open();
    return connection;
}

void RedisClient::setAutoReconnect(bool enabled)
{
    m_autoReconnect = enabled;
    // Connections already open take it too: a command that turns it on once connected (an exporter,
    // a watch) must outlive the next restart.
    for (RedisConnection *connection : qAsConst(m_nodes))
        connection->setAutoReconnect(enabled);
}

RedisConnection *RedisClient::nodeConnection(const HostPort &node)
{
    return connectionFor(m_options.forNode(node));
}

void RedisClient::watchConnection(RedisConnection *connection)
{
    connect(connection, &RedisConnection::stateChanged, this, [this, connection](State state, const QString &reason) {
        Q_EMIT nodeStatesChanged();
        if (m_state == State::Disconnected)
            return;
        if (m_kind == Kind::Cluster) {
            // A node that stops answering may be failing over: ask the others who serves now.
            if (state == State::Reconnecting || state == State::Failed)
                refreshTopology();
            return;
        }
        if (connection != m_main)
            return;
        if (m_kind == Kind::Sentinel && state == State::Reconnecting)
            resolvePrimary();
        if (state != State::Ready || m_routable)
            setState(state, reason);
    });
}

void RedisClient::retire(RedisConnection *connection)
{
    for (auto it = m_nodes.begin(); it != m_nodes.end();) {
        if (it.value() == connection)
            it = m_nodes.erase(it);
        else
            ++it;
    }
    if (m_main == connection)
        m_main = nullptr;
    std::replace(m_slotOwners.begin(), m_slotOwners.end(), connection, static_cast<RedisConnection *>(nullptr));
    connection->disconnect(this);
    Q_EMIT nodeStatesChanged();
    // Commands still waiting in it were never written: they come back as NotConnected and are
    // routed again. Those in flight get their replies (a MOVED among them is followed).
    connection->retire();
}

// --- Standalone or Cluster: the seed says which it is ---

void RedisClient::discover()
{
    if (!m_main)
        return;
    sendOn(
        m_main, {"CLUSTER", "SHARDS"}, this,
        [this](const RedisReply &reply) {
        if (m_state == State::Disconnected || m_kind != Kind::Unknown)
            return;
        if (reply.failure != RedisReply::Failure::None) {
            if (!m_autoReconnect || !m_main || m_main->state() == State::Failed) {
                m_lastError = reply.errorText();
                setState(State::Failed, m_lastError);
                failParked(m_lastError);
            } else {
                QTimer::singleShot(refreshRetryMs, this, &RedisClient::discover);
            }
            return;
        }
        if (reply.value.isError()) {
            // "cluster support disabled", or a user not allowed to ask: a MOVED would still
            // turn the client into a Cluster client.
            m_kind = Kind::Standalone;
            m_primaries = {m_main->options().address()};
            becomeRoutable();
            if (m_main->state() == State::Ready)
                setState(State::Ready);
            return;
        }
        m_kind = Kind::Cluster;
        applyShards(reply, m_main->options().address());
        },
        m_options.connectTimeoutMs + m_options.commandTimeoutMs);
}

void RedisClient::applyShards(const RedisReply &reply, const QString &from)
{
    QString error;
    const auto topology
        = ClusterTopology::fromShards(reply.value, m_options.transport == ConnectionOptions::Transport::Tls, &error);
    if (!topology) {
        m_lastError = tr("%1: %2").arg(from, error);
        return;
    }
    QVector<RedisConnection *> owners(clusterSlotCount, nullptr);
    QStringList primaries;
    for (const ClusterShard &shard : topology->shards) {
        const ClusterNode *primary = shard.primary();
        if (!primary || shard.slotRanges.isEmpty())
            continue;
        const HostPort address{primary->host, primary->port};
        RedisConnection *connection = nodeConnection(address);
        primaries << address.toString();
        for (const auto &[first, last] : shard.slotRanges)
            std::fill(owners.begin() + first, owners.begin() + last + 1, connection);
    }
    const bool changed = primaries != m_primaries || owners != m_slotOwners;
    qCDebug(lcRouting, "cluster map from %s: %lld primaries (%s)%s", qUtf8Printable(from),
            static_cast<long long>(primaries.size()), qUtf8Printable(primaries.join(QLatin1String(", "))),
            changed ? "" : ", unchanged");
    m_slotOwners = owners;
    m_primaries = primaries;
    m_main = primaries.isEmpty() ? m_main : m_nodes.value(primaries.first());
    // Replicas and departed nodes get no commands; their connections go, after the map is whole.
    const auto known = m_nodes;
    for (auto it = known.begin(); it != known.end(); ++it)
        if (!primaries.contains(it.key()))
            retire(it.value());
    becomeRoutable();
    setState(State::Ready);
    if (changed)
        Q_EMIT topologyChanged();
}

void RedisClient::refreshTopology()
{
    if (m_kind != Kind::Cluster || m_state == State::Disconnected)
        return;
    if (m_refreshing) {
        m_refreshAgain = true;
        return;
    }
    m_refreshing = true;
    QStringList candidates = m_primaries;
    for (const QString &node : m_nodes.keys())
        if (!candidates.contains(node))
            candidates << node;
    refreshFrom(candidates);
}

void RedisClient::refreshFrom(QStringList candidates)
{
    while (!candidates.isEmpty()
           && (!m_nodes.value(candidates.first()) || m_nodes.value(candidates.first())->state() != State::Ready))
        candidates.removeFirst();
    if (candidates.isEmpty()) {
        m_refreshing = false;
        m_refreshAgain = false;
        const QString reason = tr("no Cluster node answers");
        if (std::none_of(m_nodes.begin(), m_nodes.end(), [](RedisConnection *c) { return c->state() == State::Ready; }))
            setState(State::Reconnecting, m_lastError.isEmpty() ? reason : m_lastError);
        QTimer::singleShot(refreshRetryMs, this, &RedisClient::refreshTopology);
        return;
    }
    const QString node = candidates.takeFirst();
    sendOn(
        m_nodes.value(node), {"CLUSTER", "SHARDS"}, this,
        [this, node, candidates](const RedisReply &reply) {
        if (m_state == State::Disconnected)
            return;
        if (!reply.ok()) {
            m_lastError = tr("%1: %2").arg(node, reply.errorText());
            refreshFrom(candidates);
            return;
        }
        m_refreshing = false;
        applyShards(reply, node);
        if (m_refreshAgain) {
            m_refreshAgain = false;
            refreshTopology();
        }
        },
        m_options.commandTimeoutMs);
}

// --- Sentinel: ask each sentinel in turn for the service's primary ---

void RedisClient::resolvePrimary()
{
    if (m_kind != Kind::Sentinel || m_resolving || m_state == State::Disconnected)
        return;
    m_resolving = true;
    // The sentinel that answered last is asked first, on its kept connection; the others in turn after it.
    m_askFirst = std::max(0, m_sentinelIndex);
    askSentinel(0);
}

void RedisClient::askSentinel(int tried)
{
    if (tried >= m_options.sentinels.size()) {
        m_resolving = false;
        retryResolveLater(m_lastError);
        return;
    }
    const int index = (m_askFirst + tried) % static_cast<int>(m_options.sentinels.size());
    // One connection to the sentinel that last answered is kept for the polls.
    if (m_sentinelIndex != index || !m_sentinel || m_sentinel->state() == State::Failed) {
        delete m_sentinel;
        ConnectionOptions sentinelOptions = m_options.forNode(m_options.sentinels.at(index));
        sentinelOptions.user.clear();
        sentinelOptions.password.clear();
        sentinelOptions.database = 0;
        m_sentinel = new RedisConnection(sentinelOptions, this);
        m_sentinel->setAutoReconnect(false);
        m_sentinel->open();
        m_sentinelIndex = index;
    }
    const QString address = m_sentinel->options().address();
    const QByteArray service = m_options.sentinelService.toUtf8();
    sendOn(
        m_sentinel, {"SENTINEL", "GET-MASTER-ADDR-BY-NAME", service}, this,
        [this, tried, address](const RedisReply &reply) {
        if (m_state == State::Disconnected) {
            m_resolving = false;
            return;
        }
        const auto &named = reply.value.elements;
        bool portOk = false;
        const quint16 port = named.size() == 2 ? named.at(1).toString().toUShort(&portOk) : 0;
        if (reply.ok() && portOk && port != 0) {
            m_resolving = false;
            usePrimary({named.at(0).toString(), port});
            return;
        }
        m_lastError = !reply.ok() ? tr("Sentinel %1: %2").arg(address, reply.errorText())
            : reply.value.isNil() ? tr("Sentinel %1 knows no service \"%2\"").arg(address, m_options.sentinelService)
                                  : tr("Sentinel %1 gave no primary address").arg(address);
        m_sentinel->deleteLater();
        m_sentinel = nullptr;
        askSentinel(tried + 1);
        },
        m_options.connectTimeoutMs);
}

void RedisClient::retryResolveLater(const QString &reason)
{
    m_lastError = reason;
    if (!m_autoReconnect && !m_routable) {
        setState(State::Failed, reason);
        failParked(reason);
        return;
    }
    if (!m_main || m_main->state() != State::Ready)
        setState(m_routable ? State::Reconnecting : State::Connecting, reason);
    m_resolveRetry.start(m_resolveBackoff.nextDelayMs());
}

void RedisClient::usePrimary(const HostPort &primary)
{
    m_resolveBackoff.reset();
    const QString address = primary.toString();
    if (m_main && m_nodes.value(address) == m_main)
        return;
    RedisConnection *previous = m_main;
    qCDebug(lcRouting, "sentinel service \"%s\": primary is %s%s", qUtf8Printable(m_options.sentinelService),
            qUtf8Printable(address), previous ? " (it moved)" : "");
    m_main = nodeConnection(primary);
    m_primaries = {address};
    if (previous)
        retire(previous);
    becomeRoutable();
    setState(m_main->state() == State::Ready ? State::Ready : (previous ? State::Reconnecting : State::Connecting));
    if (previous)
        Q_EMIT topologyChanged();
}

// --- Commands waiting for the main node to be known ---

void RedisClient::becomeRoutable()
{
    m_routable = true;
    m_parkedTimer.stop();
    std::deque<Parked> parked;
    parked.swap(m_parked);
    for (Parked &command : parked)
        command.run();
}

void RedisClient::park(Parked parked)
{
    // Until the first attempt to reach the deployment has had its say, a command waits for it:
    // "no answer within N ms" from the connection tells more than a timeout of the command.
    if (!m_firstAttemptOver)
        parked.deadlineMs
            = std::max(parked.deadlineMs, m_openedAtMs + m_options.connectTimeoutMs + firstAttemptGraceMs);
    m_parked.push_back(std::move(parked));
    if (!m_parkedTimer.isActive())
        m_parkedTimer.start();
}

void RedisClient::checkParked()
{
    const qint64 now = m_clock.elapsed();
    std::deque<Parked> expired;
    for (auto it = m_parked.begin(); it != m_parked.end();) {
        if (it->deadlineMs <= now) {
            expired.push_back(std::move(*it));
            it = m_parked.erase(it);
        } else {
            ++it;
        }
    }
    if (m_parked.empty())
        m_parkedTimer.stop();
    const QString message = m_lastError.isEmpty() ? tr("timed out waiting for a connection")
                                                  : tr("timed out waiting for a connection (%1)").arg(m_lastError);
    for (Parked &command : expired)
        command.fail(failure(RedisReply::Failure::Timeout, message));
}

void RedisClient::failParked(const QString &reason)
{
    std::deque<Parked> parked;
    parked.swap(m_parked);
    m_parkedTimer.stop();
    for (Parked &command : parked)
        command.fail(failure(RedisReply::Failure::NotConnected, reason));
}

// --- Routed commands ---

std::shared_ptr<RedisClient::Routed> RedisClient::makeRouted(const QByteArrayList &args, QObject *context,
                                                             Callback callback, int timeoutMs) const
{
    auto command = std::make_shared<Routed>();
    command->args = args;
    command->context = context;
    command->callback = std::move(callback);
    command->deadlineMs = deadlineFor(timeoutMs);
    return command;
}

void RedisClient::send(const QByteArrayList &args, QObject *context, Callback callback, int timeoutMs)
{
    auto command = makeRouted(args, context, std::move(callback), timeoutMs);
    if (const auto key = routingKey(args))
        command->slot = keySlot(*key);
    dispatch(command);
}

void RedisClient::sendForKey(const QByteArray &key, const QByteArrayList &args, QObject *context, Callback callback,
                             int timeoutMs)
{
    auto command = makeRouted(args, context, std::move(callback), timeoutMs);
    command->slot = keySlot(key);
    dispatch(command);
}

void RedisClient::sendToNode(const QString &node, const QByteArrayList &args, QObject *context, Callback callback,
                             int timeoutMs)
{
    auto command = makeRouted(args, context, std::move(callback), timeoutMs);
    command->fixedNode = node;
    dispatch(command);
}

void RedisClient::sendToPrimaries(const QByteArrayList &args, QObject *context, FanOutCallback done, int timeoutMs)
{
    const QPointer<QObject> requester(context);
    const qint64 deadline = deadlineFor(timeoutMs);
    auto run = [this, args, requester, done, deadline] {
        const QStringList nodes = m_primaries;
        if (nodes.isEmpty()) {
            if (requester)
                done({{m_options.address(), failure(RedisReply::Failure::NotConnected, tr("no primary is known"))}});
            return;
        }
        auto replies = std::make_shared<QVector<NodeReply>>(nodes.size());
        auto outstanding = std::make_shared<int>(static_cast<int>(nodes.size()));
        for (int i = 0; i < nodes.size(); ++i) {
            (*replies)[i].node = nodes.at(i);
            auto collect = [requester, done, replies, outstanding, i](const RedisReply &reply) {
                (*replies)[i].reply = reply;
                if (--*outstanding == 0 && requester)
                    done(*replies);
            };
            if (RedisConnection *connection = m_nodes.value(nodes.at(i)))
                sendOn(connection, args, this, collect, remainingMs(deadline));
            else
                collect(failure(RedisReply::Failure::NotConnected, tr("%1 has no connection").arg(nodes.at(i))));
        }
    };
    auto fail = [this, requester, done](const RedisReply &reply) {
        if (requester)
            done({{m_options.address(), reply}});
    };
    if (const auto refused = refusal(args))
        QTimer::singleShot(0, this, [fail, refused = *refused] { fail(refused); });
    else if (m_state == State::Disconnected)
        QTimer::singleShot(0, this, [fail] { fail(failure(RedisReply::Failure::NotConnected, tr("not connected"))); });
    else if (m_routable)
        run();
    else
        park({deadline, run, fail});
}

QStringList RedisClient::primaries() const
{
    return m_primaries;
}

QString RedisClient::primaryForKey(const QByteArray &key) const
{
    if (m_kind != Kind::Cluster)
        return m_primaries.value(0);
    RedisConnection *owner = m_slotOwners.at(keySlot(key));
    return owner ? m_nodes.key(owner) : QString();
}

QVector<RedisClient::NodeState> RedisClient::nodeStates() const
{
    QVector<NodeState> states;
    for (auto it = m_nodes.cbegin(); it != m_nodes.cend(); ++it)
        states << NodeState{it.key(), it.value()->state(), it.value()->lastError(), m_primaries.contains(it.key())};
    std::stable_sort(states.begin(), states.end(), [](const NodeState &a, const NodeState &b) {
        return a.primary != b.primary ? a.primary : a.node < b.node;
    });
    return states;
}

std::optional<RedisReply> RedisClient::refusal(const QByteArrayList &args) const
{
    if (!m_readOnly || isReadOnlyCommand(args))
        return std::nullopt;
    return failure(RedisReply::Failure::Refused,
                   tr("this connection is read-only and %1 may write").arg(QString::fromUtf8(args.value(0).toUpper())));
}

void RedisClient::dispatch(const std::shared_ptr<Routed> &command)
{
    if (!command->context)
        return;
    if (const auto refused = refusal(command->args)) {
        QTimer::singleShot(0, this, [this, command, refused = *refused] { deliver(command, refused); });
        return;
    }
    if (m_state == State::Disconnected) {
        // Answered from the event loop, never from inside send(): callers need not be re-entrant.
        QTimer::singleShot(0, this, [this, command] {
            deliver(
                command,
                failure(RedisReply::Failure::NotConnected, m_lastError.isEmpty() ? tr("not connected") : m_lastError));
        });
        return;
    }
    if (!m_routable) {
        park({command->deadlineMs, [this, command] { dispatch(command); },
              [this, command](const RedisReply &reply) { deliver(command, reply); }});
        return;
    }
    const int remaining = remainingMs(command->deadlineMs);
    RedisConnection *connection = nullptr;
    if (!command->fixedNode.isEmpty())
        connection = m_nodes.value(command->fixedNode);
    else if (command->askNode)
        connection = nodeConnection(*command->askNode);
    else if (m_kind == Kind::Cluster && command->slot)
        connection = m_slotOwners.at(*command->slot);
    else
        connection = m_main;

    if (!connection) {
        if (!command->fixedNode.isEmpty()) {
            deliver(command,
                    failure(RedisReply::Failure::NotConnected,
                            tr("%1 is not a primary of this deployment").arg(command->fixedNode)));
            return;
        }
        refreshTopology();
        retryLater(
            command,
            failure(RedisReply::Failure::NotConnected, tr("no node serves slot %1").arg(command->slot.value_or(-1))));
        return;
    }
    // A Cluster node that is down is waited out by asking again, not by queueing on it: its
    // replica may take its slots over meanwhile.
    if (m_kind == Kind::Cluster && command->fixedNode.isEmpty() && connection->state() != State::Ready
        && connection->state() != State::Connecting) {
        refreshTopology();
        retryLater(command, failure(RedisReply::Failure::NotConnected, connection->lastError()));
        return;
    }
    if (command->askNode) {
        sendOn(
            connection, {"ASKING"}, this, [](const RedisReply &) {}, remaining);
        command->askNode.reset();
    }
    const QString &via = connection->address();
    sendOn(
        connection, command->args, this,
        [this, command, via](const RedisReply &reply) { onRoutedReply(command, via, reply); }, remaining);
}

void RedisClient::sendOn(RedisConnection *connection, const QByteArrayList &args, QObject *context, Callback callback,
                         int timeoutMs)
{
    ++m_commandsSent;
    connection->send(args, context, std::move(callback), timeoutMs);
}

void RedisClient::onRoutedReply(const std::shared_ptr<Routed> &command, const QString &via, const RedisReply &reply)
{
    if (m_state == State::Disconnected || !command->context || !command->fixedNode.isEmpty()) {
        deliver(command, reply);
        return;
    }
    if (reply.failure == RedisReply::Failure::None && reply.value.isError()) {
        const QByteArray &error = reply.value.bytes;
        if (const auto redirect = parseRedirect(error, via.section(QLatin1Char(':'), 0, -2))) {
            if (++command->redirects > maxRedirects) {
                deliver(command, reply);
                return;
            }
            qCDebug(lcRouting, "%s from %s: slot %d is at %s", redirect->ask ? "ASK" : "MOVED", qUtf8Printable(via),
                    redirect->slot, qUtf8Printable(redirect->node.toString()));
            if (redirect->ask) {
                command->askNode = redirect->node;
            } else {
                // A server that answers MOVED is a Cluster node, even when we could not ask it so.
                m_kind = Kind::Cluster;
                m_slotOwners[redirect->slot] = nodeConnection(redirect->node);
                refreshTopology();
            }
            dispatch(command);
            return;
        }
        if (startsWithAny(error, {"TRYAGAIN", "CLUSTERDOWN", "LOADING", "MASTERDOWN"})) {
            if (error.startsWith("CLUSTERDOWN"))
                refreshTopology();
            retryLater(command, reply);
            return;
        }
        if (error.startsWith("READONLY") && m_kind == Kind::Sentinel) {
            resolvePrimary(); // the primary we know was demoted
            retryLater(command, reply);
            return;
        }
    }
    // Never written, and the node it waited on was let go: it can go elsewhere.
    if (reply.failure == RedisReply::Failure::NotConnected && !m_nodes.contains(via)) {
        retryLater(command, reply);
        return;
    }
    deliver(command, reply);
}

void RedisClient::retryLater(const std::shared_ptr<Routed> &command, const RedisReply &reply)
{
    const int delay = std::min(refreshRetryMs, 10 << std::min(command->retries++, 6));
    if (remainingMs(command->deadlineMs) <= delay) {
        deliver(command, reply);
        return;
    }
    QTimer::singleShot(delay, this, [this, command] { dispatch(command); });
}

void RedisClient::deliver(const std::shared_ptr<Routed> &command, const RedisReply &reply)
{
    if (!command->context || !command->callback)
        return;
    const Callback callback = std::move(command->callback);
    command->callback = nullptr;
    callback(reply);
}

void RedisClient::setState(State state, const QString &reason)
{
    if (state != State::Connecting)
        m_firstAttemptOver = true;
    if (!reason.isEmpty())
        m_lastError = reason;
    if (state == m_state && reason.isEmpty())
        return;
    m_state = state;
    Q_EMIT stateChanged(state, reason);
}

qint64 RedisClient::deadlineFor(int timeoutMs) const
{
    return m_clock.elapsed() + (timeoutMs > 0 ? timeoutMs : m_options.commandTimeoutMs);
}

int RedisClient::remainingMs(qint64 deadlineMs) const
{
    return static_cast<int>(std::max<qint64>(1, deadlineMs - m_clock.elapsed()));
}

} // namespace sluice::redis
