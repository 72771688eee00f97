// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/limiter/seed_bucket.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>
#include <memory>

namespace sluice::model {

using redis::RedisReply;
using redis::RespValue;

namespace {

// This file's strings, under the context a translator sees them in.
struct Text {
    Q_DECLARE_TR_FUNCTIONS(sluice::model::SeedBucket)
};

std::optional<double> finiteNumber(const RespValue &value)
{
    bool ok = false;
    const double number = value.bytes.toDouble(&ok);
    if (!ok || !std::isfinite(number))
        return std::nullopt;
    return number;
}

// The keys whose existence makes a counter's key one of the two keys of an ms or interval bucket: its time
// key beside it, or (for a key named as a time key) its tokens key.
QByteArrayList pairedKeys(const QByteArray &key)
{
    QByteArrayList paired;
    for (SeedLayout layout : {SeedLayout::MsTokenBucket, SeedLayout::IntervalTokenBucket}) {
        paired << seedKeys(layout, key).at(1);
        if (const std::optional<QByteArray> tokens = seedIdOfKey(layout, key))
            paired << *tokens;
    }
    return paired;
}

SeedBucketRead notRead(SeedBucketRead::Outcome outcome, const QString &problem)
{
    SeedBucketRead read;
    read.outcome = outcome;
    read.problem = problem;
    return read;
}

// The replies of GET key and PTTL key, then GET time key (two keys) or EXISTS of each paired key (the counter).
SeedBucketRead decodeReading(SeedLayout layout, const QByteArrayList &keys, const QVector<RedisReply> &replies)
{
    using Outcome = SeedBucketRead::Outcome;
    for (const RedisReply &reply : replies)
        if (!reply.ok())
            return notRead(Outcome::Failed, reply.errorText());
    const QString key = QString::fromUtf8(keys.first());
    if (replies.at(0).value.isNil())
        return notRead(Outcome::Missing, Text::tr("%1 does not exist (idle, or never used)").arg(key));
    SeedBucketRead read;
    read.outcome = Outcome::Read;
    SeedBucketReading &reading = read.reading;
    if (layout == SeedLayout::FixedWindowCounter) {
        bool whole = false;
        reading.stored = double(replies.at(0).value.bytes.toLongLong(&whole));
        if (!whole)
            return notRead(Outcome::Foreign,
                           Text::tr("%1 does not hold a whole number (not an INCR counter)").arg(key));
        const QByteArrayList paired = pairedKeys(keys.first());
        for (int i = 0; i < paired.size(); ++i)
            if (replies.at(2 + i).value.integer > 0)
                return notRead(Outcome::Foreign,
                               Text::tr("%1 is a key of a bucket with %2, not a counter")
                                   .arg(key, QString::fromUtf8(paired.at(i))));
    } else {
        const std::optional<double> stored = finiteNumber(replies.at(0).value);
        if (!stored)
            return notRead(Outcome::Foreign, Text::tr("%1 does not hold a number").arg(key));
        reading.stored = *stored;
        if (!replies.at(2).value.isNil()) {
            reading.stamp = finiteNumber(replies.at(2).value);
            if (!reading.stamp)
                return notRead(Outcome::Foreign,
                               Text::tr("%1 does not hold a number").arg(QString::fromUtf8(keys.at(1))));
        }
    }
    // -2: the key expired between the two commands.
    reading.ttlMs = replies.at(1).value.integer == -2 ? 0 : replies.at(1).value.integer;
    return read;
}

} // namespace

void readSeedBucket(redis::RedisClient *client, SeedLayout layout, const QByteArray &id, QObject *context,
                    std::function<void(const SeedBucketRead &)> done)
{
    const QByteArrayList keys = seedKeys(layout, id);
    QVector<QByteArrayList> commands{{"GET", keys.at(0)}, {"PTTL", keys.at(0)}};
    if (layout == SeedLayout::FixedWindowCounter) {
        for (const QByteArray &paired : pairedKeys(keys.at(0)))
            commands.append({"EXISTS", paired});
    } else {
        commands.append({"GET", keys.at(1)});
    }
    auto replies = std::make_shared<QVector<RedisReply>>(commands.size());
    auto left = std::make_shared<int>(int(commands.size()));
    for (int i = 0; i < commands.size(); ++i)
        client->sendForKey(commands.at(i).at(1), commands.at(i), context,
                           [layout, keys, replies, left, i, done](const RedisReply &reply) {
            (*replies)[i] = reply;
            if (--*left == 0)
                done(decodeReading(layout, keys, *replies));
        });
}

SeedBucketState seedBucketAt(SeedLayout layout, const SeedBucketReading &reading, qint64 nowMs,
                             const std::optional<SeedParameters> &parameters)
{
    SeedBucketState state;
    state.stored = state.level = reading.stored;
    state.ttlMs = reading.ttlMs;
    const qint64 stampUnitMs = layout == SeedLayout::MsTokenBucket ? 1 : 1000;
    if (reading.stamp)
        state.lastRefillMs = qRound64(*reading.stamp * stampUnitMs);
    if (layout == SeedLayout::FixedWindowCounter) {
        state.current = true;
        state.fullInMs = reading.ttlMs;
        if (parameters)
            state.capacity = double(parameters->limit);
        return state;
    }
    // A stamp that cannot be this layout's clock (epoch milliseconds where seconds belong, as seed 000's
    // buckets hold, reads tens of thousands of years ahead; seconds where milliseconds belong read 1970):
    // say so rather than compute a refill from it.
    constexpr qint64 dayMs = 86400000, plausibleSinceMs = 1000000000000; // 2001-09-09
    if (state.lastRefillMs > nowMs + dayMs || (state.lastRefillMs >= 0 && state.lastRefillMs < plausibleSinceMs)) {
        state.problem = Text::tr("its timestamp %1 is not this layout's clock (%2 expected); not refilled")
                            .arg(QString::number(*reading.stamp, 'g', 17),
                                 stampUnitMs == 1 ? Text::tr("epoch milliseconds") : Text::tr("epoch seconds"));
        state.lastRefillMs = -1;
        return state;
    }
    if (!parameters)
        return state;
    // As the layout's script refills when it is called: in whole seconds for the gateway (a missing
    // timestamp counts from 0) and the interval bucket, in ms for the ms bucket (a missing time is now).
    const double capacity = double(parameters->burst), perWindow = double(parameters->limit);
    const double now = double(nowMs), nowSeconds = std::floor(now / 1000);
    double fullAtMs = now;
    switch (layout) {
    case SeedLayout::ScgTokenBucket: {
        const double stamp = reading.stamp.value_or(0), perSecond = seedRatePerSecond(*parameters);
        state.level = std::min(capacity, reading.stored + std::max(0.0, nowSeconds - stamp) * perSecond);
        fullAtMs = (stamp + std::ceil((capacity - reading.stored) / perSecond)) * 1000;
        break;
    }
    case SeedLayout::MsTokenBucket: {
        const double stamp = reading.stamp.value_or(now);
        state.level = std::min(capacity, reading.stored + std::max(0.0, now - stamp) * perWindow / 1000);
        fullAtMs = stamp + std::ceil((capacity - reading.stored) * 1000 / perWindow);
        break;
    }
    case SeedLayout::IntervalTokenBucket: {
        // Whole batches only: the last refill moves by whole intervals, and the rest waits for the next.
        const double interval = double(parameters->windowMs) / 1000;
        const double stamp = reading.stamp.value_or(nowSeconds);
        const double batches = std::max(0.0, std::floor((nowSeconds - stamp) / interval));
        const double last = stamp + batches * interval;
        state.level = std::min(capacity, reading.stored + batches * perWindow);
        state.lastRefillMs = qRound64(last * 1000);
        fullAtMs = (last + std::ceil((capacity - state.level) / perWindow) * interval) * 1000;
        break;
    }
    case SeedLayout::FixedWindowCounter: break;
    }
    state.current = true;
    state.capacity = capacity;
    state.fullInMs = state.level >= capacity ? 0 : std::max<qint64>(0, qint64(std::ceil(fullAtMs - now)));
    return state;
}

QJsonObject SeedBucketState::toJson(SeedLayout layout) const
{
    QJsonObject object{
        {layout == SeedLayout::FixedWindowCounter ? QStringLiteral("count") : QStringLiteral("tokens"), level},
        {QStringLiteral("refilled_to_now"), current},
        {QStringLiteral("stored"), stored},
        {QStringLiteral("ttl_ms"), ttlMs}};
    if (capacity >= 0)
        object.insert(QStringLiteral("capacity"), capacity);
    if (lastRefillMs >= 0)
        object.insert(QStringLiteral("last_refill_ms"), lastRefillMs);
    if (fullInMs >= 0)
        object.insert(QStringLiteral("full_in_ms"), fullInMs);
    if (!problem.isEmpty())
        object.insert(QStringLiteral("problem"), problem);
    return object;
}

} // namespace sluice::model
