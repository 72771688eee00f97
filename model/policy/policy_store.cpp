#include "model/policy/policy_store.h"

#include "model/limiter/lua_source.h"

#include <QCoreApplication>

#include <algorithm>
#include <memory>

namespace sluice::model {

using redis::RedisReply;
using redis::RespValue;

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("sluice::model::PolicyStore", text);
}

bool readWhole(const QHash<QByteArray, QByteArray> &map, const char *field, qint64 *target, QString *error)
{
    bool ok = false;
    *target = map.value(field).toLongLong(&ok);
    if (!ok) {
        *error = tr("field \"%1\" holds \"%2\", not a whole number")
                     .arg(QLatin1String(field), QString::fromUtf8(map.value(field).left(40)));
        return false;
    }
    return true;
}

} // namespace

AdminKeys::AdminKeys(const QString &ns)
    : m_prefix('{' + ns.toUtf8() + '}')
{
}

PolicyStore::PolicyStore(redis::RedisCommands *client, const QString &ns)
    : m_client(client)
    , m_keys(ns)
{
}

QByteArrayList PolicyStore::definitionFields(const Policy &policy)
{
    return {"name",        policy.name.toUtf8(),
            "algorithm",   algorithmName(policy.algorithm).toUtf8(),
            "limit",       QByteArray::number(policy.limit),
            "window_ms",   QByteArray::number(policy.windowMs),
            "burst",       QByteArray::number(policy.effectiveBurst()),
            "shadow",      policy.shadow ? "1" : "0",
            "description", policy.description.toUtf8()};
}

std::optional<Policy> PolicyStore::fromDefinition(const QString &name, const QHash<QByteArray, QByteArray> &map,
                                                  QString *error)
{
    const QString where = tr("stored policy \"%1\": ").arg(name);
    Policy policy;
    policy.name = name;
    const auto algorithm = algorithmFromName(QString::fromUtf8(map.value("algorithm")));
    if (!algorithm) {
        *error = where + tr("field \"algorithm\" holds \"%1\", which is not an algorithm")
                             .arg(QString::fromUtf8(map.value("algorithm").left(40)));
        return std::nullopt;
    }
    policy.algorithm = *algorithm;
    QString fieldError;
    if (!readWhole(map, "limit", &policy.limit, &fieldError)
        || !readWhole(map, "window_ms", &policy.windowMs, &fieldError)
        || !readWhole(map, "burst", &policy.burst, &fieldError)) {
        *error = where + fieldError;
        return std::nullopt;
    }
    const QByteArray shadow = map.value("shadow");
    if (shadow != "0" && shadow != "1") {
        *error = where + tr("field \"shadow\" holds \"%1\", not 0 or 1").arg(QString::fromUtf8(shadow.left(40)));
        return std::nullopt;
    }
    policy.shadow = shadow == "1";
    policy.description = QString::fromUtf8(map.value("description"));
    const QVector<PolicyError> problems = validatePolicy(policy);
    if (!problems.isEmpty()) {
        *error = tr("stored %1").arg(problems.first().toString());
        return std::nullopt;
    }
    return policy;
}

std::optional<Policy> PolicyStore::fromHash(const QString &name, const RespValue &hash, QString *error)
{
    if (!hash.isArray() || hash.elements.size() % 2 != 0) {
        *error = tr("stored policy \"%1\": not a hash").arg(name);
        return std::nullopt;
    }
    QHash<QByteArray, QByteArray> map;
    for (qsizetype i = 0; i < hash.elements.size(); i += 2)
        map.insert(hash.elements.at(i).bytes, hash.elements.at(i + 1).bytes);

    std::optional<Policy> policy = fromDefinition(name, map, error);
    if (!policy)
        return std::nullopt;
    QString fieldError;
    if (!readWhole(map, "version", &policy->version, &fieldError)
        || !readWhole(map, "updated_at", &policy->updatedAtMs, &fieldError)) {
        *error = tr("stored policy \"%1\": ").arg(name) + fieldError;
        return std::nullopt;
    }
    policy->updatedBy = QString::fromUtf8(map.value("updated_by"));
    return policy;
}

void PolicyStore::list(QObject *context, std::function<void(const ListResult &)> done) const
{
    redis::RedisCommands *client = m_client;
    const AdminKeys keys = m_keys;
    client->send({"SMEMBERS", keys.policies()}, context, [client, keys, context, done](const RedisReply &names) {
        if (!names.ok() || !names.value.isArray()) {
            const Failure failure = names.ok() ? Failure::serverError(tr("not a set")) : Failure::fromReply(names);
            done({{}, failure.prefixed(tr("cannot list policies"))});
            return;
        }
        if (names.value.elements.isEmpty()) {
            done({});
            return;
        }
        // One HGETALL per name, pipelined; the last reply assembles the answer.
        auto result = std::make_shared<ListResult>();
        auto pending = std::make_shared<qsizetype>(names.value.elements.size());
        for (const RespValue &nameValue : names.value.elements) {
            const QString name = QString::fromUtf8(nameValue.bytes);
            client->send({"HGETALL", keys.policy(name)}, context,
                         [result, pending, name, done](const RedisReply &hash) {
                if (!hash.ok()) {
                    result->failure = Failure::fromReply(hash).prefixed(tr("cannot read policy \"%1\"").arg(name));
                } else if (hash.value.elements.isEmpty()) {
                    result->failure = Failure::serverError(tr("policy \"%1\" is listed but has no hash").arg(name));
                } else if (!result->failure) {
                    QString error;
                    if (auto policy = PolicyStore::fromHash(name, hash.value, &error))
                        result->policies.append(*policy);
                    else
                        result->failure = Failure::serverError(error);
                }
                if (--*pending > 0)
                    return;
                if (result->failure)
                    result->policies.clear();
                std::sort(result->policies.begin(), result->policies.end(),
                          [](const Policy &a, const Policy &b) { return a.name < b.name; });
                done(*result);
            });
        }
    });
}

void PolicyStore::read(const QString &name, QObject *context, std::function<void(const ReadResult &)> done) const
{
    m_client->send({"HGETALL", m_keys.policy(name)}, context, [name, done](const RedisReply &hash) {
        ReadResult result;
        if (!hash.ok()) {
            result.failure = Failure::fromReply(hash).prefixed(tr("cannot read policy \"%1\"").arg(name));
        } else if (!hash.value.elements.isEmpty()) {
            QString error;
            result.policy = fromHash(name, hash.value, &error);
            if (!result.policy)
                result.failure = Failure::serverError(error);
        }
        done(result);
    });
}

void PolicyStore::commit(const QVector<PolicyChange> &changes, const QString &who, QObject *context,
                         std::function<void(const CommitResult &)> done) const
{
    if (changes.isEmpty()) {
        QMetaObject::invokeMethod(context, [done] { done({}); }, Qt::QueuedConnection);
        return;
    }
    QByteArrayList keys{m_keys.policies(), m_keys.audit()};
    QByteArrayList args{who.toUtf8()};
    for (const PolicyChange &change : changes) {
        keys << m_keys.policy(change.policy.name);
        const QByteArrayList fields = change.kind == PolicyChange::Kind::Put
            ? definitionFields(change.policy)
            : QByteArrayList{"name", change.policy.name.toUtf8()};
        args << (change.kind == PolicyChange::Kind::Put ? "put" : "del") << QByteArray::number(change.expectedVersion)
             << QByteArray::number(change.rollbackTo) << QByteArray::number(fields.size() / 2) << fields;
    }
    QByteArrayList command{"EVAL", luaSource(QStringLiteral("store_commit.lua")), QByteArray::number(keys.size())};
    command << keys << args;
    m_client->send(command, context, [done](const RedisReply &reply) {
        CommitResult result;
        if (!reply.ok()) {
            result.failure = Failure::fromReply(reply);
            if (result.failure->kind == Failure::Kind::Conflict)
                result.failure = result.failure->prefixed(tr("someone else saved in between"));
        } else {
            for (const RespValue &name : reply.value.elements)
                result.changed << QString::fromUtf8(name.bytes);
        }
        done(result);
    });
}

} // namespace sluice::model
