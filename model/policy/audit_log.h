// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/policy/policy_store.h"

#include <QJsonObject>

#include <optional>

namespace sluice::model {

// One entry of <ns>:audit: a policy created, updated, rolled back or deleted, a library published,
// one bucket reset, or the namespace's lists saved.
struct AuditEntry {
    QByteArray id;  // the stream id, which orders entries
    QString policy; // empty for a publish and for the lists
    QString action; // "create", "update", "rollback", "delete", "publish", "reset", "lists"
    QString who;
    qint64 atMs = 0;
    qint64 version = 0; // the policy's version after the change (before it, for a delete); the library's for a publish
    qint64 rollbackTo = 0; // for a rollback, the version it restored
    std::optional<Policy> before;
    std::optional<Policy> after;
    bool replacedDamage = false;          // before was a damaged definition, which this change repaired
    QByteArray publishedDigest;           // for a publish
    QByteArray subject;                   // for a reset: the bucket's subject
    QJsonObject bucketState;              // for a reset: the bucket's state before it (BucketState::toJson)
    QVector<SubjectOverride> listsBefore; // for the lists: their entries before and after
    QVector<SubjectOverride> listsAfter;

    // "limit 100 → 200, burst 150 → 300", or what happened as a whole.
    QString changeText() const;
};

// What an entry is about, as a history's POLICY column shows it: the policy, "(library)" or "(lists)".
QString auditSubjectText(const AuditEntry &entry);

// Reads the audit stream, newest first, a bounded page at a time.
class AuditLog {
public:
    struct ReadResult {
        QVector<AuditEntry> entries; // newest first
        std::optional<Failure> failure;
        bool complete = true; // false: more entries than asked for exist
    };

    AuditLog(redis::RedisCommands *client, const QString &ns = QStringLiteral("sluice"));

    // At most `maxEntries` entries about `policy` (every entry when empty).
    void read(const QString &policy, int maxEntries, QObject *context,
              std::function<void(const ReadResult &)> done) const;

    // Decodes one XRANGE element; nullopt and *error when it is not an audit entry.
    static std::optional<AuditEntry> decode(const redis::RespValue &element, QString *error);

private:
    redis::RedisCommands *m_client;
    AdminKeys m_keys;
};

} // namespace sluice::model
