// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/metrics/metrics_scrape.h"

#include "model/failure.h"
#include "model/monitor/policy_rate_sampler.h"
#include "model/monitor/rule_stats.h"

#include <algorithm>
#include <memory>

namespace sluice::model {

using redis::RedisCommands;
using redis::RespValue;

namespace {

bool answered(const redis::RedisReply &reply)
{
    return reply.ok() || !Failure::fromReply(reply).isConnectionFailure();
}

// sluice_policies: one array per policy, {name, algorithm, limit, window_ms, burst, shadow, description,
// first_call}; a library older than window starts replies without first_call, and all its windows are aligned.
std::optional<QVector<PolicyMetrics>> parsePolicies(const RespValue &reply)
{
    if (!reply.isArray())
        return std::nullopt;
    QVector<PolicyMetrics> policies;
    for (const RespValue &entry : reply.elements) {
        const QVector<RespValue> &f = entry.elements;
        if (f.size() < 6 || !f.at(2).isInteger() || !f.at(3).isInteger() || !f.at(4).isInteger()
            || !f.at(5).isInteger())
            return std::nullopt;
        if (f.size() > 7 && !f.at(7).isInteger())
            return std::nullopt;
        policies.append({QString::fromUtf8(f.at(0).bytes), QString::fromUtf8(f.at(1).bytes), double(f.at(2).integer),
                         f.at(3).integer / 1000.0, double(f.at(4).integer), f.at(5).integer != 0,
                         f.size() > 7 && f.at(7).integer != 0});
    }
    return policies;
}

} // namespace

bool MetricsSnapshot::up() const
{
    return !primaries.isEmpty()
        && std::all_of(primaries.cbegin(), primaries.cend(), [](const PrimaryMetrics &p) { return p.up; });
}

struct MetricsScraper::Scrape {
    QElapsedTimer elapsed;
    quint64 commandsBefore = 0;
    int pending = 4; // the record and library states, the counts, the rules' counts, the policies
    DeploymentStatus status;
    QVector<RedisCommands::NodeReply> stats;
    QVector<RedisCommands::NodeReply> ruleStats;
    QVector<RedisCommands::NodeReply> policies;
    MetricsSnapshot snapshot;
};

MetricsScraper::MetricsScraper(redis::RedisClient *client, const LibraryOwner &owner, int topPerPolicy, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_owner(owner)
    , m_topPerPolicy(std::clamp(topPerPolicy, 0, kMaxTopPerPolicy))
{
}

void MetricsScraper::scrape(std::function<void(const MetricsSnapshot &)> done)
{
    m_waiting.append(std::move(done));
    if (m_waiting.size() > 1)
        return;
    auto scrape = std::make_shared<Scrape>();
    scrape->elapsed.start();
    scrape->commandsBefore = m_client->commandsSent();
    scrape->snapshot.ns = m_owner.ns;
    const auto partDone = [this, scrape] {
        if (--scrape->pending == 0)
            readTopSubjects(scrape);
    };
    LibraryPublisher(m_client, m_owner)
        .primaryStatus(
            this,
            [scrape, partDone](const DeploymentStatus &status) {
        scrape->status = status;
        partDone();
            },
            m_codeReads);
    m_client->sendToPrimaries({"FCALL_RO", m_owner.function("stats"), "0", StatsReading::totalsOnly}, this,
                              [scrape, partDone](const QVector<RedisCommands::NodeReply> &replies) {
        scrape->stats = replies;
        partDone();
    });
    m_client->sendToPrimaries({"FCALL_RO", m_owner.function("rule_stats"), "0"}, this,
                              [scrape, partDone](const QVector<RedisCommands::NodeReply> &replies) {
        scrape->ruleStats = replies;
        partDone();
    });
    m_client->sendToPrimaries({"FCALL_RO", m_owner.function("policies"), "0"}, this,
                              [scrape, partDone](const QVector<RedisCommands::NodeReply> &replies) {
        scrape->policies = replies;
        partDone();
    });
}

void MetricsScraper::readTopSubjects(const std::shared_ptr<Scrape> &scrape)
{
    MetricsSnapshot &snapshot = scrape->snapshot;
    // The definitions of a primary that runs the published library, or else of any that answered.
    const auto runsPublished = [&](const QString &node) {
        return std::any_of(scrape->status.nodes.cbegin(), scrape->status.nodes.cend(), [&](const NodeLibrary &n) {
            return n.node == node && n.state == NodeLibrary::State::Current;
        });
    };
    std::optional<QVector<PolicyMetrics>> definitions;
    for (const bool publishedOnly : {true, false}) {
        for (const RedisCommands::NodeReply &reply : qAsConst(scrape->policies))
            if (!definitions && reply.reply.ok() && (!publishedOnly || runsPublished(reply.node)))
                definitions = parsePolicies(reply.reply.value);
    }
    snapshot.policies = definitions.value_or(QVector<PolicyMetrics>());
    if (m_topPerPolicy == 0 || snapshot.policies.isEmpty()) {
        finish(scrape);
        return;
    }
    // Only the primaries that gave their counts: one that did not would hold the scrape up again.
    QStringList answering;
    for (const RedisCommands::NodeReply &reply : qAsConst(scrape->stats))
        if (reply.reply.ok())
            answering.append(reply.node);
    auto pending = std::make_shared<qsizetype>(snapshot.policies.size() * answering.size());
    if (*pending == 0) {
        finish(scrape);
        return;
    }
    auto lists = std::make_shared<QHash<QString, TopRejected>>();
    for (const PolicyMetrics &policy : qAsConst(snapshot.policies)) {
        const QByteArrayList command{"FCALL_RO", m_owner.function("most_rejected"), "0", policy.name.toUtf8()};
        for (const QString &node : qAsConst(answering))
            m_client->sendToNode(
                node, command, this,
                [this, scrape, pending, lists, node, name = policy.name](const redis::RedisReply &reply) {
                TopRejected &top = (*lists)[name];
                top.policy = name;
                const qsizetype problemsBefore = top.problems.size();
                top.take(node, reply);
                if (top.problems.size() > problemsBefore)
                    scrape->snapshot.problems.append(
                        tr("most rejected subjects of %1: %2").arg(name, top.problems.last()));
                if (--*pending == 0) {
                    keepMostRejected(*lists, &scrape->snapshot);
                    finish(scrape);
                }
                });
    }
}

// Each subject lives on one primary, so the lists join without sums. The subjects kept are those rejected
// most over the last kTopWindowMs of this scraper's readings (at its first reading, since they entered the
// summary); each is exposed with its count since it entered the summary.
void MetricsScraper::keepMostRejected(const QHash<QString, TopRejected> &lists, MetricsSnapshot *snapshot)
{
    for (const PolicyMetrics &policy : qAsConst(snapshot->policies)) {
        const TopRejected poll = lists.value(policy.name);
        RejectedTally &tally = m_rejections[policy.name];
        tally.add(poll);
        QHash<QByteArray, quint64> recent;
        for (const RejectedSubject &subject : tally.over(kTopWindowMs).subjects)
            recent.insert(subject.subject, subject.rejections);
        QVector<std::pair<quint64, SubjectRejections>> ranked;
        for (const MostRejectedReading &reading : poll.readings)
            for (auto it = reading.subjects.cbegin(); it != reading.subjects.cend(); ++it)
                ranked.append(
                    {recent.value(it.key()), {policy.name, QString::fromUtf8(it.key()), it->count - it->entered}});
        std::stable_sort(ranked.begin(), ranked.end(), [](const auto &a, const auto &b) {
            if (a.first != b.first)
                return a.first > b.first;
            if (a.second.rejections != b.second.rejections)
                return a.second.rejections > b.second.rejections;
            return a.second.subject < b.second.subject;
        });
        for (qsizetype i = 0; i < std::min<qsizetype>(ranked.size(), m_topPerPolicy); ++i)
            snapshot->topSubjects.append(ranked.at(i).second);
    }
    // A policy no longer defined keeps no tally.
    m_rejections.removeIf([&lists](const auto &tally) { return !lists.contains(tally.key()); });
}

void MetricsScraper::finish(const std::shared_ptr<Scrape> &scrape)
{
    MetricsSnapshot &snapshot = scrape->snapshot;
    const DeploymentStatus &status = scrape->status;
    if (status.failure)
        snapshot.problems.append(status.failure->message);
    else
        snapshot.publishedVersion = status.published.version;

    QHash<QString, bool> shadow;
    for (const PolicyMetrics &policy : qAsConst(snapshot.policies))
        shadow.insert(policy.name, policy.shadow);
    QHash<QString, redis::RespValue> ruleReplies;
    for (const RedisCommands::NodeReply &reply : qAsConst(scrape->ruleStats))
        if (answered(reply.reply))
            ruleReplies.insert(reply.node, reply.reply.value);
    QStringList topology;
    QHash<QString, CounterCarry::Reading> readings;
    for (const RedisCommands::NodeReply &reply : qAsConst(scrape->stats)) {
        topology.append(reply.node);
        PrimaryMetrics primary;
        primary.node = reply.node;
        primary.up = answered(reply.reply);
        for (const NodeLibrary &node : status.nodes)
            if (node.node == reply.node) {
                primary.library = node.state;
                primary.libraryVersion = node.version;
                primary.persistence = node.persistence;
                primary.maxmemoryPolicy = node.maxmemoryPolicy;
                primary.evictedKeys = node.evictedKeys;
            }
        QString problem;
        if (!primary.up) {
            primary.problem = reply.reply.errorText();
        } else if (primary.library == NodeLibrary::State::Missing || primary.library == NodeLibrary::State::Foreign) {
            readings.insert(reply.node, {}); // no library of this owner there: nothing decided there
        } else if (const auto stats = StatsReading::parse(reply.reply.value, &problem)) {
            const bool ruleAnswer = ruleReplies.contains(reply.node);
            const auto rules
                = ruleAnswer ? RuleStatsReading::parse(ruleReplies.value(reply.node), &problem) : std::nullopt;
            // Both counts from one load of the library, or neither: a sum of two loads' counts means nothing.
            if (!rules || (!rules->policies.isEmpty() && rules->epochMs != stats->epochMs)) {
                primary.up = false;
                primary.problem = !ruleAnswer ? tr("no answer to sluice_rule_stats")
                    : rules                   ? tr("the library was reloaded during the scrape")
                                              : problem;
            } else {
                CounterCarry::Reading reading{stats->epochMs, {}};
                for (auto it = stats->totals.cbegin(); it != stats->totals.cend(); ++it) {
                    DecisionTotals &totals = reading.totals[it.key()];
                    totals.allowed = it->allowed;
                    (shadow.value(it.key()) ? totals.shadowRejected : totals.rejected) = it->rejected;
                    const PolicyRuleCounts counts = rules->policies.value(it.key());
                    totals.allowListed = counts.allowListed;
                    totals.denied = counts.denied;
                    totals.blocksStarted = counts.blocksStarted;
                    totals.reservations = counts.reservations;
                    totals.settlements = counts.settlements;
                    totals.debtUnits = counts.debtUnits;
                    totals.unchargedUnits = counts.unchargedUnits;
                    if (rules->policies.contains(it.key()))
                        snapshot.blockedSubjects[it.key()] += counts.blockedNow;
                }
                readings.insert(reply.node, reading);
            }
        } else {
            primary.up = false; // its counts cannot be read: count it out of the sums as if it had not answered
            primary.problem = problem;
        }
        if (!primary.problem.isEmpty())
            snapshot.problems.append(QStringLiteral("%1: %2").arg(reply.node, primary.problem));
        snapshot.primaries.append(primary);
    }
    if (topology.isEmpty())
        snapshot.problems.append(tr("no primary is known: %1").arg(m_client->lastError()));
    snapshot.totals = m_carry.update(topology, readings);
    snapshot.durationSeconds = scrape->elapsed.nsecsElapsed() / 1e9;
    snapshot.commands = m_client->commandsSent() - scrape->commandsBefore;
    const auto waiting = std::exchange(m_waiting, {});
    for (const auto &done : waiting)
        done(snapshot);
}

} // namespace sluice::model
