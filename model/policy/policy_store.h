#pragma once

#include "model/failure.h"
#include "model/policy/policy.h"
#include "redis/redis_commands.h"

#include <functional>

namespace sluice::model {

// The admin keys of one namespace. They share one hash tag, so they live in one Cluster slot and
// change together atomically.
struct AdminKeys {
    explicit AdminKeys(const QString &ns = QStringLiteral("sluice"));
    QByteArray policies() const { return m_prefix + ":policies"; }
    QByteArray audit() const { return m_prefix + ":audit"; }
    QByteArray policy(const QString &name) const { return m_prefix + ":policy:" + name.toUtf8(); }
    QByteArray library() const { return m_prefix + ":library"; }

private:
    QByteArray m_prefix; // "{sluice}"
};

// One change to commit: put a definition, or delete a policy. expectedVersion is the version the
// change was based on: 0 = must not exist yet, -1 = no check. A put that restores an earlier
// version names it in rollbackTo, and the audit entry says so.
struct PolicyChange {
    enum class Kind { Put, Delete };
    Kind kind = Kind::Put;
    Policy policy; // for Delete only the name matters
    qint64 expectedVersion = -1;
    qint64 rollbackTo = 0;
};

// Reads and writes policies in Redis. Writes are all-or-nothing and optimistic: a change based on
// an outdated version fails with a conflict and changes nothing; every real change appends an
// audit entry; putting a definition that is already stored changes nothing and audits nothing.
class PolicyStore {
public:
    struct ListResult {
        QVector<Policy> policies; // sorted by name; empty on failure
        std::optional<Failure> failure;
    };
    struct ReadResult {
        std::optional<Policy> policy; // nullopt: no such policy (or a failure)
        std::optional<Failure> failure;
    };
    struct CommitResult {
        QStringList changed; // names that really changed
        std::optional<Failure> failure; // Conflict: someone saved in between (says who and which version)
    };

    PolicyStore(redis::RedisCommands *client, const QString &ns = QStringLiteral("sluice"));

    void list(QObject *context, std::function<void(const ListResult &)> done) const;
    void read(const QString &name, QObject *context, std::function<void(const ReadResult &)> done) const;
    void commit(const QVector<PolicyChange> &changes, const QString &who, QObject *context,
                std::function<void(const CommitResult &)> done) const;

    // The hash fields of a definition, canonical, as the store writes them.
    static QByteArrayList definitionFields(const Policy &policy);
    // Decodes a stored hash (HGETALL reply); nullopt and *error on anything malformed.
    static std::optional<Policy> fromHash(const QString &name, const redis::RespValue &hash, QString *error);
    // Decodes the definition fields alone (as the audit log keeps them), without bookkeeping.
    static std::optional<Policy> fromDefinition(const QString &name, const QHash<QByteArray, QByteArray> &fields,
                                                QString *error);

private:
    redis::RedisCommands *m_client;
    AdminKeys m_keys;
};

} // namespace sluice::model
