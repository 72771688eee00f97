// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/policy/policy_store.h"

#include <QObject>
#include <QTimer>

namespace sluice::model {

// Notices new entries in <ns>:audit, whoever wrote them (this dashboard, another one, sluicectl, a
// script): while running it reads the newest entry's id (XREVRANGE + - COUNT 1, one command) every
// interval, one read outstanding at most, and says when it changed. What changed is read by whoever
// shows the log (AuditLog), so a quiet log costs one small command per interval.
class AuditFollower : public QObject {
    Q_OBJECT
public:
    AuditFollower(redis::RedisCommands *client, const QString &ns, int intervalMs = 2000, QObject *parent = nullptr);

    // Reads at once, then every interval.
    void start();
    void stop();
    bool isRunning() const { return m_timer.isActive(); }
    // Empty until read, and for a log without entries.
    QByteArray newestId() const { return m_newest; }

Q_SIGNALS:
    // The newest id differs from the last one read (the first reading included).
    void newestChanged(const QByteArray &id);

private:
    void read();

    redis::RedisCommands *m_client;
    AdminKeys m_keys;
    QTimer m_timer;
    bool m_reading = false;
    bool m_known = false;
    QByteArray m_newest;
};

} // namespace sluice::model
