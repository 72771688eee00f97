// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/monitor/server_diagnostics.h"

#include <QCoreApplication>

#include <algorithm>
#include <memory>

namespace sluice::model {

namespace {

using NodeReplies = QVector<redis::RedisCommands::NodeReply>;

struct Text {
    Q_DECLARE_TR_FUNCTIONS(sluice::model::ServerDiagnostics)
};

bool refused(const redis::RedisReply &reply)
{
    return reply.failure == redis::RedisReply::Failure::None && reply.value.isError()
        && reply.value.bytes.startsWith("NOPERM");
}

// "127.0.0.1:30001 did not answer (…)" for each primary whose reply failed; empty when all answered.
QString failedNodes(const NodeReplies &replies)
{
    QStringList problems;
    for (const auto &node : replies)
        if (!node.reply.ok() && !refused(node.reply))
            problems << Text::tr("%1: %2").arg(node.node, node.reply.errorText());
    return problems.join(QStringLiteral("; "));
}

bool anyRefused(const NodeReplies &replies)
{
    return std::any_of(replies.cbegin(), replies.cend(), [](const auto &node) { return refused(node.reply); });
}

} // namespace

ServerDiagnostics ServerDiagnostics::fromReplies(const NodeReplies &threshold, const NodeReplies &latency,
                                                 const NodeReplies &slowlog)
{
    ServerDiagnostics result;
    for (const auto &node : threshold) {
        // CONFIG GET's reply: [name, value].
        const redis::RespValue &value = node.reply.value;
        if (!node.reply.ok() || !value.isArray() || value.elements.size() != 2)
            continue;
        bool ok = false;
        const qint64 ms = value.elements.at(1).toString().toLongLong(&ok);
        if (ok)
            result.latencyThresholdMs = std::max(result.latencyThresholdMs.value_or(0), ms);
    }

    for (const auto &node : latency) {
        if (!node.reply.ok() || !node.reply.value.isArray())
            continue;
        // Each event: [name, unix time in s, latest ms, all-time max ms].
        for (const redis::RespValue &event : node.reply.value.elements) {
            if (!event.isArray() || event.elements.size() < 4)
                continue;
            result.latency.append({node.node, event.elements.at(0).toString(), event.elements.at(1).integer * 1000,
                                   event.elements.at(2).integer, event.elements.at(3).integer});
        }
    }
    std::sort(result.latency.begin(), result.latency.end(),
              [](const LatencyEvent &a, const LatencyEvent &b) { return a.atMs > b.atMs; });
    result.latencyProblem
        = anyRefused(latency) ? Text::tr("this user may not read LATENCY LATEST") : failedNodes(latency);

    for (const auto &node : slowlog) {
        if (!node.reply.ok() || !node.reply.value.isArray())
            continue;
        // Each entry: [id, unix time in s, duration in µs, [command, arguments…], client, client name].
        for (const redis::RespValue &entry : node.reply.value.elements) {
            if (!entry.isArray() || entry.elements.size() < 4 || !entry.elements.at(3).isArray()
                || entry.elements.at(3).elements.isEmpty())
                continue;
            result.slowest.append({node.node, entry.elements.at(1).integer * 1000, entry.elements.at(2).integer,
                                   entry.elements.at(3).elements.first().toString().toUpper()});
        }
    }
    std::sort(result.slowest.begin(), result.slowest.end(),
              [](const SlowCommand &a, const SlowCommand &b) { return a.durationUs > b.durationUs; });
    result.slowlogProblem = anyRefused(slowlog)
        ? Text::tr("needs the operator role (the slowlog shows every tenant's arguments)")
        : failedNodes(slowlog);
    return result;
}

ServerDiagnosticsPoller::ServerDiagnosticsPoller(redis::RedisCommands *client, int intervalMs, QObject *parent)
    : QObject(parent)
    , m_client(client)
{
    m_timer.setInterval(intervalMs);
    connect(&m_timer, &QTimer::timeout, this, &ServerDiagnosticsPoller::read);
}

void ServerDiagnosticsPoller::start()
{
    if (m_timer.isActive())
        return;
    m_timer.start();
    read();
}

void ServerDiagnosticsPoller::stop()
{
    m_timer.stop();
}

// The three reads go to every primary at once; the round reports when the last of them is back.
void ServerDiagnosticsPoller::read()
{
    if (m_reading)
        return;
    m_reading = true;
    struct Round {
        NodeReplies threshold, latency, slowlog;
        int outstanding = 3;
    };
    auto round = std::make_shared<Round>();
    const auto collect = [this, round](NodeReplies Round::*part) {
        return [this, round, part](const NodeReplies &replies) {
            (*round).*part = replies;
            if (--round->outstanding > 0)
                return;
            m_reading = false;
            Q_EMIT updated(ServerDiagnostics::fromReplies(round->threshold, round->latency, round->slowlog));
        };
    };
    m_client->sendToPrimaries({"CONFIG", "GET", "latency-monitor-threshold"}, this, collect(&Round::threshold));
    m_client->sendToPrimaries({"LATENCY", "LATEST"}, this, collect(&Round::latency));
    m_client->sendToPrimaries({"SLOWLOG", "GET", QByteArray::number(kSlowlogEntries)}, this, collect(&Round::slowlog));
}

} // namespace sluice::model
