// SPDX-License-Identifier: GPL-3.0-or-later
#include "support/limiter_support.h"

#include "model/limiter/bucket_key.h"
#include "support/sync_command.h"

#include <QFile>

namespace sluice::test {

model::LimiterLibrary testClockLibrary(const QVector<model::Policy> &policies, const QString &ns,
                                       const QVector<model::SubjectOverride> &lists)
{
    QFile clock(QStringLiteral(":/test/test_clock.lua"));
    const QByteArray source = clock.open(QIODevice::ReadOnly) ? clock.readAll() : QByteArray();
    return model::LimiterLibrary::build(policies, lists, model::LibraryOwner{ns, 0}, 1, source);
}

QString loadLibrary(redis::RedisConnection &connection, const model::LimiterLibrary &library)
{
    const redis::RedisReply reply = syncCommand(connection, {"FUNCTION", "LOAD", "REPLACE", library.source});
    return reply.ok() ? QString() : reply.errorText();
}

model::Policy makePolicy(const QString &name, model::Algorithm algorithm, qint64 limit, qint64 windowMs, qint64 burst,
                         bool shadow)
{
    model::Policy policy;
    policy.name = name;
    policy.algorithm = algorithm;
    policy.limit = limit;
    policy.windowMs = windowMs;
    policy.burst = burst;
    policy.shadow = shadow;
    return policy;
}

QVector<model::Policy> contractPolicies()
{
    using model::Algorithm;
    return {
        makePolicy(QStringLiteral("tb"), Algorithm::TokenBucket, 10, 1000, 5),
        makePolicy(QStringLiteral("fw"), Algorithm::FixedWindow, 3, 1000),
        makePolicy(QStringLiteral("sw"), Algorithm::SlidingWindow, 3, 1000),
        makePolicy(QStringLiteral("sl"), Algorithm::SlidingLog, 3, 1000),
        makePolicy(QStringLiteral("lb"), Algorithm::LeakyBucket, 1, 100, 3),
        makePolicy(QStringLiteral("gc"), Algorithm::Gcra, 10, 1000, 5),
        makePolicy(QStringLiteral("cc"), Algorithm::Concurrency, 2, 1000),
        makePolicy(QStringLiteral("shadow"), Algorithm::FixedWindow, 1, 1000, 0, true),
    };
}

QByteArray bucketKey(const QString &policy, const QByteArray &subject, const QString &ns)
{
    return model::bucketKey(ns, policy, subject);
}

void sendKeepingKeys(redis::RedisConnection &connection, QObject *context, const QByteArrayList &write,
                     const QByteArrayList &keys, const redis::RedisConnection::Callback &done)
{
    const auto ignore = [](const redis::RedisReply &) {};
    connection.send({"MULTI"}, context, ignore);
    connection.send(write, context, ignore);
    for (const QByteArray &key : keys)
        connection.send({"PERSIST", key}, context, ignore);
    connection.send({"EXEC"}, context, [done](const redis::RedisReply &reply) {
        done(reply.ok() && reply.value.isArray() && !reply.value.elements.isEmpty()
                 ? redis::RedisReply{reply.value.elements.first(), redis::RedisReply::Failure::None, QString()}
                 : reply);
    });
}

bool decisionFromReply(const redis::RespValue &reply, model::Decision *decision, QString *why)
{
    const QVector<redis::RespValue> &fields = reply.elements;
    if (!reply.isArray() || fields.size() < 6 || fields.size() > 7) {
        *why = QStringLiteral("not a decision: %1").arg(reply.toString());
        return false;
    }
    for (int i = 0; i < 5; ++i) {
        if (!fields.at(i).isInteger()) {
            *why = QStringLiteral("element %1 is not an integer: %2").arg(i).arg(reply.toString());
            return false;
        }
    }
    decision->allowed = fields.at(0).integer == 1;
    decision->remaining = fields.at(1).integer;
    decision->retryAfterMs = fields.at(2).integer;
    decision->resetAfterMs = fields.at(3).integer;
    decision->extra.clear();
    if (fields.size() == 7)
        decision->extra = fields.at(6).isInteger() ? QByteArray::number(fields.at(6).integer) : fields.at(6).bytes;
    return true;
}

QByteArray leanReplyExpected(const model::Decision &expected)
{
    const qint64 wait = expected.allowed ? expected.extra.toLongLong() : expected.retryAfterMs;
    return QByteArray::number(expected.allowed ? 1 : 0) + ' ' + QByteArray::number(expected.remaining) + ' '
        + QByteArray::number(wait);
}

QByteArray leanReplyText(const redis::RespValue &reply)
{
    if (!reply.isArray() || reply.elements.size() != 3)
        return "not a lean reply: " + reply.toString().toUtf8();
    QByteArrayList numbers;
    for (const redis::RespValue &element : reply.elements) {
        if (!element.isInteger())
            return "not a lean reply: " + reply.toString().toUtf8();
        numbers.append(QByteArray::number(element.integer));
    }
    return numbers.join(' ');
}

} // namespace sluice::test
