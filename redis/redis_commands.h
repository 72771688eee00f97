// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "redis/redis_reply.h"

#include <QByteArrayList>
#include <QObject>
#include <QStringList>
#include <QVector>

#include <functional>

namespace sluice::redis {

// What model logic needs of a client: commands routed by their key, by a named key, to every
// primary, or to one node, each answered once on the context's thread. RedisClient is the real
// one; a test may put a scripted one in its place to reach replies no service gives on demand
// (a lost answer, a conflict at the last moment).
class RedisCommands {
public:
    using Callback = std::function<void(const RedisReply &)>;
    struct NodeReply {
        QString node; // host:port
        RedisReply reply;
    };
    using FanOutCallback = std::function<void(const QVector<NodeReply> &)>;

    virtual ~RedisCommands() = default;

    virtual void send(const QByteArrayList &args, QObject *context, Callback callback, int timeoutMs = -1) = 0;
    virtual void sendForKey(const QByteArray &key, const QByteArrayList &args, QObject *context, Callback callback,
                            int timeoutMs = -1)
        = 0;
    virtual void sendToPrimaries(const QByteArrayList &args, QObject *context, FanOutCallback done, int timeoutMs = -1)
        = 0;
    virtual void sendToNode(const QString &node, const QByteArrayList &args, QObject *context, Callback callback,
                            int timeoutMs = -1)
        = 0;
    // The primaries as host:port (or the socket path), in slot order; empty until known.
    virtual QStringList primaries() const = 0;
};

} // namespace sluice::redis
