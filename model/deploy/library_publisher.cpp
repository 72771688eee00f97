#include "model/deploy/library_publisher.h"

#include "model/limiter/lua_source.h"
#include "model/policy/policy_file.h"

#include <QCoreApplication>

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
};

void readSnapshot(RedisCommands *admin, const QString &ns, QObject *context, std::function<void(const Snapshot &)> done)
{
    PolicyStore(admin, ns).list(context, [admin, ns, context, done](const PolicyStore::ListResult &listed) {
        if (listed.failure) {
            done({{}, {}, listed.failure});
            return;
        }
        const QByteArrayList command{"HMGET", AdminKeys(ns).library(), "version", "digest", "published_at",
                                     "published_by", "policies", "definitions"};
        admin->send(command, context, [policies = listed.policies, done](const RedisReply &reply) {
            Snapshot snapshot{policies, {}, {}};
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

// Which library one primary runs, against the digest that should run there.
void inspectNode(RedisCommands *client, const QString &node, const QByteArray &expectedDigest, QObject *context,
                 std::function<void(const NodeLibrary &)> done)
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
                       [node, replies, expectedDigest, done](const RedisReply &r) {
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
        } else if (!version.ok() || version.value.elements.size() != 4 || !version.value.elements.at(0).isInteger()) {
            result.state = NodeLibrary::State::Foreign;
            result.detail = tr("a library named sluice that does not answer sluice_version: %1")
                                .arg(version.ok() ? tr("unexpected reply") : version.errorText());
        } else {
            result.version = version.value.elements.at(0).integer;
            result.digest = version.value.elements.at(1).bytes;
            const bool current = !expectedDigest.isEmpty() && result.digest == expectedDigest;
            result.state = current ? NodeLibrary::State::Current : NodeLibrary::State::Stale;
            if (!current)
                result.detail
                    = tr("runs version %1 (digest %2)").arg(result.version).arg(QString::fromLatin1(result.digest));
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

} // namespace

QString NodeLibrary::stateName(State state)
{
    switch (state) {
    case State::Current:
        return tr("current");
    case State::Stale:
        return tr("stale");
    case State::Missing:
        return tr("missing");
    case State::Foreign:
        return tr("foreign");
    case State::Unreachable:
        return tr("unreachable");
    }
    return {};
}

bool DeploymentStatus::drift() const
{
    for (const NodeLibrary &node : nodes)
        if (node.state != NodeLibrary::State::Current)
            return true;
    return false;
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

LibraryPublisher::LibraryPublisher(RedisCommands *client, const QString &ns)
    : m_client(client)
    , m_ns(ns)
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
    readSnapshot(client, ns, context, [=](const Snapshot &snapshot) {
        PublishResult result;
        if (snapshot.failure) {
            result.failure = snapshot.failure;
            done(result);
            return;
        }
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
                const Failure failure = Failure::fromReply(recorded);
                result.failure = failure.kind == Failure::Kind::Conflict
                    ? Failure{failure.kind, tr("someone else published version %1 in between; nothing was loaded")
                                                .arg(failure.message)}
                    : failure.prefixed(tr("cannot record the publish"));
                done(result);
                return;
            }
            const LimiterLibrary library = result.library;
            auto loadAndVerify = [client, library, context,
                                  nodeDone](const QString &node, std::function<void(const NodeLibrary &)> verified) {
                auto reported = [nodeDone, verified](const NodeLibrary &state) {
                    if (nodeDone)
                        nodeDone(state);
                    verified(state);
                };
                client->sendToNode(node, {"FUNCTION", "LOAD", "REPLACE", library.source}, context,
                                   [client, node, library, context, reported](const RedisReply &loaded) {
                    if (!loaded.ok()) {
                        // The node keeps whatever it ran before; report that, with the reason.
                        inspectNode(client, node, library.digest, context, [loaded, reported](NodeLibrary state) {
                            state.detail = tr("load failed: %1").arg(loaded.errorText());
                            if (state.state == NodeLibrary::State::Current)
                                state.state = NodeLibrary::State::Stale;
                            reported(state);
                        });
                        return;
                    }
                    inspectNode(client, node, library.digest, context, reported);
                });
            };
            forEachNode(client->primaries(), loadAndVerify, [result, done](const QVector<NodeLibrary> &nodes) mutable {
                result.nodes = nodes;
                done(result);
            });
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
        if (!snapshot.failure)
            status.storedDiffers = LimiterLibrary::build(snapshot.policies, ns, 0).digest != snapshot.record.digest;
        const QByteArray expected = snapshot.record.digest;
        auto inspect
            = [client, expected, context](const QString &node, std::function<void(const NodeLibrary &)> nodeDone) {
            inspectNode(client, node, expected, context, nodeDone);
        };
        forEachNode(client->primaries(), inspect, [status, done](const QVector<NodeLibrary> &nodes) mutable {
            status.nodes = nodes;
            done(status);
        });
    });
}

} // namespace sluice::model
