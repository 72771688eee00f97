#pragma once

#include <QByteArrayList>
#include <QString>

namespace sluice::model {

// Key layouts of limiters that predate Sluice (the seed articles), with EVAL scripts that read and
// write them, so existing deployments can be watched and test-fired, and so benchmarks have a
// baseline.
enum class SeedLayout {
    ScgTokenBucket,     // Spring Cloud Gateway: request_rate_limiter.{id}.tokens / .timestamp
    FixedWindowCounter, // INCR + EXPIRE: one counter per key
    MsTokenBucket,      // KEY (tokens) and KEY:last (client ms)
};

QString seedLayoutName(SeedLayout layout);
QByteArray seedScript(SeedLayout layout);
// The keys the script takes for one subject id (or, for the counter and ms bucket, one key name).
QByteArrayList seedKeys(SeedLayout layout, const QByteArray &id);

} // namespace sluice::model
