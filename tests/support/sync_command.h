// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "redis/redis_client.h"
#include "redis/redis_connection.h"

#include <functional>
#include <optional>

namespace sluice::test {

// Sends one command and spins a local event loop until it ends (tests only: production code never
// waits like this). Returns a Timeout failure if nothing came back within waitMs.
redis::RedisReply syncCommand(redis::RedisConnection &connection, const QByteArrayList &args, int waitMs = 10000);
redis::RedisReply syncCommand(redis::RedisClient &client, const QByteArrayList &args, int waitMs = 10000);

// Runs the event loop until `condition` holds (checked every millisecond) or waitMs passes; returns
// whether it holds. Unlike QTest::qWaitFor it never sleeps while replies are waiting to be read.
bool spinUntil(const std::function<bool()> &condition, int waitMs = 10000);

// Opens the connection and waits until it is ready or failed; returns whether it became ready.
bool openAndWait(redis::RedisConnection &connection, int waitMs = 10000);
bool openAndWait(redis::RedisClient &client, int waitMs = 10000);

// Runs one asynchronous call, `start(context, done)`, and spins until `done` is called (tests only);
// returns `noAnswer` when nothing came within waitMs. The context goes away on return, so a late
// answer is dropped rather than written to a dead frame.
template <typename Result, typename Start> Result awaitCallback(Start start, Result noAnswer, int waitMs = 10000)
{
    std::optional<Result> answer;
    QObject context;
    start(&context, [&answer](const Result &result) { answer = result; });
    spinUntil([&] { return answer.has_value(); }, waitMs);
    return answer.value_or(noAnswer);
}

} // namespace sluice::test
