// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/limiter/limiter_library.h"
#include "redis/redis_connection.h"
#include "support/redis_process.h"

#include <QObject>

#include <memory>

namespace sluice::test {

// What the Lua limiter tests share: a private redis-server, one connection to it, the test clock and
// library loading. A test class derives from it and calls startServer() from its initTestCase().
class LimiterTestCase : public QObject {
protected:
    void startServer();
    redis::RedisReply call(const QByteArrayList &args);
    // FCALL sluice_test_set_clock: the default namespace's test clock.
    void setClock(qint64 ms);
    void loadLibrary(const model::LimiterLibrary &library);
    // The integers of a reply (-999 for anything else); a failed call is logged.
    static QVector<qint64> integers(const redis::RedisReply &reply);

    RedisProcess m_redis;
    std::unique_ptr<redis::RedisConnection> m_connection;
};

} // namespace sluice::test
