// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "redis/redis_commands.h"

#include <QObject>
#include <QTimer>
#include <QVector>

#include <optional>

namespace sluice::model {

// One of LATENCY LATEST's events on one primary: the latest spike over latency-monitor-threshold.
struct LatencyEvent {
    QString node;
    QString event; // "command", "fast-command", "expire-cycle", ...
    qint64 atMs = 0;
    qint64 latestMs = 0;
    qint64 maxMs = 0; // the largest since the server started or the event was reset
};

// One SLOWLOG entry on one primary, without its arguments: they hold other tenants' subjects and keys, so
// only the command's name leaves this file.
struct SlowCommand {
    QString node;
    qint64 atMs = 0;
    qint64 durationUs = 0;
    QString command; // upper case, "FCALL"
};

// What Redis itself says about its latency, beside the limiter's figures: each part with why it is missing
// (a role that may not read it, a latency monitor that is off, a primary that did not answer).
struct ServerDiagnostics {
    // latency-monitor-threshold (the same on every primary that answered), nullopt when it cannot be read;
    // 0 means the monitor records nothing.
    std::optional<qint64> latencyThresholdMs;
    QVector<LatencyEvent> latency; // every primary's, the latest first
    QString latencyProblem;        // empty when every primary answered
    QVector<SlowCommand> slowest;  // the slowest of each primary's last entries, slowest first
    QString slowlogProblem;        // "needs the operator role", a primary that did not answer

    // From each primary's replies to CONFIG GET latency-monitor-threshold, LATENCY LATEST and SLOWLOG GET.
    static ServerDiagnostics fromReplies(const QVector<redis::RedisCommands::NodeReply> &threshold,
                                         const QVector<redis::RedisCommands::NodeReply> &latency,
                                         const QVector<redis::RedisCommands::NodeReply> &slowlog);
};

// Reads ServerDiagnostics from every primary at an interval, one round outstanding at most, while started.
class ServerDiagnosticsPoller : public QObject {
    Q_OBJECT
public:
    static constexpr int kSlowlogEntries = 10; // per primary, of which the slowest are kept

    ServerDiagnosticsPoller(redis::RedisCommands *client, int intervalMs, QObject *parent = nullptr);

    // Reads at once, then every interval.
    void start();
    void stop();

Q_SIGNALS:
    void updated(const sluice::model::ServerDiagnostics &diagnostics);

private:
    void read();

    redis::RedisCommands *m_client;
    QTimer m_timer;
    bool m_reading = false;
};

} // namespace sluice::model
