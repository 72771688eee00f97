// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "redis/redis_commands.h"

#include <QTimer>

#include <deque>

namespace sluice::test {

// Replies to script with: Redis' error reply, an array of strings, a client-side failure.
inline redis::RedisReply errorReply(const QByteArray &text)
{
    redis::RedisReply reply;
    reply.value.type = redis::RespValue::Type::Error;
    reply.value.bytes = text;
    return reply;
}
inline redis::RedisReply arrayReply(const QByteArrayList &items)
{
    redis::RedisReply reply;
    reply.value.type = redis::RespValue::Type::Array;
    for (const QByteArray &item : items) {
        redis::RespValue element;
        element.type = redis::RespValue::Type::String;
        element.bytes = item;
        reply.value.elements.append(element);
    }
    return reply;
}
inline redis::RedisReply failedReply(redis::RedisReply::Failure failure, const QString &message)
{
    redis::RedisReply reply;
    reply.failure = failure;
    reply.failureMessage = message;
    return reply;
}

// A RedisCommands that answers from a script instead of a server: each command gets the next
// reply queued for its name (the first word, upper case), from the event loop, as the real client
// answers. A command with nothing queued gets an error reply that names it, so a test sees what it
// did not expect. Every command is recorded for the test to inspect.
class ScriptedCommands : public redis::RedisCommands {
public:
    QStringList primaryNodes{QStringLiteral("127.0.0.1:1")};
    QVector<QByteArrayList> sent;

    void queue(const QByteArray &name, const redis::RedisReply &reply) { m_script[name].push_back(reply); }

    void send(const QByteArrayList &args, QObject *context, Callback callback, int = -1) override
    {
        answer(args, context, std::move(callback));
    }
    void sendForKey(const QByteArray &, const QByteArrayList &args, QObject *context, Callback callback,
                    int = -1) override
    {
        answer(args, context, std::move(callback));
    }
    void sendToNode(const QString &, const QByteArrayList &args, QObject *context, Callback callback, int = -1) override
    {
        answer(args, context, std::move(callback));
    }
    void sendToPrimaries(const QByteArrayList &args, QObject *context, FanOutCallback done, int = -1) override
    {
        auto replies = std::make_shared<QVector<NodeReply>>();
        for (const QString &node : primaryNodes) {
            answer(args, context, [replies, node, count = primaryNodes.size(), done](const redis::RedisReply &reply) {
                replies->append({node, reply});
                if (replies->size() == count)
                    done(*replies);
            });
        }
    }
    QStringList primaries() const override { return primaryNodes; }

private:
    void answer(const QByteArrayList &args, QObject *context, Callback callback)
    {
        sent.append(args);
        const QByteArray name = args.value(0).toUpper();
        redis::RedisReply reply;
        std::deque<redis::RedisReply> &replies = m_script[name];
        if (replies.empty()) {
            reply = errorReply("ERR the test script has no reply for " + name);
        } else {
            reply = replies.front();
            replies.pop_front();
        }
        QTimer::singleShot(0, context, [callback, reply] { callback(reply); });
    }

    QHash<QByteArray, std::deque<redis::RedisReply>> m_script;
};

} // namespace sluice::test
