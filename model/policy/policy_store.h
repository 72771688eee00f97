// SPDX-License-Identifier: GPL-3.0-or-later
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
    QByteArray lists() const { return m_prefix + ":lists"; }

private:
    QByteArray m_prefix; // "{sluice}"
};

// A stored policy that cannot be read as one (a field that is not a number, a hash missing while
// its name is listed): listed apart, so every command still works on the healthy ones, and
// repaired by putting a definition over it or deleting it at `version`.
struct DamagedPolicy {
    QString name;
    QString problem;
    qint64 version = 0; // the stored version when it can be read, else 0
};

// One change to commit: put a definition, delete a policy, or only check its version (a policy a
// plan keeps as it is). expectedVersion is the version the change was based on: 0 = must not
// exist yet, -1 = no check. A put that restores an earlier version names it in rollbackTo, and the
// audit entry says so.
struct PolicyChange {
    enum class Kind { Put, Delete, Check };
    Kind kind = Kind::Put;
    Policy policy; // for Delete only the name matters
    qint64 expectedVersion = -1;
    qint64 rollbackTo = 0;
};

// Reads and writes policies in Redis. Writes are all-or-nothing and optimistic: a change based on
// an outdated version (or, when the caller names the set it read, a set of names that moved) fails
// with a conflict and changes nothing; every real change appends an audit entry; putting a
// definition that is already stored changes nothing and audits nothing.
class PolicyStore {
public:
    struct ListResult {
        QVector<Policy> policies;       // sorted by name; empty on failure
        QVector<DamagedPolicy> damaged; // sorted by name
        std::optional<Failure> failure;
        QStringList names() const; // of the healthy and the damaged ones: the set a prune read
    };
    struct ReadResult {
        std::optional<Policy> policy;         // nullopt: no such policy (or a failure)
        std::optional<DamagedPolicy> damaged; // stored but unreadable (failure says why)
        std::optional<Failure> failure;
    };
    struct CommitResult {
        QStringList changed;            // names that really changed
        std::optional<Failure> failure; // Conflict: someone saved in between (says who and which version)
    };

    PolicyStore(redis::RedisCommands *client, const QString &ns = QStringLiteral("sluice"));

    void list(QObject *context, std::function<void(const ListResult &)> done) const;
    void read(const QString &name, QObject *context, std::function<void(const ReadResult &)> done) const;
    // expectedNames: the set of policy names the changes were planned against (for a prune), or
    // nullopt when other names may come and go.
    void commit(const QVector<PolicyChange> &changes, const QString &who, QObject *context,
                std::function<void(const CommitResult &)> done,
                const std::optional<QStringList> &expectedNames = std::nullopt) const;

    // The hash fields of a definition, canonical, as the store writes them.
    static QByteArrayList definitionFields(const Policy &policy);
    // Decodes a stored hash (HGETALL reply); nullopt and *error on anything malformed.
    static std::optional<Policy> fromHash(const QString &name, const redis::RespValue &hash, QString *error);
    // What a stored hash that fromHash() refused is: its name, the problem and what version it holds.
    static DamagedPolicy damaged(const QString &name, const redis::RespValue &hash, const QString &problem);
    // Decodes the definition fields alone (as the audit log keeps them), without bookkeeping.
    static std::optional<Policy> fromDefinition(const QString &name, const QHash<QByteArray, QByteArray> &fields,
                                                QString *error);

private:
    redis::RedisCommands *m_client;
    AdminKeys m_keys;
};

} // namespace sluice::model
