// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/limiter/seed_layouts.h"
#include "redis/redis_client.h"

#include <QJsonObject>

#include <functional>
#include <optional>

namespace sluice::model {

// One bucket of a seed layout as its keys hold it.
struct SeedBucketReading {
    double stored = 0;           // tokens, or the counter's calls, as the script left them at its last call
    std::optional<double> stamp; // the time key as stored (scg, interval: epoch s; ms: epoch ms); none for the counter
    qint64 ttlMs = -1;           // the first key's PTTL; -1: it never expires
};

// What reading a bucket's keys found.
struct SeedBucketRead {
    enum class Outcome {
        Read,
        Missing, // no such key: idle (expired), or never used
        Foreign, // not what the layout's script writes: not a number (the counter: not a whole number), or,
                 // for the counter, one of the two keys of an ms or interval bucket (its pair exists)
        Failed,  // an error reply
    };
    Outcome outcome = Outcome::Failed;
    SeedBucketReading reading; // when Read
    QString problem;           // otherwise, why
};

// Reads a bucket's keys, each on its own primary (the ms and interval buckets' two keys may live apart).
void readSeedBucket(redis::RedisClient *client, SeedLayout layout, const QByteArray &id, QObject *context,
                    std::function<void(const SeedBucketRead &)> done);

// A seed bucket at a moment. The layouts keep no limits, so its tokens are refilled to that moment only
// when the parameters its callers use are known; the counter's count is always current (its key ends with
// its window).
struct SeedBucketState {
    double level = 0;         // tokens (the counter: calls counted in its window)
    bool current = false;     // level is as of the moment, not as stored
    double stored = 0;        // as the script left it
    double capacity = -1;     // -1: unknown
    qint64 lastRefillMs = -1; // the last refill (ms since the epoch), as of the moment; -1: none
    qint64 fullInMs = -1;     // until the bucket is full again (the counter: until its window ends); -1: unknown
    qint64 ttlMs = -1;
    QString problem; // why the level is as stored and not refilled (a stamp not in the layout's clock)

    QJsonObject toJson(SeedLayout layout) const;
};

// What a script called at `nowMs` (the caller's clock, epoch ms) would find in the bucket, before it
// takes anything.
SeedBucketState seedBucketAt(SeedLayout layout, const SeedBucketReading &reading, qint64 nowMs,
                             const std::optional<SeedParameters> &parameters);

} // namespace sluice::model
