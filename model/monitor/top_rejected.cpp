// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/monitor/top_rejected.h"

#include "model/limiter/library_problem.h"
#include "model/limiter/limiter_library.h"

#include <QCoreApplication>

#include <algorithm>

namespace sluice::model {

using redis::RedisClient;
using redis::RespValue;

namespace {

// This file's strings, under the context a translator sees them in.
struct Text {
    Q_DECLARE_TR_FUNCTIONS(sluice::model::TopRejectedPoller)
};

} // namespace

bool TopRejected::parseReply(const RespValue &reply, const QString &node, TopRejected *into, QString *problem)
{
    if (reply.isError()) {
        *problem = libraryCallProblem(reply.toString());
        return false;
    }
    const QVector<RespValue> &fields = reply.elements;
    if (!reply.isArray() || fields.size() < 2 || (fields.size() - 2) % 3 != 0 || !fields.at(0).isInteger()
        || !fields.at(1).isInteger()) {
        *problem = Text::tr("unexpected reply to sluice_top");
        return false;
    }
    QVector<RejectedSubject> subjects;
    for (qsizetype i = 2; i < fields.size(); i += 3) {
        const RespValue &count = fields.at(i + 1);
        const RespValue &over = fields.at(i + 2);
        if (fields.at(i).isArray() || !count.isInteger() || !over.isInteger() || count.integer < 1 || over.integer < 0
            || over.integer > count.integer) {
            *problem = Text::tr("unexpected reply to sluice_top");
            return false;
        }
        subjects.append({fields.at(i).bytes, quint64(count.integer), quint64(over.integer), node});
    }
    into->nowMs = std::max(into->nowMs, fields.at(0).integer);
    into->sinceMs = into->sinceMs == 0 ? fields.at(1).integer : std::min(into->sinceMs, fields.at(1).integer);
    into->subjects += subjects;
    return true;
}

TopRejectedPoller::TopRejectedPoller(RedisClient *client, const LibraryOwner &owner, int intervalMs, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_topFunction(owner.function("top"))
{
    m_timer.setInterval(intervalMs);
    connect(&m_timer, &QTimer::timeout, this, &TopRejectedPoller::pollNow);
}

void TopRejectedPoller::setPolicy(const QString &policy)
{
    if (policy == m_policy)
        return;
    m_policy = policy;
    m_last = TopRejected{policy, 0, 0, {}, {}};
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
        m_last = TopRejected{m_policy, 0, 0, {}, {}};
        m_last.problems << tr("not connected to the server");
        Q_EMIT updated(m_last);
        return;
    }
    m_outstanding = true;
    const QString policy = m_policy;
    m_client->sendToPrimaries({"FCALL_RO", m_topFunction, "0", policy.toUtf8()}, this,
                              [this, policy](const QVector<RedisClient::NodeReply> &replies) {
        m_outstanding = false;
        if (policy != m_policy)
            return; // the policy changed while this was on its way
        TopRejected top{policy, 0, 0, {}, {}};
        for (const RedisClient::NodeReply &node : replies) {
            QString problem;
            if (node.reply.failure != redis::RedisReply::Failure::None)
                top.problems << QStringLiteral("%1: %2").arg(node.node, node.reply.errorText());
            else if (!TopRejected::parseReply(node.reply.value, node.node, &top, &problem))
                top.problems << QStringLiteral("%1: %2").arg(node.node, problem);
        }
        std::stable_sort(top.subjects.begin(), top.subjects.end(),
                         [](const RejectedSubject &a, const RejectedSubject &b) {
            if (a.rejections != b.rejections)
                return a.rejections > b.rejections;
            return a.subject < b.subject;
        });
        m_last = top;
        Q_EMIT updated(m_last);
    });
}

} // namespace sluice::model
