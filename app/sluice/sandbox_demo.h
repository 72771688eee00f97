// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/policy/policy.h"

#include <QObject>
#include <QRandomGenerator>
#include <QTimer>

namespace sluice::redis {
class RedisClient;
}

namespace sluice::app {

// What the sandbox shows on first start: a handful of demo policies, stored and published, and a
// steady mix of traffic at them (well-behaved subjects, and a few abusive ones that get limited),
// so every screen has something to show. Everything goes through the same store, publisher and
// functions an operator uses; nothing here blocks (replies arrive on the event loop).
class SandboxDemo : public QObject {
    Q_OBJECT
public:
    explicit SandboxDemo(redis::RedisClient *client, QObject *parent = nullptr);

    static QVector<model::Policy> demoPolicies();

    // Stores the demo policies that are missing (never overwrites an edited one), publishes, then
    // starts the traffic.
    void start();
    qint64 callsSent() const { return m_sent; }

Q_SIGNALS:
    void trafficStarted();
    void failed(const QString &reason);

private:
    void publish();
    void tick();
    void acquire(const QByteArray &policy, const QByteArray &subject);
    void release(const QByteArray &key, const QByteArray &lease);

    redis::RedisClient *m_client;
    QTimer m_timer;
    QRandomGenerator m_random{20261121};
    qint64 m_tick = 0;
    qint64 m_sent = 0;
    int m_inFlight = 0;
};

} // namespace sluice::app
