// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/monitor/top_subjects.h"

#include <QSet>

#include <algorithm>

namespace sluice::model {

using redis::RedisClient;

TopSubjects::TopSubjects(RedisClient *client, const LibraryOwner &owner, PolicyRateSampler *sampler, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_function(owner.function("most_rejected"))
{
    connect(sampler, &PolicyRateSampler::sampled, this, &TopSubjects::takeSample);
}

const TopSubjects::Entry *TopSubjects::of(const QString &policy) const
{
    const auto found = m_entries.constFind(policy);
    return found == m_entries.constEnd() ? nullptr : &*found;
}

void TopSubjects::takeSample(const RateSample &sample)
{
    if (m_outstanding > 0 || (m_sinceLastRead.isValid() && m_sinceLastRead.elapsed() < kMinGapMs))
        return;
    if (sample.missingNodes.isEmpty() && sample.problems.isEmpty()) {
        // A policy no longer in the library keeps nothing here.
        QSet<QString> served;
        for (const PolicyRate &rate : sample.policies)
            served.insert(rate.policy);
        m_tallies.removeIf([&served](const auto &tally) { return !served.contains(tally.key()); });
        m_entries.removeIf([&served](const auto &entry) { return !served.contains(entry.key()); });
    }
    QVector<const PolicyRate *> rejecting;
    for (const PolicyRate &rate : sample.policies)
        if (rate.point.rejected > 0)
            rejecting << &rate;
    if (rejecting.isEmpty())
        return;
    std::stable_sort(rejecting.begin(), rejecting.end(),
                     [](const PolicyRate *a, const PolicyRate *b) { return a->point.rejected > b->point.rejected; });
    QStringList policies;
    for (qsizetype i = 0; i < std::min<qsizetype>(rejecting.size(), kMaxPolicies); ++i)
        policies << rejecting.at(i)->policy;
    read(policies);
}

void TopSubjects::read(const QStringList &policies)
{
    m_sinceLastRead.start();
    m_outstanding = int(policies.size());
    for (const QString &policy : policies) {
        m_client->sendToPrimaries({"FCALL_RO", m_function, "0", policy.toUtf8()}, this,
                                  [this, policy](const QVector<RedisClient::NodeReply> &replies) {
            const TopRejected top = TopRejected::fromReplies(policy, replies);
            RejectedTally &tally = m_tallies[policy];
            tally.add(top);
            const RejectedTally::Result recent = tally.over(kWindowMs);
            if (!recent.subjects.isEmpty())
                m_entries.insert(policy, {recent.subjects.first(), top.nowMs});
            if (--m_outstanding == 0)
                Q_EMIT updated();
        });
    }
}

} // namespace sluice::model
