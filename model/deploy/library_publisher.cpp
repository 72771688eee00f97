// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/deploy/library_publisher.h"

#include "model/deploy/node_order.h"
#include "model/limiter/limiter_library.h"
#include "model/limiter/lua_source.h"
#include "model/model_log.h"
#include "model/policy/lists_store.h"
#include "model/policy/policy_file.h"
#include "redis/info_reply.h"

#include <QCoreApplication>
#include <QMap>
#include <QSet>
#include <QTimer>

#include <algorithm>
#include <memory>

namespace sluice::model {

using redis::RedisCommands;
using redis::RedisReply;
using redis::RespValue;

namespace {

// This file's strings, under the context a translator sees them in.
struct Text {
    Q_DECLARE_TR_FUNCTIONS(sluice::model::LibraryPublisher)
};

bool isConnectionFailure(const RedisReply &reply)
{
    return !reply.ok() && Failure::fromReply(reply).isConnectionFailure();
}

// The stored policies and the published record, read together.
struct Snapshot {
    QVector<Policy> policies;
    LibraryRecord record;
    std::optional<Failure> failure;
    QVector<DamagedPolicy> damaged;
    QVector<SubjectOverride> lists; // the namespace's allow and deny lists
};

// The published record. Its definitions (the published policy file, parsed) only when asked for.
void readRecord(RedisCommands *admin, const QString &ns, bool withDefinitions, QObject *context,
                std::function<void(const LibraryRecord &, const std::optional<Failure> &)> done)
{
    QByteArrayList command{"HMGET",        AdminKeys(ns).library(), "version", "digest",
                           "published_at", "published_by",          "policies"};
    if (withDefinitions)
        command << "definitions"
                << "lists";
    admin->send(command, context, [done, expected = command.size() - 2](const RedisReply &reply) {
        LibraryRecord record;
        if (!reply.ok() || reply.value.elements.size() != expected) {
            const Failure failure
                = reply.ok() ? Failure::serverError(Text::tr("not a record")) : Failure::fromReply(reply);
            done(record, failure.prefixed(Text::tr("cannot read the published library record")));
            return;
        }
        const QVector<RespValue> &fields = reply.value.elements;
        record.version = fields.at(0).bytes.toLongLong();
        record.digest = fields.at(1).bytes;
        record.publishedAtMs = fields.at(2).bytes.toLongLong();
        record.publishedBy = QString::fromUtf8(fields.at(3).bytes);
        record.policyCount = fields.at(4).bytes.toLongLong();
        if (fields.size() > 5 && !fields.at(5).bytes.isEmpty()) {
            const PolicyFile published = PolicyFile::parse(fields.at(5).bytes);
            record.policies = published.policies;
            record.policiesKnown = published.ok();
        }
        if (fields.size() > 6) {
            QString problem;
            record.lists
                = ListsStore::entriesFromJson(fields.at(6).bytes, &problem).value_or(QVector<SubjectOverride>());
        }
        done(record, std::nullopt);
    });
}

void readSnapshot(RedisCommands *admin, const QString &ns, QObject *context, std::function<void(const Snapshot &)> done)
{
    PolicyStore(admin, ns).list(context, [admin, ns, context, done](const PolicyStore::ListResult &listed) {
        if (listed.failure) {
            done({{}, {}, listed.failure, {}, {}});
            return;
        }
        ListsStore(admin, ns).read(context, [admin, ns, context, done, listed](const ListsStore::ReadResult &lists) {
            if (lists.failure) {
                done({{}, {}, lists.failure, {}, {}});
                return;
            }
            readRecord(admin, ns, true, context,
                       [listed, lists, done](const LibraryRecord &record, const std::optional<Failure> &failure) {
                done({listed.policies, record, failure, listed.damaged, lists.lists.entries});
            });
        });
    });
}

// The library a publish would load now: the version moves on only when what it runs changes.
LimiterLibrary nextLibrary(const Snapshot &snapshot, const LibraryOwner &owner)
{
    const bool same
        = LimiterLibrary::build(snapshot.policies, snapshot.lists, owner, 0).digest == snapshot.record.digest;
    return LimiterLibrary::build(snapshot.policies, snapshot.lists, owner,
                                 same ? snapshot.record.version : snapshot.record.version + 1);
}

NodeLibrary::Persistence persistenceOf(const RedisReply &save, const RedisReply &appendOnly)
{
    if (!save.ok() || !appendOnly.ok() || save.value.elements.size() != 2 || appendOnly.value.elements.size() != 2)
        return NodeLibrary::Persistence::Unknown; // CONFIG may be forbidden to this user
    const bool snapshots = !save.value.elements.at(1).bytes.trimmed().isEmpty();
    const bool appendLog = appendOnly.value.elements.at(1).bytes == "yes";
    return snapshots || appendLog ? NodeLibrary::Persistence::Persisted : NodeLibrary::Persistence::None;
}

// The libraries in a FUNCTION LIST reply, by name, and which of them have a `<name>_version` function
// to ask whom they serve.
QVector<LoadedLibrary> listedLibraries(const RespValue &functionList, QVector<bool> *versioned)
{
    QMap<QByteArray, bool> byName;
    for (const RespValue &library : functionList.elements) {
        const RespValue *name = library.field("library_name");
        if (!name)
            continue;
        bool hasVersion = false;
        if (const RespValue *functions = library.field("functions"))
            for (const RespValue &function : functions->elements)
                if (const RespValue *functionName = function.field("name"))
                    hasVersion = hasVersion || functionName->bytes == name->bytes + "_version";
        byName.insert(name->bytes, hasVersion);
    }
    QVector<LoadedLibrary> libraries;
    for (auto it = byName.cbegin(); it != byName.cend(); ++it) {
        libraries.append({it.key(), std::nullopt, 0, {}});
        versioned->append(it.value());
    }
    return libraries;
}

// Whom a library serves, its version and digest, from its version reply (owner: the fifth and sixth
// elements; a library from before they were there serves the owner its name spells, in database 0).
void readVersionReply(LoadedLibrary *library, const RedisReply &version)
{
    const QVector<RespValue> &fields = version.value.elements;
    if (!version.ok() || fields.size() < 4 || !fields.at(0).isInteger())
        return;
    LibraryOwner owner = LibraryOwner::fromLibraryName(library->name).value_or(LibraryOwner{});
    if (fields.size() > 4)
        owner = {QString::fromUtf8(fields.at(4).bytes), fields.size() > 5 ? int(fields.at(5).integer) : 0};
    library->owner = owner;
    library->version = fields.at(0).integer;
    library->digest = fields.at(1).bytes;
}

// The digest the code of library `name` in a FUNCTION LIST ... WITHCODE reply hashes to; empty when the
// reply holds no such library or its code is not a Sluice library's.
QByteArray runningDigest(const RedisReply &reply, const QByteArray &name)
{
    if (!reply.ok())
        return {};
    for (const RespValue &library : reply.value.elements) {
        const RespValue *listed = library.field("library_name");
        const RespValue *code = library.field("library_code");
        if (listed && code && listed->bytes == name)
            return LimiterLibrary::digestOfSource(code->bytes).value_or(QByteArray());
    }
    return {};
}

// The verdict on a primary whose library is this owner's, by the digest its code hashes to (`runs`, empty
// when the code could not be read) against the one it claims and the one that should run.
void judgeOwnLibrary(NodeLibrary *result, const LoadedLibrary &ours, const QByteArray &runs,
                     const QByteArray &expectedDigest)
{
    result->version = ours.version;
    if (runs != ours.digest) {
        result->state = NodeLibrary::State::Foreign;
        result->detail = runs.isEmpty()
            ? Text::tr("the code of the library named %1 could not be read to check it")
                  .arg(QString::fromLatin1(ours.name))
            : Text::tr("the library named %1 was changed after it was published: its code hashes to %2, "
                       "not the %3 it claims")
                  .arg(QString::fromLatin1(ours.name), QString::fromLatin1(runs), QString::fromLatin1(ours.digest));
        return;
    }
    result->digest = ours.digest;
    const bool current = !expectedDigest.isEmpty() && result->digest == expectedDigest;
    result->state = current ? NodeLibrary::State::Current : NodeLibrary::State::Stale;
    if (!current)
        result->detail
            = Text::tr("runs version %1 (digest %2)").arg(result->version).arg(QString::fromLatin1(result->digest));
}

void reportNode(const LibraryOwner &owner, const NodeLibrary &result,
                const std::function<void(const NodeLibrary &)> &done)
{
    qCDebug(lcPublish, "%s: %s %s%s", qUtf8Printable(result.node), owner.libraryName().constData(),
            qUtf8Printable(NodeLibrary::stateName(result.state)),
            result.detail.isEmpty() ? "" : qUtf8Printable(QStringLiteral(" (%1)").arg(result.detail)));
    done(result);
}

// What one primary runs under `owner`'s library name, against the digest that should run there, and
// every other library beside it.
// With a memo, the code is read only when the memo's reading of this primary is older than its interval or
// the library claims another digest than it did then.
void inspectNode(RedisCommands *client, const QString &node, const LibraryOwner &owner,
                 const QByteArray &expectedDigest, QObject *context, std::function<void(const NodeLibrary &)> done,
                 std::shared_ptr<RunningCodeMemo> memo = {})
{
    client->sendToNode(node, {"FUNCTION", "LIST"}, context, [=](const RedisReply &list) {
        NodeLibrary result;
        result.node = node;
        if (!list.ok()) {
            result.state = NodeLibrary::State::Unreachable;
            result.detail = isConnectionFailure(list) ? list.errorText()
                                                      : Text::tr("cannot list functions: %1").arg(list.errorText());
            done(result);
            return;
        }
        QVector<bool> versioned;
        result.libraries = listedLibraries(list.value, &versioned);
        struct Replies {
            QVector<RedisReply> versions;
            RedisReply code; // this owner's library with its code
            RedisReply save;
            RedisReply info; // memory and stats: what the server may evict, and what it has
        };
        auto replies = std::make_shared<Replies>();
        replies->versions.resize(result.libraries.size());
        for (qsizetype i = 0; i < result.libraries.size(); ++i)
            if (versioned.at(i))
                client->sendToNode(node, {"FCALL_RO", result.libraries.at(i).name + "_version", "0"}, context,
                                   [replies, i](const RedisReply &r) { replies->versions[i] = r; });
        // The code Redis runs, to hash: a library's word on its own digest is not taken (one edited by hand
        // keeps the digest it was published with). Only this owner's library, the one that must match.
        const bool codeRead = !(memo && memo->isFresh(node));
        if (codeRead
            && std::any_of(result.libraries.cbegin(), result.libraries.cend(),
                           [&](const LoadedLibrary &library) { return library.name == owner.libraryName(); }))
            client->sendToNode(node, {"FUNCTION", "LIST", "LIBRARYNAME", owner.libraryName(), "WITHCODE"}, context,
                               [replies](const RedisReply &r) { replies->code = r; });
        client->sendToNode(node, {"INFO", "memory", "stats"}, context,
                           [replies](const RedisReply &r) { replies->info = r; });
        client->sendToNode(node, {"CONFIG", "GET", "save"}, context,
                           [replies](const RedisReply &r) { replies->save = r; });
        // Replies from one node arrive in order, so the last one completes the picture.
        client->sendToNode(node, {"CONFIG", "GET", "appendonly"}, context, [=](const RedisReply &r) mutable {
            result.persistence = persistenceOf(replies->save, r);
            if (replies->info.ok()) {
                const QHash<QString, QString> info = redis::parseInfo(replies->info.value.bytes);
                result.maxmemoryPolicy = info.value(QStringLiteral("maxmemory_policy"));
                bool counted = false;
                const qint64 evicted = info.value(QStringLiteral("evicted_keys")).toLongLong(&counted);
                result.evictedKeys = counted ? evicted : -1;
            }
            const LoadedLibrary *ours = nullptr;
            for (qsizetype i = 0; i < result.libraries.size(); ++i) {
                readVersionReply(&result.libraries[i], replies->versions.at(i));
                if (result.libraries.at(i).name == owner.libraryName())
                    ours = &result.libraries.at(i);
            }
            const LoadedLibrary *otherCase = nullptr;
            for (const LoadedLibrary &library : result.libraries)
                if (library.name != owner.libraryName()
                    && library.name.compare(owner.libraryName(), Qt::CaseInsensitive) == 0)
                    otherCase = &library;
            if (!ours && otherCase) {
                result.state = NodeLibrary::State::Missing;
                result.nameTakenInOtherCase = true;
                const QString served = otherCase->owner ? otherCase->owner->describe() : Text::tr("another program");
                result.detail
                    = Text::tr("no library named %1: the library %2 (for %3) holds its function names, as Redis "
                               "ignores case in them; use a namespace that differs from that one by more than case")
                          .arg(QString::fromLatin1(owner.libraryName()), QString::fromLatin1(otherCase->name), served);
            } else if (!ours) {
                result.state = NodeLibrary::State::Missing;
                result.detail = Text::tr("no library named %1").arg(QString::fromLatin1(owner.libraryName()));
            } else if (!ours->owner) {
                result.state = NodeLibrary::State::Foreign;
                result.detail
                    = Text::tr("the library named %1 is not a Sluice library").arg(QString::fromLatin1(ours->name));
            } else if (*ours->owner != owner) {
                result.state = NodeLibrary::State::Foreign;
                result.version = ours->version;
                result.detail = Text::tr("the library named %1 serves %2 (version %3)")
                                    .arg(QString::fromLatin1(ours->name), ours->owner->describe())
                                    .arg(ours->version);
            } else {
                const LoadedLibrary mine = *ours;
                // `read`: `runs` comes from the code just read, not from the memo.
                const auto judge = [=](NodeLibrary judged, const QByteArray &runs, bool read) {
                    if (memo && read && runs == mine.digest) // only a library found as published is trusted
                        memo->remember(node, mine.digest);
                    judgeOwnLibrary(&judged, mine, runs, expectedDigest);
                    reportNode(owner, judged, done);
                };
                if (codeRead) {
                    judge(result, runningDigest(replies->code, owner.libraryName()), true);
                } else if (memo->vouchesFor(node, mine.digest)) {
                    judge(result, mine.digest, false);
                } else { // it claims another digest than when last read: read its code now
                    client->sendToNode(
                        node, {"FUNCTION", "LIST", "LIBRARYNAME", owner.libraryName(), "WITHCODE"}, context,
                        [=](const RedisReply &code) { judge(result, runningDigest(code, owner.libraryName()), true); });
                }
                return;
            }
            reportNode(owner, result, done);
        });
    });
}

// Runs `step` on every node at once and hands over the results, in address order, when all are in.
void forEachNode(const QStringList &unordered,
                 std::function<void(const QString &, std::function<void(const NodeLibrary &)>)> step,
                 std::function<void(const QVector<NodeLibrary> &)> done)
{
    const QStringList nodes = inAddressOrder(unordered);
    if (nodes.isEmpty()) {
        done({});
        return;
    }
    auto results = std::make_shared<QVector<NodeLibrary>>(nodes.size());
    auto pending = std::make_shared<qsizetype>(nodes.size());
    for (qsizetype i = 0; i < nodes.size(); ++i) {
        step(nodes.at(i), [results, pending, i, done](const NodeLibrary &node) {
            (*results)[i] = node;
            if (--*pending == 0)
                done(*results);
        });
    }
}

void inspectPrimaries(RedisCommands *client, const LibraryOwner &owner, const QByteArray &expectedDigest,
                      QObject *context, std::function<void(const QVector<NodeLibrary> &)> done,
                      std::shared_ptr<RunningCodeMemo> memo = {})
{
    auto inspect = [=](const QString &node, std::function<void(const NodeLibrary &)> nodeDone) {
        inspectNode(client, node, owner, expectedDigest, context, nodeDone, memo);
    };
    forEachNode(client->primaries(), inspect, done);
}

// The policies that this owner's library answered calls for lately (<library>_stats: the totals seen to move
// by a reading in the last minute, this one included) on the primaries `running` it, and that `kept` lacks.
void findDroppedInUse(RedisCommands *client, const LibraryOwner &owner, const QVector<Policy> &kept,
                      const QSet<QString> &running, QObject *context, std::function<void(const QStringList &)> done)
{
    QSet<QByteArray> keptNames;
    for (const Policy &policy : kept)
        keptNames.insert(policy.name.toUtf8());
    client->sendToPrimaries({"FCALL_RO", owner.function("stats"), "0"}, context,
                            [=](const QVector<RedisCommands::NodeReply> &replies) {
        QStringList dropped;
        for (const RedisCommands::NodeReply &node : replies) {
            if (!running.contains(node.node) || !node.reply.ok())
                continue;
            // {now, epoch, then per policy: name, allowed, rejected, {moved_ms} or {}}
            const QVector<RespValue> &fields = node.reply.value.elements;
            for (qsizetype i = 2; i + 3 < fields.size(); i += 4) {
                const QString name = QString::fromUtf8(fields.at(i).bytes);
                if (!keptNames.contains(fields.at(i).bytes) && !fields.at(i + 3).elements.isEmpty()
                    && !dropped.contains(name))
                    dropped << name;
            }
        }
        dropped.sort();
        done(dropped);
    });
}

// Records the publish (failing on a publish in between), then loads the library on every primary
// and verifies it there; `result` carries what the publish already knows (the library built from the
// snapshot, the damaged policies).
void recordAndLoad(RedisCommands *client, const LibraryOwner &owner, const QString &who, const Snapshot &snapshot,
                   PublishResult result, QObject *context, std::function<void(const PublishResult &)> done,
                   std::function<void(const NodeLibrary &)> nodeDone)
{
    const AdminKeys keys(owner.ns);
    const QByteArrayList record{"EVAL",
                                luaSource(QStringLiteral("library_record.lua")),
                                "2",
                                keys.library(),
                                keys.audit(),
                                QByteArray::number(snapshot.record.version),
                                QByteArray::number(result.library.version),
                                result.library.digest,
                                result.library.source,
                                who.toUtf8(),
                                QByteArray::number(snapshot.policies.size()),
                                writePolicyFile(snapshot.policies),
                                ListsStore::entriesJson(snapshot.lists)};
    qCDebug(lcPublish, "recording version %lld of %s (digest %s, %lld policies)",
            static_cast<long long>(result.library.version), owner.libraryName().constData(),
            result.library.digest.constData(), static_cast<long long>(snapshot.policies.size()));
    client->send(record, context, [=](const RedisReply &recorded) mutable {
        if (!recorded.ok()) {
            const Failure failure = Failure::fromWriteReply(recorded);
            result.failure = failure.kind == Failure::Kind::Conflict
                ? Failure{failure.kind,
                          Text::tr("someone else published version %1 in between; nothing was loaded")
                              .arg(failure.message)}
                : failure.prefixed(Text::tr("cannot record the publish"));
            done(result);
            return;
        }
        const LimiterLibrary library = result.library;
        auto loadAndVerify = [client, owner, library, context,
                              nodeDone](const QString &node, std::function<void(const NodeLibrary &)> verified) {
            auto reported = [nodeDone, verified](const NodeLibrary &state) {
                if (nodeDone)
                    nodeDone(state);
                verified(state);
            };
            qCDebug(lcPublish, "%s: FUNCTION LOAD REPLACE %s version %lld", qUtf8Printable(node),
                    owner.libraryName().constData(), static_cast<long long>(library.version));
            client->sendToNode(node, {"FUNCTION", "LOAD", "REPLACE", library.source}, context,
                               [client, node, owner, library, context, reported](const RedisReply &loaded) {
                if (!loaded.ok()) {
                    // The node keeps whatever it ran before; report that, with the reason.
                    inspectNode(client, node, owner, library.digest, context, [loaded, reported](NodeLibrary state) {
                        state.detail = Text::tr("load failed: %1").arg(loaded.errorText());
                        if (state.state == NodeLibrary::State::Current)
                            state.state = NodeLibrary::State::Stale;
                        reported(state);
                    });
                    return;
                }
                inspectNode(client, node, owner, library.digest, context, reported);
            });
        };
        forEachNode(client->primaries(), loadAndVerify, [result, done](const QVector<NodeLibrary> &nodes) mutable {
            result.nodes = nodes;
            done(result);
        });
    });
}

// The refusals that need each primary's library: replacing one this owner did not publish, then
// dropping policies the running one answered calls for (see PublishAllowance); else records and loads.
void loadUnlessRefused(RedisCommands *client, const LibraryOwner &owner, const PublishAllowance &allowance,
                       const QString &who, const Snapshot &snapshot, const QVector<NodeLibrary> &nodes,
                       PublishResult result, QObject *context, std::function<void(const PublishResult &)> done,
                       std::function<void(const NodeLibrary &)> nodeDone)
{
    QStringList others;
    QSet<QString> running;
    for (const NodeLibrary &node : nodes) {
        if (node.nameTakenInOtherCase) {
            result.failure
                = Failure{Failure::Kind::Refused,
                          Text::tr("%1 cannot be published on %2: %3").arg(owner.describe(), node.node, node.detail)};
            qCDebug(lcPublish, "refused: %s", qUtf8Printable(result.failure->message));
            done(result);
            return;
        }
        if (node.state == NodeLibrary::State::Foreign)
            others << Text::tr("%1: %2").arg(node.node, node.detail);
        if (node.state == NodeLibrary::State::Current || node.state == NodeLibrary::State::Stale)
            running.insert(node.node);
    }
    if (!others.isEmpty() && !allowance.takeOver) {
        result.failure = Failure{Failure::Kind::Refused,
                                 Text::tr("publishing would replace a library that %1 did not publish, and break its "
                                          "callers (%2)")
                                     .arg(owner.describe(), others.join(QStringLiteral("; ")))};
        result.needs.takeOver = true;
        qCDebug(lcPublish, "refused: %s", qUtf8Printable(result.failure->message));
        done(result);
        return;
    }
    auto load = [=] { recordAndLoad(client, owner, who, snapshot, result, context, done, nodeDone); };
    if (allowance.dropInUse) {
        load();
        return;
    }
    findDroppedInUse(client, owner, snapshot.policies, running, context, [=](const QStringList &dropped) mutable {
        if (dropped.isEmpty()) {
            load();
            return;
        }
        result.failure
            = Failure{Failure::Kind::Refused,
                      Text::tr("the new library would drop %1, which answered calls lately (seen by a reading of "
                               "its counts in the last minute): their callers would get errors")
                          .arg(dropped.join(QStringLiteral(", ")))};
        result.needs.dropInUse = true;
        qCDebug(lcPublish, "refused: %s", qUtf8Printable(result.failure->message));
        done(result);
    });
}

} // namespace

QString NodeLibrary::stateName(State state)
{
    switch (state) {
    case State::Current: return Text::tr("current");
    case State::Stale: return Text::tr("stale");
    case State::Missing: return Text::tr("missing");
    case State::Foreign: return Text::tr("foreign");
    case State::Unreachable: return Text::tr("unreachable");
    }
    return {};
}

QString LoadedLibrary::describe() const
{
    if (!owner)
        return Text::tr("%1: not a Sluice library").arg(QString::fromLatin1(name));
    return Text::tr("%1: %2, version %3").arg(QString::fromLatin1(name), owner->describe()).arg(version);
}

bool DeploymentStatus::drift() const
{
    if (history() == History::NeverPublished)
        return false; // nothing was published to drift from
    for (const NodeLibrary &node : nodes)
        if (node.state != NodeLibrary::State::Current)
            return true;
    return false;
}

DeploymentStatus::History DeploymentStatus::history() const
{
    if (published.version > 0)
        return History::Published;
    for (const NodeLibrary &node : nodes)
        if (node.state == NodeLibrary::State::Stale && node.version > 0)
            return History::DataLost;
    return History::NeverPublished;
}

bool DeploymentStatus::persistsNothing() const
{
    return std::any_of(nodes.begin(), nodes.end(),
                       [](const NodeLibrary &node) { return node.persistence == NodeLibrary::Persistence::None; });
}

bool PublishResult::ok() const
{
    if (failure)
        return false;
    for (const NodeLibrary &node : nodes)
        if (node.state != NodeLibrary::State::Current)
            return false;
    return true;
}

LibraryPublisher::LibraryPublisher(RedisCommands *client, const LibraryOwner &owner, PublishAllowance allowance)
    : m_client(client)
    , m_owner(owner)
    , m_allowance(allowance)
{
}

void LibraryPublisher::preview(QObject *context, std::function<void(const PublishPreview &)> done) const
{
    const LibraryOwner owner = m_owner;
    readSnapshot(m_client, owner.ns, context, [owner, done](const Snapshot &snapshot) {
        PublishPreview preview;
        preview.published = snapshot.record;
        preview.damaged = snapshot.damaged;
        preview.failure = snapshot.failure;
        if (!snapshot.failure) {
            preview.library = nextLibrary(snapshot, owner);
            preview.changes = policyDeltas(snapshot.record.policies, snapshot.policies);
            preview.listChanges = overrideChanges(snapshot.record.lists, snapshot.lists);
        }
        done(preview);
    });
}

void LibraryPublisher::publish(const QString &who, QObject *context, std::function<void(const PublishResult &)> done,
                               std::function<void(const NodeLibrary &)> nodeDone) const
{
    RedisCommands *client = m_client;
    const LibraryOwner owner = m_owner;
    const PublishAllowance allowance = m_allowance;
    const QByteArray reviewed = m_reviewedDigest;
    readSnapshot(client, owner.ns, context, [=](const Snapshot &snapshot) {
        PublishResult result;
        result.damaged = snapshot.damaged;
        if (snapshot.failure) {
            result.failure = snapshot.failure;
            done(result);
            return;
        }
        // Built once: what the review, the bounds and the load all judge.
        result.library = nextLibrary(snapshot, owner);
        if (!reviewed.isEmpty() && result.library.digest != reviewed) {
            result.failure = Failure{Failure::Kind::Conflict,
                                     Text::tr("the stored policies changed after you reviewed them; review the changes "
                                              "again before publishing")};
            done(result);
            return;
        }
        if (snapshot.policies.size() > policy_limits::maxPoliciesPerNamespace) {
            result.failure = Failure{Failure::Kind::Refused,
                                     Text::tr("namespace \"%1\" stores %2 policies; a library serves at most %3")
                                         .arg(owner.ns)
                                         .arg(snapshot.policies.size())
                                         .arg(policy_limits::maxPoliciesPerNamespace)};
            done(result);
            return;
        }
        if (const qsizetype bytes = result.library.source.size(); bytes > policy_limits::maxLibraryBytes) {
            result.failure = Failure{Failure::Kind::Refused, LimiterLibrary::tooLarge(bytes)};
            done(result);
            return;
        }
        if (snapshot.policies.isEmpty() && !allowance.empty) {
            result.failure
                = Failure{Failure::Kind::Refused,
                          Text::tr("namespace \"%1\" stores no policies, so the library would serve none and "
                                   "every service call to it would fail; if the server restarted without "
                                   "persistence, the policies were lost with its data: apply your last export, "
                                   "then publish")
                              .arg(owner.ns)};
            result.needs.empty = true;
            qCDebug(lcPublish, "refused: %s", qUtf8Printable(result.failure->message));
            done(result);
            return;
        }
        inspectPrimaries(client, owner, snapshot.record.digest, context, [=](const QVector<NodeLibrary> &nodes) {
            loadUnlessRefused(client, owner, allowance, who, snapshot, nodes, result, context, done, nodeDone);
        });
    });
}

void LibraryPublisher::status(QObject *context, std::function<void(const DeploymentStatus &)> done) const
{
    RedisCommands *client = m_client;
    const LibraryOwner owner = m_owner;
    readSnapshot(client, owner.ns, context, [=](const Snapshot &snapshot) {
        DeploymentStatus status;
        status.published = snapshot.record;
        status.failure = snapshot.failure;
        status.storedPolicies = snapshot.policies.size();
        status.damaged = snapshot.damaged;
        if (!snapshot.failure)
            status.storedDiffers = snapshot.record.version > 0
                ? LimiterLibrary::build(snapshot.policies, snapshot.lists, owner, 0).digest != snapshot.record.digest
                : !snapshot.policies.isEmpty();
        inspectPrimaries(client, owner, snapshot.record.digest, context,
                         [status, done](const QVector<NodeLibrary> &nodes) mutable {
            status.nodes = nodes;
            done(status);
        });
    });
}

void LibraryPublisher::primaryStatus(QObject *context, std::function<void(const DeploymentStatus &)> done,
                                     std::shared_ptr<RunningCodeMemo> memo) const
{
    RedisCommands *client = m_client;
    const LibraryOwner owner = m_owner;
    readRecord(client, owner.ns, false, context,
               [=](const LibraryRecord &record, const std::optional<Failure> &failure) {
        inspectPrimaries(
            client, owner, record.digest, context,
            [=](const QVector<NodeLibrary> &nodes) {
            DeploymentStatus status;
            status.published = record;
            status.failure = failure;
            status.nodes = nodes;
            done(status);
            },
            memo);
    });
}

} // namespace sluice::model
