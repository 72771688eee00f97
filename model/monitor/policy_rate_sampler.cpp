// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/monitor/policy_rate_sampler.h"

#include "model/limiter/library_problem.h"
#include "model/limiter/limiter_library.h"

#include <QCoreApplication>

#include <algorithm>
#include <limits>

namespace sluice::model {

QStringList RateSample::policyNames() const
{
    QStringList names;
    names.reserve(policies.size());
    for (const PolicyRate &rate : policies)
        names << rate.policy;
    return names;
}

using redis::RedisClient;
using redis::RespValue;

namespace {

quint32 clamped(quint64 count)
{
    return count > std::numeric_limits<quint32>::max() ? std::numeric_limits<quint32>::max() : quint32(count);
}

QVector<RatePoint> allPoints(const RateHistory &history)
{
    return history.points(std::numeric_limits<qint64>::min(), std::numeric_limits<qint64>::max());
}

// This file's strings, under the context a translator sees them in.
struct Text {
    Q_DECLARE_TR_FUNCTIONS(sluice::model::PolicyRateSampler)
};

} // namespace

std::optional<StatsReading> StatsReading::parse(const RespValue &reply, QString *problem)
{
    if (reply.isError()) {
        *problem = libraryCallProblem(reply.toString());
        return std::nullopt;
    }
    const QVector<RespValue> &fields = reply.elements;
    if (!reply.isArray() || fields.size() < 2 || (fields.size() - 2) % 4 != 0 || !fields.at(0).isInteger()
        || !fields.at(1).isInteger()) {
        *problem = Text::tr("unexpected reply to sluice_stats");
        return std::nullopt;
    }
    StatsReading reading;
    reading.nowMs = fields.at(0).integer;
    reading.epochMs = fields.at(1).integer;
    for (qsizetype i = 2; i < fields.size(); i += 4) {
        const RespValue &allowed = fields.at(i + 1);
        const RespValue &rejected = fields.at(i + 2);
        if (!allowed.isInteger() || !rejected.isInteger() || allowed.integer < 0 || rejected.integer < 0) {
            *problem = Text::tr("unexpected reply to sluice_stats");
            return std::nullopt;
        }
        reading.totals.insert(QString::fromUtf8(fields.at(i).bytes),
                              {quint64(allowed.integer), quint64(rejected.integer)});
    }
    return reading;
}

PolicyRateSampler::PolicyRateSampler(RedisClient *client, const LibraryOwner &owner, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_statsFunction(owner.function("stats"))
{
    m_timer.setTimerType(Qt::PreciseTimer); // a coarse timer may fire 5% early: 950 ms "seconds"
    m_timer.setInterval(1000);
    connect(&m_timer, &QTimer::timeout, this, &PolicyRateSampler::sampleNow);
}

void PolicyRateSampler::setIntervalMs(int intervalMs)
{
    const int interval = std::clamp(intervalMs, kMinIntervalMs, kMaxIntervalMs);
    if (interval == m_timer.interval())
        return;
    m_timer.setInterval(interval);
    rebuildHistories();
}

void PolicyRateSampler::setRetentionMs(qint64 retentionMs)
{
    const qint64 retention = std::clamp(retentionMs, kMinRetentionMs, kMaxRetentionMs);
    if (retention == m_retentionMs)
        return;
    m_retentionMs = retention;
    rebuildHistories();
}

void PolicyRateSampler::rebuildHistories()
{
    for (auto &entry : m_histories) {
        auto rebuilt = std::make_unique<RateHistory>(m_retentionMs, m_timer.interval());
        for (const RatePoint &point : allPoints(*entry.second))
            rebuilt->append(point);
        entry.second = std::move(rebuilt);
    }
}

RateSeries PolicyRateSampler::series() const
{
    RateSeries all;
    for (const auto &[policy, history] : m_histories)
        all[policy] = allPoints(*history);
    return all;
}

void PolicyRateSampler::restore(const RateSeries &series)
{
    for (const auto &[policy, earlier] : series) {
        auto &history = m_histories[policy];
        const QVector<RatePoint> current = history ? allPoints(*history) : QVector<RatePoint>();
        const qint64 firstStart
            = current.isEmpty() ? std::numeric_limits<qint64>::max() : current.first().endMs - current.first().spanMs;
        history = std::make_unique<RateHistory>(m_retentionMs, m_timer.interval());
        for (const RatePoint &point : earlier)
            if (point.endMs <= firstStart)
                history->append(point);
        for (const RatePoint &point : current)
            history->append(point);
    }
    Q_EMIT restored();
}

void PolicyRateSampler::start()
{
    m_timer.start();
    sampleNow();
}

void PolicyRateSampler::stop()
{
    m_timer.stop();
}

QStringList PolicyRateSampler::policies() const
{
    QStringList names;
    for (const auto &entry : m_histories)
        names << entry.first;
    return names;
}

const RateHistory *PolicyRateSampler::history(const QString &policy) const
{
    const auto found = m_histories.find(policy);
    return found == m_histories.end() ? nullptr : found->second.get();
}

void PolicyRateSampler::sampleNow()
{
    if (m_client->state() != RedisClient::State::Ready) {
        // A server shut down (not frozen) closes the connection: no reading fails, none is sent. Each tick
        // counts every primary read before as not answering, as a frozen one's timeout does, so every view
        // marks its figures stale with since-when instead of showing the last ones as the present.
        QVector<RedisClient::NodeReply> unanswered;
        QStringList known = m_readings.keys() + QStringList(m_uncounted.cbegin(), m_uncounted.cend());
        known.removeDuplicates();
        for (const QString &node : std::as_const(known)) {
            redis::RedisReply reply;
            reply.failure = redis::RedisReply::Failure::NotConnected;
            reply.failureMessage = tr("not connected");
            unanswered.append({node, reply});
        }
        if (!unanswered.isEmpty())
            takeReplies(unanswered);
        return;
    }
    if (m_outstanding) {
        ++m_skipped;
        return;
    }
    m_outstanding = true;
    m_client->sendToPrimaries({"FCALL_RO", m_statsFunction, "0", StatsReading::totalsOnly}, this,
                              [this](const QVector<RedisClient::NodeReply> &replies) {
        m_outstanding = false;
        ++m_readingsTaken;
        takeReplies(replies);
    });
}

void PolicyRateSampler::takeReplies(const QVector<RedisClient::NodeReply> &replies)
{
    RateSample sample;
    std::map<QString, PolicyRate> rates;
    bool counted = false;
    bool anotherLibrary = false;
    for (const RedisClient::NodeReply &node : replies) {
        if (node.reply.failure != redis::RedisReply::Failure::None) {
            sample.missingNodes << node.node;
            continue;
        }
        QString problem;
        std::optional<StatsReading> reading = StatsReading::parse(node.reply.value, &problem);
        if (!reading) {
            sample.problems << QStringLiteral("%1: %2").arg(node.node, problem);
            anotherLibrary |= m_readings.remove(node.node) > 0;
            m_uncounted.insert(node.node);
            continue;
        }
        anotherLibrary |= m_uncounted.remove(node.node);
        const auto previous = m_readings.constFind(node.node);
        const bool hasPrevious = previous != m_readings.constEnd();
        // The same library copy: differences of its totals. A copy loaded after the previous
        // reading counted everything it holds during this interval. Anything else is a baseline.
        const bool sameCopy = hasPrevious && previous->epochMs == reading->epochMs;
        anotherLibrary |= hasPrevious && !sameCopy;
        const bool freshCopy = hasPrevious && !sameCopy && reading->epochMs >= previous->nowMs;
        for (auto it = reading->totals.cbegin(); it != reading->totals.cend(); ++it) {
            PolicyRate &rate = rates[it.key()];
            rate.policy = it.key();
            rate.allowedTotal += it->allowed;
            rate.rejectedTotal += it->rejected;
            if (!sameCopy && !freshCopy)
                continue;
            const StatsReading::Totals before = sameCopy ? previous->totals.value(it.key()) : StatsReading::Totals{};
            rate.point.allowed = clamped(
                rate.point.allowed + (it->allowed >= before.allowed ? it->allowed - before.allowed : it->allowed));
            rate.point.rejected
                = clamped(rate.point.rejected
                          + (it->rejected >= before.rejected ? it->rejected - before.rejected : it->rejected));
        }
        if ((sameCopy || freshCopy) && !counted) {
            sample.endMs = reading->nowMs;
            sample.spanMs = qint32(std::max<qint64>(1, reading->nowMs - previous->nowMs));
            counted = true;
        }
        m_readings.insert(node.node, *reading);
    }
    if (anotherLibrary)
        Q_EMIT libraryChanged();
    if (!counted && sample.missingNodes.isEmpty() && sample.problems.isEmpty())
        return; // baselines only
    for (auto &entry : rates) {
        PolicyRate &rate = entry.second;
        rate.point.endMs = sample.endMs;
        rate.point.spanMs = sample.spanMs;
        if (counted) {
            auto &history = m_histories[rate.policy];
            if (!history)
                history = std::make_unique<RateHistory>(m_retentionMs, m_timer.interval());
            history->append(rate.point);
        }
        sample.policies << rate;
    }
    m_last = sample;
    Q_EMIT sampled(m_last);
}

} // namespace sluice::model
