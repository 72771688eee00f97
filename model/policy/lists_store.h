// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/failure.h"
#include "model/policy/namespace_lists.h"
#include "model/policy/policy_store.h"
#include "redis/redis_commands.h"

#include <functional>

namespace sluice::model {

// Reads and saves a namespace's allow and deny lists (<ns>:lists, beside the policies and in their
// Cluster slot). A save is optimistic like a policy's: based on an outdated version it fails with a
// conflict and changes nothing; a real change appends an audit entry ("lists"); saving the lists that
// are stored changes nothing and audits nothing.
class ListsStore {
public:
    struct ReadResult {
        NamespaceLists lists; // empty, version 0, when never saved
        std::optional<Failure> failure;
    };
    struct CommitResult {
        qint64 version = 0; // the lists' version after the save
        std::optional<Failure> failure;
    };

    ListsStore(redis::RedisCommands *client, const QString &ns = QStringLiteral("sluice"));

    void read(QObject *context, std::function<void(const ReadResult &)> done) const;
    // Saves `entries` over the lists at `expectedVersion` (0: never saved). Invalid entries are refused
    // before anything is sent.
    void commit(const QVector<SubjectOverride> &entries, qint64 expectedVersion, const QString &who, QObject *context,
                std::function<void(const CommitResult &)> done) const;

    // The stored (and audited) form of the entries: a compact JSON object, sorted.
    static QByteArray entriesJson(const QVector<SubjectOverride> &entries);
    static std::optional<QVector<SubjectOverride>> entriesFromJson(const QByteArray &json, QString *problem);

private:
    redis::RedisCommands *m_client;
    AdminKeys m_keys;
};

} // namespace sluice::model
