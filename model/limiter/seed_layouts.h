// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArrayList>
#include <QString>
#include <QVector>

#include <optional>

namespace sluice::model {

// Key layouts of limiters that predate Sluice (the seed articles), with EVAL scripts that read and
// write them, so existing deployments can be watched and test-fired, and so benchmarks have a
// baseline.
enum class SeedLayout {
    ScgTokenBucket,      // Spring Cloud Gateway: request_rate_limiter.{id}.tokens / .timestamp
    FixedWindowCounter,  // INCR + EXPIRE: one counter per key
    MsTokenBucket,       // KEY (tokens) and KEY:last (client ms)
    IntervalTokenBucket, // KEY (tokens) and KEY_time (last refill, client seconds): whole batches per interval
};
inline constexpr SeedLayout seedLayouts[] = {SeedLayout::ScgTokenBucket, SeedLayout::FixedWindowCounter,
                                             SeedLayout::MsTokenBucket, SeedLayout::IntervalTokenBucket};

QString seedLayoutName(SeedLayout layout);
QByteArray seedScript(SeedLayout layout);
// The keys the script takes for one subject id (or, for the other layouts, one key name).
QByteArrayList seedKeys(SeedLayout layout, const QByteArray &id);
// The SCAN MATCH pattern of the key that names each of a layout's buckets (the gateway's tokens key, the
// ms and interval buckets' time keys, the counter itself) whose id matches `idPattern` (a Redis glob).
QByteArray seedScanPattern(SeedLayout layout, const QByteArray &idPattern);
// The id of the bucket such a key names; nullopt when the key is not one of the layout's naming keys (for
// the counter, any key not named as another layout's: a counter is a bare key).
std::optional<QByteArray> seedIdOfKey(SeedLayout layout, const QByteArray &key);
// Whether the script takes its callers' clock (so callers whose clocks disagree see different buckets).
bool seedLayoutReadsCallerClock(SeedLayout layout);

// The numbers a layout's script is called with, in the fields test-fire and the reference model keep
// them: the token buckets refill `limit` tokens per `windowMs` up to `burst` (rate per second, window
// 1000; the interval bucket a batch per interval), the counter admits `limit` calls per `windowMs`.
struct SeedParameters {
    qint64 limit = 0;
    qint64 windowMs = 0;
    qint64 burst = 0;
};
// How an operator writes them after the layout's name, e.g. "RATE_PER_SECOND:CAPACITY".
QString seedParameterForm(SeedLayout layout);
// The numbers in seedParameterForm()'s order; nullopt when there are not as many, or one is out of range.
std::optional<SeedParameters> seedParameters(SeedLayout layout, const QVector<qint64> &numbers);
// The same from text written as seedParameterForm() says ("10:20"). The gateway's rate may have up to three
// decimals ("0.5:10": 5 tokens per 10 s, refilled as 0.5 per whole second).
std::optional<SeedParameters> parseSeedParameters(SeedLayout layout, const QString &text);
// A token bucket's refill in tokens a second (the gateway's RATE_PER_SECOND, as its script is called).
double seedRatePerSecond(const SeedParameters &parameters);

} // namespace sluice::model
