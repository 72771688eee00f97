// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the C++ benchmarks share: how they stop when they cannot measure, and their private server.

#include "redis/connection_options.h"
#include "redis/redis_client.h"
#include "support/redis_process.h"

#include <QHash>
#include <QString>
#include <QTextStream>

#include <functional>

namespace sluice::test {

// Why a benchmark could not measure (a command failed, the server died). A missed target is never one.
struct BenchFailure {
    QString why;
};

// Throws BenchFailure. Unlike std::exit, the way out to runBenchmark runs every destructor on it, so
// a private redis-server is killed and its temporary folder removed.
[[noreturn]] void die(const QString &why);

// Where a benchmark prints its figures (stdout).
QTextStream &out();

// Runs a benchmark's body; returns 0 when it measured, else prints "name: why" on stderr and returns 1.
int runBenchmark(const char *name, const std::function<void()> &body);

// Starts a private redis-server, on a CPU apart from this process where there are two, runs `phase`
// on it and stops it. A failure while the server had ended says how it ended.
void withPrivateServer(const std::function<void(RedisProcess &)> &phase);

// Empty while withPrivateServer's server runs (or outside it); else how it ended. Waits on that
// server give up with this at once rather than at their timeout.
QString privateServerEnded();

// Microseconds Redis spent per command name ("fcall", "info", ...) in an INFO commandstats reply.
QHash<QByteArray, qint64> commandMicroseconds(const QByteArray &commandstats);
// Any field of INFO commandstats (calls, usec, failed_calls...) per command.
QHash<QByteArray, qint64> commandStat(const QByteArray &commandstats, const QByteArray &field);

// Runs one command the benchmark needs and returns its reply; dies naming the command when it
// fails or the private server ends.
redis::RespValue mustRun(redis::RedisClient &client, const QByteArrayList &command);

} // namespace sluice::test
