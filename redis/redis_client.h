// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "redis/cluster_topology.h"
#include "redis/redis_commands.h"
#include "redis/redis_connection.h"

#include <QHash>
#include <QObject>
#include <QTimer>

#include <memory>

namespace sluice::redis {

// One Redis deployment behind one object: a standalone server, the primary a set of Sentinels
// names, or a Cluster (recognised by itself from any node). Commands are routed by their key
// (see routingKey) and follow the deployment as it changes: MOVED and ASK redirections, TRYAGAIN,
// CLUSTERDOWN and LOADING with bounded retries until the command's deadline, the Cluster's slot
// map refreshed when it moves, a Sentinel failover followed to the new primary. A command that was
// written and then lost with its connection is reported, never sent twice: it may have run.
class RedisClient : public QObject, public RedisCommands {
    Q_OBJECT
public:
    enum class Kind { Unknown, Standalone, Sentinel, Cluster };
    Q_ENUM(Kind)
    using State = RedisConnection::State;
    struct NodeState {
        QString node; // host:port or the socket path
        State state = State::Disconnected;
        QString lastError;
        bool primary = false;
    };

    explicit RedisClient(const ConnectionOptions &options, QObject *parent = nullptr);
    ~RedisClient() override;

    const ConnectionOptions &options() const { return m_options; }
    Kind kind() const { return m_kind; }
    State state() const { return m_state; }
    QString lastError() const { return m_lastError; }

    // Without auto-reconnect the first failure to reach the deployment is final (one-shot CLI use).
    void setAutoReconnect(bool enabled);
    // A read-only client refuses every command that could write (see isReadOnlyCommand) with
    // Failure::Refused, before it reaches any server.
    void setReadOnly(bool readOnly) { m_readOnly = readOnly; }
    bool isReadOnly() const { return m_readOnly; }
    void open();
    void close();

    // Routed by the command's key; keyless commands go to the main node (the server, the
    // Sentinel's primary, or a Cluster's first primary).
    void send(const QByteArrayList &args, QObject *context, Callback callback, int timeoutMs = -1) override;
    // Routed to the node serving `key`'s slot, whatever the command names.
    void sendForKey(const QByteArray &key, const QByteArrayList &args, QObject *context, Callback callback,
                    int timeoutMs = -1) override;
    // The same command on every primary (FUNCTION LOAD, INFO, DBSIZE): one reply per primary.
    void sendToPrimaries(const QByteArrayList &args, QObject *context, FanOutCallback done,
                         int timeoutMs = -1) override;
    // To one node as primaries() names it (a SCAN cursor belongs to one node).
    void sendToNode(const QString &node, const QByteArrayList &args, QObject *context, Callback callback,
                    int timeoutMs = -1) override;
    // The primaries as host:port (or the socket path), in slot order; empty until ready.
    QStringList primaries() const override;
    // The primary serving `key`'s slot, as primaries() names it; empty while not known.
    QString primaryForKey(const QByteArray &key) const;
    // Every node this client holds a connection to, primaries first, each with its own state.
    QVector<NodeState> nodeStates() const;
    // Commands written to any server so far, the client's own (topology, ASKING) included: the
    // dashboard's load on the deployment.
    quint64 commandsSent() const { return m_commandsSent; }

Q_SIGNALS:
    void stateChanged(sluice::redis::RedisClient::State state, const QString &reason);
    // The Cluster's slot map or the Sentinel's primary changed.
    void topologyChanged();
    // One node's connection changed state (see nodeStates()).
    void nodeStatesChanged();

private:
    struct Routed;
    struct Parked {
        qint64 deadlineMs;
        std::function<void()> run;
        std::function<void(const RedisReply &)> fail;
    };

    RedisConnection *connectionFor(const ConnectionOptions &options); // the one per address
    RedisConnection *nodeConnection(const HostPort &node);
    void watchConnection(RedisConnection *connection);
    void retire(RedisConnection *connection);

    void discover();
    void applyShards(const RedisReply &reply, const QString &from);
    void refreshTopology();
    void refreshFrom(QStringList candidates);
    void resolvePrimary();
    void askSentinel(int tried);
    void usePrimary(const HostPort &primary);
    void retryResolveLater(const QString &reason);

    void becomeRoutable();
    void park(Parked parked);
    void checkParked();
    void failParked(const QString &reason);

    std::shared_ptr<Routed> makeRouted(const QByteArrayList &args, QObject *context, Callback callback,
                                       int timeoutMs) const;
    void dispatch(const std::shared_ptr<Routed> &command);
    void onRoutedReply(const std::shared_ptr<Routed> &command, const QString &via, const RedisReply &reply);
    void retryLater(const std::shared_ptr<Routed> &command, const RedisReply &reply);
    void deliver(const std::shared_ptr<Routed> &command, const RedisReply &reply);

    void sendOn(RedisConnection *connection, const QByteArrayList &args, QObject *context, Callback callback,
                int timeoutMs = -1);
    std::optional<RedisReply> refusal(const QByteArrayList &args) const;
    void setState(State state, const QString &reason = {});
    qint64 deadlineFor(int timeoutMs) const;
    int remainingMs(qint64 deadlineMs) const;

    ConnectionOptions m_options;
    Kind m_kind = Kind::Unknown;
    State m_state = State::Disconnected;
    QString m_lastError;
    bool m_autoReconnect = true;
    bool m_readOnly = false;
    quint64 m_commandsSent = 0;
    bool m_routable = false; // the main node is known: commands can be handed to connections

    RedisConnection *m_main = nullptr;         // standalone server, Sentinel primary, Cluster seed
    QHash<QString, RedisConnection *> m_nodes; // by address, Cluster nodes and the main node
    QVector<RedisConnection *> m_slotOwners;   // Cluster: per slot, empty until known
    QStringList m_primaries;
    bool m_refreshing = false;
    bool m_refreshAgain = false;

    bool m_resolving = false;
    RedisConnection *m_sentinel = nullptr; // the sentinel that answered last
    int m_sentinelIndex = -1;
    int m_askFirst = 0;    // the index the current round of asking began at
    QTimer m_sentinelPoll; // asks the Sentinels now and then, for failovers nobody noticed
    QTimer m_resolveRetry;
    ReconnectBackoff m_resolveBackoff;

    std::deque<Parked> m_parked; // waiting for the main node to be known
    qint64 m_openedAtMs = 0;
    bool m_firstAttemptOver = false;
    QTimer m_parkedTimer;
    QElapsedTimer m_clock;
};

} // namespace sluice::redis
