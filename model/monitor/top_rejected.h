// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/limiter/library_owner.h"
#include "redis/redis_client.h"

#include <QHash>
#include <QObject>
#include <QTimer>

#include <optional>

namespace sluice::model {

// One primary's `sluice_most_rejected` reply for one policy: the library's summary of its most rejected
// subjects since its copy was loaded (epochMs), counted without the clock (lua/limiter/policy_counts.lua).
struct MostRejectedReading {
    struct Entry {
        quint64 count = 0;
        quint64 entered = 0; // the count it inherited when it took another subject's place (0: exact)
    };
    qint64 nowMs = 0;
    qint64 epochMs = 0;
    quint64 least = 0; // the smallest count of a full summary: no subject outside it was rejected more
    QHash<QByteArray, Entry> subjects;

    // Empty (and why in `problem`) when the reply is not one of sluice_most_rejected.
    static std::optional<MostRejectedReading> parse(const redis::RespValue &reply, QString *problem);
};

struct RejectedSubject {
    QByteArray subject;
    quint64 rejections = 0;
    quint64 shortBy = 0; // at most this many of its rejections may be missing (it entered the summary late)
    QString node;        // the primary that decided
};

// One poll of one policy's summaries: every primary's reading (a subject's keys live on one primary).
struct TopRejected {
    QString policy;
    qint64 nowMs = 0;                             // the latest Redis time among the readings
    QHash<QString, MostRejectedReading> readings; // by primary
    QStringList problems;                         // per primary that did not give its summary

    // Adds one primary's reply, or a line to `problems`.
    void take(const QString &node, const redis::RedisReply &reply);
    // Every primary's reply to one sluice_most_rejected of `policy`.
    static TopRejected fromReplies(const QString &policy, const QVector<redis::RedisClient::NodeReply> &replies);
};

// Asks every primary for one policy's summary at an interval (one request outstanding at most).
// Nothing scans the keyspace: the library keeps the summary as it decides.
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
    QByteArray m_function;
    QTimer m_timer;
    QString m_policy;
    bool m_outstanding = false;
    TopRejected m_last;
};

} // namespace sluice::model
