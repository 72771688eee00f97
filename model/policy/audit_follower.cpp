// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/policy/audit_follower.h"

namespace sluice::model {

AuditFollower::AuditFollower(redis::RedisCommands *client, const QString &ns, int intervalMs, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_keys(ns)
{
    m_timer.setInterval(intervalMs);
    connect(&m_timer, &QTimer::timeout, this, &AuditFollower::read);
}

void AuditFollower::start()
{
    if (isRunning())
        return;
    m_timer.start();
    read();
}

void AuditFollower::stop()
{
    m_timer.stop();
}

void AuditFollower::read()
{
    if (m_reading)
        return; // a slow server skips ticks instead of piling reads up
    m_reading = true;
    m_client->send({"XREVRANGE", m_keys.audit(), "+", "-", "COUNT", "1"}, this, [this](const redis::RedisReply &reply) {
        m_reading = false;
        // A failed read says nothing about the log: the one who shows it reports its own failures.
        if (!reply.ok() || !reply.value.isArray())
            return;
        const QByteArray newest
            = reply.value.elements.isEmpty() ? QByteArray() : reply.value.elements.first().elements.value(0).bytes;
        if (m_known && newest == m_newest)
            return;
        m_known = true;
        m_newest = newest;
        Q_EMIT newestChanged(newest);
    });
}

} // namespace sluice::model
