// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/limiter/library_owner.h"
#include "redis/redis_client.h"

#include <QJsonObject>

#include <optional>

namespace sluice::model {

// One Sluice bucket as `FCALL_RO sluice_inspect 1 <key> <policy>` reports it.
struct BucketState {
    QString algorithm;
    qint64 available = 0; // units a call could take now
    qint64 capacity = 0;
    qint64 resetAfterMs = 0; // until the bucket is full again
    qint64 ttlMs = 0;        // the key's PTTL (-2: no key, the bucket is full)
    qint64 nowMs = 0;        // Redis time of the reading
    quint64 allowed = 0;     // the bucket's own counters
    quint64 rejected = 0;
    // The subject's rules (a library older than overrides replies none: the policy's limit, none set).
    qint64 limit = -1;               // the limit that applies to the subject; -1 when the library does not say
    QString override;                // the override that set it, as the policy file writes it; empty for none
    QString listed;                  // "allow" or "deny" when a list decides the subject
    bool fromNamespaceLists = false; // the namespace's lists decide it, not the policy's overrides
    qint64 blockedMs = 0;            // ms left of the subject's penalty block

    int buckets = 1; // a spread policy's subject: the buckets summed here (see summed())

    static QByteArrayList inspectCommand(const LibraryOwner &owner, const QByteArray &key, const QString &policy);
    // A spread policy's subject as one bucket: what its buckets hold and counted, summed; until full and the key's
    // time, the longest; the rules, its first bucket's (they are the subject's). `states` not empty.
    static BucketState summed(const QVector<BucketState> &states);
    // The state, or nullopt and why not (the library's error, or a reply of another shape).
    static std::optional<BucketState> fromReply(const redis::RedisReply &reply, QString *problem);

    // What the subject's rules do, in words: "blocked 4.9 s, override partner-x", "deny (abuser-7)",
    // "deny (scraper-*, namespace list)"; empty
    // when none applies.
    QString rulesText() const;
    // The fields as the audit log keeps a reset bucket's last state.
    QJsonObject toJson() const;
};

} // namespace sluice::model
