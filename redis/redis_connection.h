// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "redis/connection_options.h"
#include "redis/reconnect_backoff.h"
#include "redis/redis_reply.h"
#include "redis/resp_codec.h"

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QTimer>

#include <deque>
#include <functional>

namespace sluice::redis {

class SocketTransport;

// One asynchronous connection to one Redis node, driven by the Qt event loop. Commands may be sent
// at any time: they are pipelined, queued while (re)connecting, and each one ends exactly once, with
// its reply or with a failure at its timeout. Replies go to a context object and are dropped when
// that context is gone.
class RedisConnection : public QObject {
    Q_OBJECT
public:
    enum class State { Disconnected, Connecting, Ready, Reconnecting, Failed };
    Q_ENUM(State)
    using Callback = std::function<void(const RedisReply &)>;

    explicit RedisConnection(const ConnectionOptions &options, QObject *parent = nullptr);
    ~RedisConnection() override;

    const ConnectionOptions &options() const { return m_options; }
    // host:port or the socket path, as options().address() says it, kept for per-command use.
    const QString &address() const { return m_address; }
    State state() const { return m_state; }
    QString lastError() const { return m_lastError; }

    // With auto-reconnect (the default) a lost or refused connection is retried with jittered
    // exponential backoff; without it the first failure is final (right for one-shot CLI calls).
    void setAutoReconnect(bool enabled) { m_autoReconnect = enabled; }

    void open();
    void close();
    // Takes no more commands: those not written yet fail as NotConnected (they never ran), those
    // written get their replies, then the connection closes and deletes itself. For a node that
    // stopped serving: what it already accepted is not cut off.
    void retire();

    void send(const QByteArrayList &args, QObject *context, Callback callback, int timeoutMs = -1);

    static QString stateName(State state);

Q_SIGNALS:
    void stateChanged(sluice::redis::RedisConnection::State state, const QString &reason);

private:
    struct PendingCommand {
        QByteArray encoded;
        QPointer<QObject> context;
        Callback callback;
        qint64 deadlineMs = 0;
    };

    void startAttempt();
    void onTransportOpened();
    void onTransportFailed(const QString &reason);
    void onReadyRead();
    void sendHandshake();
    void becomeReady();
    void dropTransport(const QString &reason);
    void failFatally(const QString &reason);
    void setState(State state, const QString &reason = {});
    void enqueueWrite(PendingCommand command);
    void flushWrites();
    void armTimeoutTimer(qint64 deadlineMs);
    void checkTimeouts();
    void finish(PendingCommand &command, const RedisReply &reply);
    void finishRetiringWhenIdle();
    void failAll(std::deque<PendingCommand> &queue, RedisReply::Failure failure, const QString &message);

    ConnectionOptions m_options;
    QString m_address;
    State m_state = State::Disconnected;
    QString m_lastError;
    bool m_autoReconnect = true;
    bool m_retiring = false;
    bool m_handshakeDone = false;

    SocketTransport *m_transport = nullptr;
    RespParser m_parser;
    std::deque<PendingCommand> m_waiting;  // not written yet: waiting for a ready connection
    std::deque<PendingCommand> m_inFlight; // written, replies expected in this order
    QByteArray m_writeBuffer;
    bool m_flushScheduled = false;

    QElapsedTimer m_clock;
    QTimer m_timeoutTimer;
    qint64 m_timeoutTimerTargetMs = -1;
    QTimer m_connectTimer;
    QTimer m_reconnectTimer;
    ReconnectBackoff m_backoff;
};

} // namespace sluice::redis
