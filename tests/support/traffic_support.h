#pragma once

#include "redis/redis_client.h"

#include <functional>

namespace sluice::test {

struct Fired {
    quint32 allowed = 0;
    quint32 rejected = 0;
};

// Fires `calls` sluice_acquire at `policy`, the i-th for subjectOf(i), pipelined (in order per
// connection), and waits for every reply; counts the decisions.
Fired fireAcquires(redis::RedisClient &client, const QString &ns, const QString &policy, int calls,
                   const std::function<QByteArray(int)> &subjectOf);

} // namespace sluice::test
