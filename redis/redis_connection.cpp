// SPDX-License-Identifier: GPL-3.0-or-later
#include "redis/redis_connection.h"

#include "redis/info_reply.h"
#include "redis/redis_log.h"
#include "redis/server_identity.h"
#include "redis/socket_transport.h"

#include <algorithm>

namespace sluice::redis {

RedisConnection::RedisConnection(const ConnectionOptions &options, QObject *parent)
    : QObject(parent)
    , m_options(options)
    , m_address(options.address())
{
    m_clock.start();
    m_timeoutTimer.setSingleShot(true);
    // Late rather than early: a coarse timer could wake 5% early and only re-arm.
    m_timeoutTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_timeoutTimer, &QTimer::timeout, this, &RedisConnection::checkTimeouts);
    m_connectTimer.setSingleShot(true);
    // A coarse timer may fire 5% early: a connection given 500 ms would be called dead at 475.
    m_connectTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_connectTimer, &QTimer::timeout, this,
            [this] { onTransportFailed(tr("no answer within %1 ms").arg(m_options.connectTimeoutMs)); });
    m_reconnectTimer.setSingleShot(true);
    // The backoff's pauses are promised from half to all of their ceiling, not 5% under it.
    m_reconnectTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_reconnectTimer, &QTimer::timeout, this, &RedisConnection::startAttempt);
}

RedisConnection::~RedisConnection()
{
    const QString message = tr("connection closed");
    failAll(m_inFlight, RedisReply::Failure::Disconnected, message);
    failAll(m_waiting, RedisReply::Failure::NotConnected, message);
}

QString RedisConnection::stateName(State state)
{
    switch (state) {
    case State::Disconnected: return tr("disconnected");
    case State::Connecting: return tr("connecting");
    case State::Ready: return tr("ready");
    case State::Reconnecting: return tr("reconnecting");
    case State::Failed: return tr("failed");
    }
    return {};
}

void RedisConnection::open()
{
    if (m_state == State::Connecting || m_state == State::Ready || m_state == State::Reconnecting)
        return;
    m_backoff.reset();
    setState(State::Connecting);
    startAttempt();
}

void RedisConnection::close()
{
    m_reconnectTimer.stop();
    dropTransport(tr("connection closed"));
    failAll(m_waiting, RedisReply::Failure::NotConnected, tr("connection closed"));
    setState(State::Disconnected);
}

void RedisConnection::retire()
{
    m_retiring = true;
    m_autoReconnect = false;
    m_reconnectTimer.stop();
    failAll(m_waiting, RedisReply::Failure::NotConnected, tr("the node no longer serves these commands"));
    finishRetiringWhenIdle();
}

void RedisConnection::finishRetiringWhenIdle()
{
    if (!m_retiring || !m_inFlight.empty())
        return;
    m_retiring = false;
    close();
    deleteLater();
}

void RedisConnection::startAttempt()
{
    dropTransport(QString());
    m_parser.reset();
    m_handshakeDone = false;
    m_transport = new SocketTransport(m_options, this);
    connect(m_transport, &SocketTransport::opened, this, &RedisConnection::onTransportOpened);
    connect(m_transport, &SocketTransport::failed, this, &RedisConnection::onTransportFailed);
    connect(m_transport, &SocketTransport::readyRead, this, &RedisConnection::onReadyRead);
    m_connectTimer.start(m_options.connectTimeoutMs);
    qCDebug(lcConnection, "connecting to %s (within %d ms)", qUtf8Printable(m_options.redactedUrl()),
            m_options.connectTimeoutMs);
    m_transport->open();
}

void RedisConnection::onTransportOpened()
{
    sendHandshake();
}

void RedisConnection::sendHandshake()
{
    // AUTH, CLIENT SETNAME and SELECT go out pipelined ahead of any queued user command, which is
    // held back until the handshake has succeeded.
    auto internal = [this](const QByteArrayList &args, Callback callback) {
        PendingCommand command{encodeCommand(args), this, std::move(callback),
                               m_clock.elapsed() + m_options.connectTimeoutMs};
        m_writeBuffer += command.encoded;
        m_inFlight.push_back(std::move(command));
    };
    qCDebug(lcConnection, "%s: handshake (%s, database %d)", qUtf8Printable(m_options.redactedUrl()),
            m_options.password.isEmpty() ? "no password"
                                         : (m_options.user.isEmpty() ? "AUTH with a password" : "AUTH as the user"),
            m_options.database);
    if (!m_options.password.isEmpty()) {
        QByteArrayList auth{QByteArrayLiteral("AUTH")};
        if (!m_options.user.isEmpty())
            auth << m_options.user.toUtf8();
        auth << m_options.password.toUtf8();
        internal(auth, [this](const RedisReply &reply) {
            if (reply.failure == RedisReply::Failure::None && reply.value.isError())
                failFatally(tr("authentication failed: %1").arg(reply.value.toString()));
        });
    }
    // A restricted ACL user may not be allowed to name its connection; that is no reason to fail.
    internal({QByteArrayLiteral("CLIENT"), QByteArrayLiteral("SETNAME"), m_options.clientName.toUtf8()},
             [](const RedisReply &) {});
    if (m_options.database != 0) {
        internal({QByteArrayLiteral("SELECT"), QByteArray::number(m_options.database)},
                 [this](const RedisReply &reply) {
            if (reply.failure == RedisReply::Failure::None && reply.value.isError())
                failFatally(tr("cannot select database %1: %2").arg(m_options.database).arg(reply.value.toString()));
        });
    }
    // A server without functions cannot run anything Sluice sends; INFO refused to a user is no reason.
    internal({QByteArrayLiteral("INFO"), QByteArrayLiteral("server")}, [this](const RedisReply &reply) {
        if (!reply.ok())
            return;
        const ServerIdentity server = ServerIdentity::fromInfo(parseInfo(reply.value.bytes));
        qCDebug(lcConnection, "%s: %s", qUtf8Printable(m_options.redactedUrl()), qUtf8Printable(server.displayName()));
        if (const auto unsupported = server.unsupported())
            failFatally(*unsupported);
    });
    // The last handshake reply marks the connection ready.
    internal({QByteArrayLiteral("PING")}, [this](const RedisReply &reply) {
        if (reply.failure != RedisReply::Failure::None)
            return; // the connection already failed and says why
        if (reply.value.isError()) {
            const QString text = reply.value.toString();
            // LOADING, MASTERDOWN and the like pass; NOAUTH and NOPERM will not without a change.
            if (text.startsWith(QLatin1String("NOAUTH")) || text.startsWith(QLatin1String("WRONGPASS")))
                failFatally(tr("authentication required: %1").arg(text));
            else
                onTransportFailed(text);
            return;
        }
        becomeReady();
    });
    flushWrites();
    armTimeoutTimer(m_clock.elapsed() + m_options.connectTimeoutMs);
}

void RedisConnection::becomeReady()
{
    if (m_state == State::Failed || !m_transport)
        return;
    m_connectTimer.stop();
    m_handshakeDone = true;
    m_backoff.reset();
    qCDebug(lcConnection, "%s: ready", qUtf8Printable(m_options.redactedUrl()));
    setState(State::Ready);
    while (!m_waiting.empty()) {
        m_writeBuffer += m_waiting.front().encoded;
        m_inFlight.push_back(std::move(m_waiting.front()));
        m_waiting.pop_front();
    }
    flushWrites();
}

void RedisConnection::onTransportFailed(const QString &reason)
{
    if (!m_transport)
        return;
    dropTransport(reason);
    if (!m_autoReconnect) {
        failAll(m_waiting, RedisReply::Failure::NotConnected, reason);
        qCDebug(lcConnection, "%s: failed (%s)", qUtf8Printable(m_options.redactedUrl()), qUtf8Printable(reason));
        setState(State::Failed, reason);
        finishRetiringWhenIdle();
        return;
    }
    const int delayMs = m_backoff.nextDelayMs();
    qCDebug(lcConnection, "%s: lost (%s); reconnecting in %d ms", qUtf8Printable(m_options.redactedUrl()),
            qUtf8Printable(reason), delayMs);
    setState(State::Reconnecting, reason);
    m_reconnectTimer.start(delayMs);
}

void RedisConnection::failFatally(const QString &reason)
{
    m_reconnectTimer.stop();
    dropTransport(reason);
    failAll(m_waiting, RedisReply::Failure::NotConnected, reason);
    qCDebug(lcConnection, "%s: failed for good (%s)", qUtf8Printable(m_options.redactedUrl()), qUtf8Printable(reason));
    setState(State::Failed, reason);
}

void RedisConnection::dropTransport(const QString &reason)
{
    m_connectTimer.stop();
    m_handshakeDone = false;
    if (m_transport) {
        m_transport->disconnect(this);
        m_transport->deleteLater();
        m_transport = nullptr;
    }
    m_writeBuffer.clear();
    if (!reason.isEmpty())
        m_lastError = reason;
    failAll(m_inFlight, RedisReply::Failure::Disconnected, reason.isEmpty() ? tr("connection reset") : reason);
}

void RedisConnection::onReadyRead()
{
    if (!m_transport)
        return;
    m_parser.feed(m_transport->readAll());
    const QPointer<RedisConnection> self(this);
    const SocketTransport *transport = m_transport;
    while (self && m_transport == transport) {
        std::optional<RespValue> value = m_parser.next();
        if (!value) {
            if (m_parser.hasError())
                onTransportFailed(tr("the server does not speak RESP (%1)").arg(m_parser.errorString()));
            return;
        }
        if (m_inFlight.empty()) {
            onTransportFailed(tr("the server sent a reply nobody asked for"));
            return;
        }
        PendingCommand command = std::move(m_inFlight.front());
        m_inFlight.pop_front();
        RedisReply reply;
        reply.value = std::move(*value);
        finish(command, reply);
        if (self && m_inFlight.empty() && m_retiring) {
            finishRetiringWhenIdle();
            return;
        }
    }
}

void RedisConnection::send(const QByteArrayList &args, QObject *context, Callback callback, int timeoutMs)
{
    const int timeout = timeoutMs > 0 ? timeoutMs : m_options.commandTimeoutMs;
    PendingCommand command{encodeCommand(args), context, std::move(callback), m_clock.elapsed() + timeout};
    if (m_state == State::Failed || m_state == State::Disconnected || m_retiring) {
        // Answered from the event loop, never from inside send(): callers need not be re-entrant.
        RedisReply reply;
        reply.failure = RedisReply::Failure::NotConnected;
        reply.failureMessage = m_lastError.isEmpty() ? tr("not connected") : m_lastError;
        if (context)
            QTimer::singleShot(0, context, [callback = std::move(command.callback), reply] { callback(reply); });
        return;
    }
    armTimeoutTimer(command.deadlineMs);
    enqueueWrite(std::move(command));
}

void RedisConnection::enqueueWrite(PendingCommand command)
{
    if (!m_handshakeDone) {
        m_waiting.push_back(std::move(command));
        return;
    }
    m_writeBuffer += command.encoded;
    m_inFlight.push_back(std::move(command));
    // Coalesce everything sent in one event-loop pass into one socket write.
    if (!m_flushScheduled) {
        m_flushScheduled = true;
        QMetaObject::invokeMethod(this, &RedisConnection::flushWrites, Qt::QueuedConnection);
    }
}

void RedisConnection::flushWrites()
{
    m_flushScheduled = false;
    if (m_transport && !m_writeBuffer.isEmpty())
        m_transport->write(m_writeBuffer);
    m_writeBuffer.clear();
}

void RedisConnection::armTimeoutTimer(qint64 deadlineMs)
{
    if (m_timeoutTimer.isActive() && m_timeoutTimerTargetMs <= deadlineMs)
        return;
    m_timeoutTimerTargetMs = deadlineMs;
    m_timeoutTimer.start(static_cast<int>(std::max<qint64>(0, deadlineMs - m_clock.elapsed())));
}

void RedisConnection::checkTimeouts()
{
    const qint64 now = m_clock.elapsed();
    const QPointer<RedisConnection> self(this);

    // A late reply would arrive out of step with the pipeline, so an expired in-flight command
    // costs the connection: it is dropped and reopened.
    const bool inFlightExpired = std::any_of(m_inFlight.begin(), m_inFlight.end(),
                                             [now](const PendingCommand &c) { return c.deadlineMs <= now; });
    if (inFlightExpired) {
        const QString reason = m_handshakeDone ? tr("no reply within %1 ms").arg(m_options.commandTimeoutMs)
                                               : tr("no answer within %1 ms").arg(m_options.connectTimeoutMs);
        // Told apart from a broken connection: a read that gets no reply timed out.
        failAll(m_inFlight, RedisReply::Failure::NoReply, reason);
        if (!self)
            return;
        onTransportFailed(reason);
        if (!self)
            return;
    }
    for (auto it = m_waiting.begin(); it != m_waiting.end();) {
        if (it->deadlineMs > now) {
            ++it;
            continue;
        }
        PendingCommand command = std::move(*it);
        it = m_waiting.erase(it);
        RedisReply reply;
        reply.failure = RedisReply::Failure::Timeout;
        reply.failureMessage = m_lastError.isEmpty() ? tr("timed out waiting for a connection")
                                                     : tr("timed out waiting for a connection (%1)").arg(m_lastError);
        finish(command, reply);
        if (!self)
            return;
        it = m_waiting.begin();
    }

    qint64 next = -1;
    for (const auto *queue : {&m_inFlight, &m_waiting})
        for (const PendingCommand &command : *queue)
            if (next < 0 || command.deadlineMs < next)
                next = command.deadlineMs;
    m_timeoutTimerTargetMs = -1;
    if (next >= 0)
        armTimeoutTimer(next);
}

void RedisConnection::finish(PendingCommand &command, const RedisReply &reply)
{
    if (command.context && command.callback)
        command.callback(reply);
}

void RedisConnection::failAll(std::deque<PendingCommand> &queue, RedisReply::Failure failure, const QString &message)
{
    std::deque<PendingCommand> failing;
    failing.swap(queue);
    RedisReply reply;
    reply.failure = failure;
    reply.failureMessage = message;
    for (PendingCommand &command : failing)
        finish(command, reply);
}

void RedisConnection::setState(State state, const QString &reason)
{
    if (state == m_state && reason.isEmpty())
        return;
    m_state = state;
    Q_EMIT stateChanged(state, reason);
}

} // namespace sluice::redis
