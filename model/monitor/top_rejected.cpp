// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/monitor/top_rejected.h"

#include "model/limiter/library_problem.h"

#include <QCoreApplication>

namespace sluice::model {

using redis::RedisClient;
using redis::RespValue;

namespace {

// This file's strings, under the context a translator sees them in.
struct Text {
    Q_DECLARE_TR_FUNCTIONS(sluice::model::TopRejectedPoller)
};

} // namespace

std::optional<MostRejectedReading> MostRejectedReading::parse(const RespValue &reply, QString *problem)
{
    if (reply.isError()) {
        // A library of an earlier Sluice has no such function: it kept 10-second summaries instead.
        *problem = reply.toString().contains(QLatin1String("Function not found"))
            ? Text::tr("its library has no most_rejected function: it is older than this Sluice, or none is "
                       "published (publish to update it)")
            : libraryCallProblem(reply.toString());
        return std::nullopt;
    }
    const QVector<RespValue> &fields = reply.elements;
    const auto unexpected = [problem] {
        *problem = Text::tr("unexpected reply to sluice_most_rejected");
        return std::nullopt;
    };
    if (!reply.isArray() || fields.size() < 3 || (fields.size() - 3) % 3 != 0 || !fields.at(0).isInteger()
        || !fields.at(1).isInteger() || !fields.at(2).isInteger() || fields.at(2).integer < 0)
        return unexpected();
    MostRejectedReading reading;
    reading.nowMs = fields.at(0).integer;
    reading.epochMs = fields.at(1).integer;
    reading.least = quint64(fields.at(2).integer);
    for (qsizetype i = 3; i < fields.size(); i += 3) {
        const RespValue &count = fields.at(i + 1);
        const RespValue &entered = fields.at(i + 2);
        if (fields.at(i).isArray() || !count.isInteger() || !entered.isInteger() || count.integer < 1
            || entered.integer < 0 || entered.integer >= count.integer)
            return unexpected();
        reading.subjects.insert(fields.at(i).bytes, {quint64(count.integer), quint64(entered.integer)});
    }
    return reading;
}

void TopRejected::take(const QString &node, const redis::RedisReply &reply)
{
    QString problem;
    if (reply.failure != redis::RedisReply::Failure::None) {
        problems << QStringLiteral("%1: %2").arg(node, reply.errorText());
    } else if (const auto reading = MostRejectedReading::parse(reply.value, &problem)) {
        nowMs = std::max(nowMs, reading->nowMs);
        readings.insert(node, *reading);
    } else {
        problems << QStringLiteral("%1: %2").arg(node, problem);
    }
}

TopRejected TopRejected::fromReplies(const QString &policy, const QVector<RedisClient::NodeReply> &replies)
{
    TopRejected top{policy, 0, {}, {}};
    for (const RedisClient::NodeReply &node : replies)
        top.take(node.node, node.reply);
    return top;
}

TopRejectedPoller::TopRejectedPoller(RedisClient *client, const LibraryOwner &owner, int intervalMs, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_function(owner.function("most_rejected"))
{
    m_timer.setInterval(intervalMs);
    connect(&m_timer, &QTimer::timeout, this, &TopRejectedPoller::pollNow);
}

void TopRejectedPoller::setPolicy(const QString &policy)
{
    if (policy == m_policy)
        return;
    m_policy = policy;
    m_last = TopRejected{policy, 0, {}, {}};
    Q_EMIT updated(m_last);
    if (m_timer.isActive())
        pollNow();
}

void TopRejectedPoller::start()
{
    m_timer.start();
    pollNow();
}

void TopRejectedPoller::stop()
{
    m_timer.stop();
}

void TopRejectedPoller::pollNow()
{
    if (m_policy.isEmpty() || m_outstanding)
        return;
    if (m_client->state() != RedisClient::State::Ready) {
        // A server shut down sends no failed reply: say so each tick, as a frozen one's timeout would, rather
        // than leave the last list (or "nobody was rejected") standing as the present.
        m_last = TopRejected{m_policy, 0, {}, {}};
        m_last.problems << tr("not connected to the server");
        Q_EMIT updated(m_last);
        return;
    }
    m_outstanding = true;
    const QString policy = m_policy;
    m_client->sendToPrimaries({"FCALL_RO", m_function, "0", policy.toUtf8()}, this,
                              [this, policy](const QVector<RedisClient::NodeReply> &replies) {
        m_outstanding = false;
        if (policy != m_policy)
            return; // the policy changed while this was on its way
        m_last = TopRejected::fromReplies(policy, replies);
        Q_EMIT updated(m_last);
    });
}

} // namespace sluice::model
