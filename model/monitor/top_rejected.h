// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/limiter/library_owner.h"
#include "redis/redis_client.h"

#include <QObject>
#include <QTimer>

namespace sluice::model {

struct RejectedSubject {
    QByteArray subject;
    quint64 rejections = 0;
    quint64 overestimate = 0; // how much of `rejections` may belong to subjects it displaced
    QString node;             // the primary that decided
};

// One policy's most rejected subjects over the library's current and previous 10-second period
// (sluice_top), merged over the primaries: a subject's keys live on one primary, so merging is
// putting the lists together.
struct TopRejected {
    QString policy;
    qint64 sinceMs = 0;
    qint64 nowMs = 0;
    QVector<RejectedSubject> subjects; // most rejected first
    QStringList problems;              // per primary that did not give a list

    // Empty (and why) when a reply is not one of sluice_top.
    static bool parseReply(const redis::RespValue &reply, const QString &node, TopRejected *into, QString *problem);
};

// Asks every primary for one policy's most rejected subjects at an interval (one request
// outstanding at most). Nothing scans the keyspace: the library keeps the summary as it decides.
class TopRejectedPoller : public QObject {
    Q_OBJECT
public:
    TopRejectedPoller(redis::RedisClient *client, const LibraryOwner &owner, int intervalMs = 2000,
                      QObject *parent = nullptr);

    void setPolicy(const QString &policy);
    QString policy() const { return m_policy; }
    void start();
    void stop();
    void pollNow();
    const TopRejected &last() const { return m_last; }

Q_SIGNALS:
    void updated(const sluice::model::TopRejected &top);

private:
    redis::RedisClient *m_client;
    QByteArray m_topFunction;
    QTimer m_timer;
    QString m_policy;
    bool m_outstanding = false;
    TopRejected m_last;
};

} // namespace sluice::model
