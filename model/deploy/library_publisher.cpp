#include "model/deploy/library_publisher.h"

#include "model/limiter/lua_source.h"
#include "model/policy/policy_file.h"

#include <QCoreApplication>
#include <QSet>

#include <algorithm>
#include <memory>

namespace sluice::model {

using redis::RedisCommands;
using redis::RedisReply;
using redis::RespValue;

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("sluice::model::LibraryPublisher", text);
}

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
};

void readSnapshot(RedisCommands *admin, const QString &ns, QObject *context, std::function<void(const Snapshot &)> done)
{
    PolicyStore(admin, ns).list(context, [admin, ns, context, done](const PolicyStore::ListResult &listed) {
        if (listed.failure) {
            done({{}, {}, listed.failure, {}});
            return;
        }
        const QByteArrayList command{"HMGET", AdminKeys(ns).library(), "version", "digest", "published_at",
                                     "published_by", "policies", "definitions"};
        admin->send(command, context, [listed, done](const RedisReply &reply) {
            Snapshot snapshot{listed.policies, {}, {}, listed.damaged};
            if (!reply.ok() || reply.value.elements.size() != 6) {
                const Failure failure
                    = reply.ok() ? Failure::serverError(tr("not a record")) : Failure::fromReply(reply);
                snapshot.failure = failure.prefixed(tr("cannot read the published library record"));
            } else {
                const QVector<RespValue> &fields = reply.value.elements;
                snapshot.record.version = fields.at(0).bytes.toLongLong();
                snapshot.record.digest = fields.at(1).bytes;
                snapshot.record.publishedAtMs = fields.at(2).bytes.toLongLong();
                snapshot.record.publishedBy = QString::fromUtf8(fields.at(3).bytes);
                snapshot.record.policyCount = fields.at(4).bytes.toLongLong();
                if (!fields.at(5).bytes.isEmpty()) {
                    const PolicyFile published = PolicyFile::parse(fields.at(5).bytes);
                    snapshot.record.policies = published.policies;
                    snapshot.record.policiesKnown = published.ok();
                }
            }
            done(snapshot);
        });
    });
}

// The library a publish would load now: the version moves on only when what it runs changes.
LimiterLibrary nextLibrary(const Snapshot &snapshot, const QString &ns)
{
    const bool same = LimiterLibrary::build(snapshot.policies, ns, 0).digest == snapshot.record.digest;
    return LimiterLibrary::build(snapshot.policies, ns, same ? snapshot.record.version : snapshot.record.version + 1);
}

bool hasSluiceLibrary(const RespValue &functionList)
{
    for (const RespValue &library : functionList.elements)
        if (const RespValue *name = library.field("library_name"); name && name->bytes == "sluice")
            return true;
    return false;
}

NodeLibrary::Persistence persistenceOf(const RedisReply &save, const RedisReply &appendOnly)
{
    if (!save.ok() || !appendOnly.ok() || save.value.elements.size() != 2 || appendOnly.value.elements.size() != 2)
        return NodeLibrary::Persistence::Unknown; // CONFIG may be forbidden to this user
    const bool snapshots = !save.value.elements.at(1).bytes.trimmed().isEmpty();
    const bool appendLog = appendOnly.value.elements.at(1).bytes == "yes";
    return snapshots || appendLog ? NodeLibrary::Persistence::Persisted : NodeLibrary::Persistence::None;
}

// The namespace a primary's running library serves (sluice_version's fifth element; a library from
// before it was there is taken as this one's), or nothing when it runs none that answers.
std::optional<QString> servedNamespace(const RedisReply &version, const QString &ns)
{
    if (!version.ok() || version.value.elements.size() < 4)
        return std::nullopt;
    return version.value.elements.size() > 4 ? QString::fromUtf8(version.value.elements.at(4).bytes) : ns;
}

// Which library one primary runs, against the digest that should run there.
void inspectNode(RedisCommands *client, const QString &node, const QString &ns, const QByteArray &expectedDigest,
                 QObject *context, std::function<void(const NodeLibrary &)> done)
{
    struct Replies {
        RedisReply list, version, save, appendOnly;
    };
    auto replies = std::make_shared<Replies>();
    client->sendToNode(node, {"FUNCTION", "LIST", "LIBRARYNAME", "sluice"}, context,
                       [replies](const RedisReply &r) { replies->list = r; });
    client->sendToNode(node, {"FCALL_RO", "sluice_version", "0"}, context,
                       [replies](const RedisReply &r) { replies->version = r; });
    client->sendToNode(node, {"CONFIG", "GET", "save"}, context, [replies](const RedisReply &r) { replies->save = r; });
    // Replies from one node arrive in order, so the last one completes the picture.
    client->sendToNode(node, {"CONFIG", "GET", "appendonly"}, context,
                       [node, ns, replies, expectedDigest, done](const RedisReply &r) {
        replies->appendOnly = r;
        NodeLibrary result;
        result.node = node;
        result.persistence = persistenceOf(replies->save, replies->appendOnly);
        const RedisReply &list = replies->list;
        const RedisReply &version = replies->version;
        if (isConnectionFailure(list) || isConnectionFailure(version)) {
            result.state = NodeLibrary::State::Unreachable;
            result.detail = isConnectionFailure(list) ? list.errorText() : version.errorText();
        } else if (!list.ok()) {
            result.state = NodeLibrary::State::Unreachable;
            result.detail = tr("cannot list functions: %1").arg(list.errorText());
        } else if (!hasSluiceLibrary(list.value)) {
            result.state = NodeLibrary::State::Missing;
            result.detail = tr("no library named sluice");
        } else if (!version.ok() || version.value.elements.size() < 4 || !version.value.elements.at(0).isInteger()) {
            result.state = NodeLibrary::State::Foreign;
            result.detail = tr("a library named sluice that does not answer sluice_version: %1")
                                .arg(version.ok() ? tr("unexpected reply") : version.errorText());
        } else {
            result.version = version.value.elements.at(0).integer;
            result.digest = version.value.elements.at(1).bytes;
            const QString served = servedNamespace(version, ns).value_or(ns);
            const bool current = !expectedDigest.isEmpty() && result.digest == expectedDigest;
            if (served != ns) {
                result.state = NodeLibrary::State::Foreign;
                result.detail = tr("runs the library of namespace \"%1\" (version %2)").arg(served).arg(result.version);
            } else {
                result.state = current ? NodeLibrary::State::Current : NodeLibrary::State::Stale;
                if (!current)
                    result.detail
                        = tr("runs version %1 (digest %2)").arg(result.version).arg(QString::fromLatin1(result.digest));
            }
        }
        done(result);
    });
}

// Runs `step` on every node at once and hands over the results, in node order, when all are in.
void forEachNode(const QStringList &nodes,
                 std::function<void(const QString &, std::function<void(const NodeLibrary &)>)> step,
                 std::function<void(const QVector<NodeLibrary> &)> done)
{
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

// The policies that the library of namespace `ns` running on some primary answered calls for in its
// last minute of per-second counts (sluice_stats), and that `kept` lacks. A primary that runs no
// such library drops nothing here (replacing another namespace's library is another question).
void findDroppedInUse(RedisCommands *client, const QString &ns, const QVector<Policy> &kept, QObject *context,
                      std::function<void(const QStringList &)> done)
{
    QSet<QByteArray> keptNames;
    for (const Policy &policy : kept)
        keptNames.insert(policy.name.toUtf8());
    client->sendToPrimaries({"FCALL_RO", "sluice_version", "0"}, context,
                            [client, ns, keptNames, context, done](const QVector<RedisCommands::NodeReply> &versions) {
        QSet<QString> ours;
        for (const RedisCommands::NodeReply &node : versions)
            if (servedNamespace(node.reply, ns) == ns)
                ours.insert(node.node);
        client->sendToPrimaries({"FCALL_RO", "sluice_stats", "0"}, context,
                                [ours, keptNames, done](const QVector<RedisCommands::NodeReply> &replies) {
            QStringList dropped;
            for (const RedisCommands::NodeReply &node : replies) {
                if (!ours.contains(node.node) || !node.reply.ok())
                    continue;
                // {now, epoch, then per policy: name, allowed, rejected, {second, allowed, rejected, ...}}
                const QVector<RespValue> &fields = node.reply.value.elements;
                for (qsizetype i = 2; i + 3 < fields.size(); i += 4) {
                    const QString name = QString::fromUtf8(fields.at(i).bytes);
                    const bool recent = !fields.at(i + 3).elements.isEmpty();
                    if (recent && !keptNames.contains(fields.at(i).bytes) && !dropped.contains(name))
                        dropped << name;
                }
            }
            dropped.sort();
            done(dropped);
        });
    });
}

// Records the publish (failing on a publish in between), then loads the library on every primary
// and verifies it there; `result` carries what the publish already knows (the damaged policies).
void recordAndLoad(RedisCommands *client, const QString &ns, const QString &who, const Snapshot &snapshot,
                   PublishResult result, QObject *context, std::function<void(const PublishResult &)> done,
                   std::function<void(const NodeLibrary &)> nodeDone)
{
    result.library = nextLibrary(snapshot, ns);
    const AdminKeys keys(ns);
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
                                writePolicyFile(snapshot.policies)};
    client->send(record, context, [=](const RedisReply &recorded) mutable {
        if (!recorded.ok()) {
            const Failure failure = Failure::fromWriteReply(recorded);
            result.failure = failure.kind == Failure::Kind::Conflict
                ? Failure{failure.kind,
                          tr("someone else published version %1 in between; nothing was loaded").arg(failure.message)}
                : failure.prefixed(tr("cannot record the publish"));
            done(result);
            return;
        }
        const LimiterLibrary library = result.library;
        auto loadAndVerify = [client, ns, library, context,
                              nodeDone](const QString &node, std::function<void(const NodeLibrary &)> verified) {
            auto reported = [nodeDone, verified](const NodeLibrary &state) {
                if (nodeDone)
                    nodeDone(state);
                verified(state);
            };
            client->sendToNode(node, {"FUNCTION", "LOAD", "REPLACE", library.source}, context,
                               [client, node, ns, library, context, reported](const RedisReply &loaded) {
                if (!loaded.ok()) {
                    // The node keeps whatever it ran before; report that, with the reason.
                    inspectNode(client, node, ns, library.digest, context, [loaded, reported](NodeLibrary state) {
                        state.detail = tr("load failed: %1").arg(loaded.errorText());
                        if (state.state == NodeLibrary::State::Current)
                            state.state = NodeLibrary::State::Stale;
                        reported(state);
                    });
                    return;
                }
                inspectNode(client, node, ns, library.digest, context, reported);
            });
        };
        forEachNode(client->primaries(), loadAndVerify, [result, done](const QVector<NodeLibrary> &nodes) mutable {
            result.nodes = nodes;
            done(result);
        });
    });
}

} // namespace

QString NodeLibrary::stateName(State state)
{
    switch (state) {
    case State::Current: return tr("current");
    case State::Stale: return tr("stale");
    case State::Missing: return tr("missing");
    case State::Foreign: return tr("foreign");
    case State::Unreachable: return tr("unreachable");
    }
    return {};
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

LibraryPublisher::LibraryPublisher(RedisCommands *client, const QString &ns, PublishAllowance allowance)
    : m_client(client)
    , m_ns(ns)
    , m_allowance(allowance)
{
}

void LibraryPublisher::preview(QObject *context,
                               std::function<void(const LimiterLibrary &, const std::optional<Failure> &)> done) const
{
    const QString ns = m_ns;
    readSnapshot(m_client, ns, context, [ns, done](const Snapshot &snapshot) {
        if (snapshot.failure) {
            done({}, snapshot.failure);
            return;
        }
        done(nextLibrary(snapshot, ns), {});
    });
}

void LibraryPublisher::publish(const QString &who, QObject *context, std::function<void(const PublishResult &)> done,
                               std::function<void(const NodeLibrary &)> nodeDone) const
{
    RedisCommands *client = m_client;
    const QString ns = m_ns;
    const PublishAllowance allowance = m_allowance;
    readSnapshot(client, ns, context, [=](const Snapshot &snapshot) {
        PublishResult result;
        result.damaged = snapshot.damaged;
        if (snapshot.failure) {
            result.failure = snapshot.failure;
            done(result);
            return;
        }
        if (snapshot.policies.isEmpty() && !allowance.empty) {
            result.failure = Failure{Failure::Kind::Refused,
                                     tr("namespace \"%1\" stores no policies, so the library would serve none and "
                                        "every service call to it would fail; if the server restarted without "
                                        "persistence, the policies were lost with its data: apply your last export, "
                                        "then publish")
                                         .arg(ns)};
            done(result);
            return;
        }
        auto load = [=] { recordAndLoad(client, ns, who, snapshot, result, context, done, nodeDone); };
        if (allowance.dropInUse) {
            load();
            return;
        }
        findDroppedInUse(client, ns, snapshot.policies, context, [=](const QStringList &dropped) mutable {
            if (dropped.isEmpty()) {
                load();
                return;
            }
            result.failure = Failure{Failure::Kind::Refused,
                                     tr("the new library would drop %1, which answered calls in the last minute: "
                                        "their callers would get errors")
                                         .arg(dropped.join(QStringLiteral(", ")))};
            done(result);
        });
    });
}

void LibraryPublisher::status(QObject *context, std::function<void(const DeploymentStatus &)> done) const
{
    RedisCommands *client = m_client;
    const QString ns = m_ns;
    readSnapshot(client, ns, context, [=](const Snapshot &snapshot) {
        DeploymentStatus status;
        status.published = snapshot.record;
        status.failure = snapshot.failure;
        status.storedPolicies = snapshot.policies.size();
        status.damaged = snapshot.damaged;
        if (!snapshot.failure)
            status.storedDiffers = snapshot.record.version > 0
                ? LimiterLibrary::build(snapshot.policies, ns, 0).digest != snapshot.record.digest
                : !snapshot.policies.isEmpty();
        const QByteArray expected = snapshot.record.digest;
        auto inspect
            = [client, ns, expected, context](const QString &node, std::function<void(const NodeLibrary &)> nodeDone) {
            inspectNode(client, node, ns, expected, context, nodeDone);
        };
        forEachNode(client->primaries(), inspect, [status, done](const QVector<NodeLibrary> &nodes) mutable {
            status.nodes = nodes;
            done(status);
        });
    });
}

} // namespace sluice::model
