// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/monitor/rule_counts.h"

namespace sluice::model {

using redis::RedisClient;

RuleCounts::RuleCounts(RedisClient *client, const LibraryOwner &owner, PolicyRateSampler *sampler, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_function(owner.function("rule_stats"))
{
    connect(sampler, &PolicyRateSampler::sampled, this, [this] {
        if (!m_outstanding && (!m_sinceLastRead.isValid() || m_sinceLastRead.elapsed() >= kMinGapMs))
            read();
    });
}

const RuleCounts::Entry *RuleCounts::of(const QString &policy) const
{
    const auto found = m_entries.constFind(policy);
    return found == m_entries.constEnd() ? nullptr : &*found;
}

void RuleCounts::read()
{
    m_sinceLastRead.start();
    m_outstanding = true;
    m_client->sendToPrimaries({"FCALL_RO", m_function, "0"}, this,
                              [this](const QVector<RedisClient::NodeReply> &replies) {
        m_outstanding = false;
        QHash<QString, Entry> entries;
        bool complete = true;
        bool anyAnswered = false;
        qint64 readAtMs = 0;
        for (const RedisClient::NodeReply &node : replies) {
            QString problem;
            const auto reading = node.reply.failure == redis::RedisReply::Failure::None
                ? RuleStatsReading::parse(node.reply.value, &problem)
                : std::nullopt;
            if (!reading) {
                complete = false;
                continue;
            }
            anyAnswered = true;
            readAtMs = std::max(readAtMs, reading->nowMs);
            for (auto it = reading->policies.cbegin(); it != reading->policies.cend(); ++it)
                entries[it.key()].sum += *it;
        }
        if (!anyAnswered) {
            // Nothing read: the last counts stand, no longer vouched for (never "no rules").
            for (Entry &entry : m_entries)
                entry.complete = false;
            Q_EMIT updated();
            return;
        }
        for (Entry &entry : entries) {
            entry.readAtMs = readAtMs;
            entry.complete = complete;
        }
        m_entries = entries;
        Q_EMIT updated();
    });
}

} // namespace sluice::model
