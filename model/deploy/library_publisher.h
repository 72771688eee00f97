// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/deploy/running_code_memo.h"
#include "model/limiter/limiter_library.h"
#include "model/policy/policy_diff.h"
#include "model/policy/policy_store.h"
#include "redis/redis_commands.h"

#include <functional>
#include <memory>

namespace sluice::model {

// What the last publish recorded in <ns>:library (version 0: never published).
struct LibraryRecord {
    qint64 version = 0;
    QByteArray digest;
    qint64 publishedAtMs = 0;
    QString publishedBy;
    qint64 policyCount = 0;
    QVector<Policy> policies;       // the definitions it published, when the record keeps them
    bool policiesKnown = false;     // false for records written before they were kept
    QVector<SubjectOverride> lists; // the namespace's allow and deny lists it published
};

// A Functions library loaded on a primary, and whom it serves when it is a Sluice library.
struct LoadedLibrary {
    QByteArray name;
    std::optional<LibraryOwner> owner; // none: not a Sluice library (no <name>_version answers)
    qint64 version = 0;
    QByteArray digest;
    // "sluice_teamb: namespace "teamb" in database 0, version 3", or "mylib: not a Sluice library".
    QString describe() const;
};

// This owner's limiter library on one primary, compared with what was published. Foreign: the
// library under this owner's name is not Sluice's, or serves another owner (one published before
// each namespace had a library of its own).
struct NodeLibrary {
    enum class State { Current, Stale, Missing, Foreign, Unreachable };
    enum class Persistence { Unknown, None, Persisted };
    QString node;
    State state = State::Missing;
    qint64 version = 0;
    QByteArray digest;
    QString detail; // what went wrong, or what was found instead
    // Missing because another library's name differs from this owner's only in case: Redis ignores case in
    // function names, so that library holds all of this one's (no take-over can load it beside).
    bool nameTakenInOtherCase = false;
    Persistence persistence = Persistence::Unknown;
    QString maxmemoryPolicy; // INFO memory's maxmemory_policy; empty when INFO could not be read
    qint64 evictedKeys = -1; // INFO stats' evicted_keys since the server started (the whole server's); -1: unknown
    QVector<LoadedLibrary> libraries; // every library the primary runs

    static QString stateName(State state);
};

struct DeploymentStatus {
    // Published: a record exists. NeverPublished: no record and no primary runs a sluice library.
    // DataLost: no record, yet a primary runs one: the store, the audit log and the record were
    // flushed or lost in a restart without persistence, while the functions survived.
    enum class History { Published, NeverPublished, DataLost };

    LibraryRecord published;
    QVector<NodeLibrary> nodes;
    qsizetype storedPolicies = 0;
    QVector<DamagedPolicy> damaged;
    bool storedDiffers = false;     // stored policies are not what the published library runs (or wait for a first)
    std::optional<Failure> failure; // reading the record or the policies failed
    bool drift() const;
    History history() const;
    bool persistsNothing() const; // some primary keeps nothing across a restart
};

// What a publish refuses unless the operator allows it: a library that serves no policy (every
// service call to it fails; after a restart without persistence the store is empty), one without
// policies the running library answered calls for in its last minute of counts, and replacing a
// library under this owner's name that it did not publish (a foreign one, or another owner's).
struct PublishAllowance {
    bool empty = false;
    bool dropInUse = false;
    bool takeOver = false;
    PublishAllowance operator|(const PublishAllowance &other) const
    {
        return {empty || other.empty, dropInUse || other.dropInUse, takeOver || other.takeOver};
    }
};

// What a publish would do now, without doing it: the library it would load, and how the stored
// policies it compiles differ from the ones the last publish recorded, field by field.
struct PublishPreview {
    LimiterLibrary library;
    LibraryRecord published;
    QVector<PolicyDelta> changes;   // against the published definitions; against none when never published
    QVector<DamagedPolicy> damaged; // stored policies a publish leaves out
    OverrideChanges listChanges;    // the namespace's list entries it would remove and add
    std::optional<Failure> failure;
    // False when the record predates kept definitions: `changes` then lists every stored policy as added.
    bool changesKnown() const { return published.version == 0 || published.policiesKnown; }
};

struct PublishResult {
    LimiterLibrary library;
    QVector<NodeLibrary> nodes;     // each primary after loading, verified with sluice_version
    QVector<DamagedPolicy> damaged; // stored policies left out because they cannot be read
    // Nothing was published: a conflict, an unreadable store, or Refused (see PublishAllowance).
    std::optional<Failure> failure;
    PublishAllowance needs; // when Refused: what would let it through
    bool ok() const;
};

// Compiles the stored policies into the limiter library, loads it on every primary and verifies it
// there; reports each primary's library against the published record (drift).
class LibraryPublisher {
public:
    // The policy store is read through the client's routing; the library goes to each primary.
    explicit LibraryPublisher(redis::RedisCommands *client, const LibraryOwner &owner = {},
                              PublishAllowance allowance = {});

    // What a publish would load now, and what it would change, without loading it.
    void preview(QObject *context, std::function<void(const PublishPreview &)> done) const;
    // Makes publish() refuse (a Conflict) unless it would load exactly the library an operator
    // reviewed (its digest from preview()): a save in between is reviewed again, never loaded unseen.
    void requireReviewed(const QByteArray &digest) { m_reviewedDigest = digest; }
    // `nodeDone` (optional) hears of each primary as soon as it is loaded and verified.
    void publish(const QString &who, QObject *context, std::function<void(const PublishResult &)> done,
                 std::function<void(const NodeLibrary &)> nodeDone = {}) const;
    void status(QObject *context, std::function<void(const DeploymentStatus &)> done) const;
    // The same for the record and the primaries alone: the stored policies are not read (for a
    // monitoring scrape, whose cost must not grow with them). With a memo, each primary's library code is
    // read at most once per its interval (see RunningCodeMemo).
    void primaryStatus(QObject *context, std::function<void(const DeploymentStatus &)> done,
                       std::shared_ptr<RunningCodeMemo> memo = {}) const;

private:
    redis::RedisCommands *m_client;
    LibraryOwner m_owner;
    PublishAllowance m_allowance;
    QByteArray m_reviewedDigest;
};

} // namespace sluice::model
