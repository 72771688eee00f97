// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/policy/policy_store.h"

#include "model/limiter/lua_source.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>
#include <memory>

namespace sluice::model {

using redis::RedisReply;
using redis::RespValue;

namespace {

// This file's strings, under the context a translator sees them in.
struct Text {
    Q_DECLARE_TR_FUNCTIONS(sluice::model::PolicyStore)
};

bool readWhole(const QHash<QByteArray, QByteArray> &map, const char *field, qint64 *target, QString *error)
{
    bool ok = false;
    *target = map.value(field).toLongLong(&ok);
    if (!ok) {
        *error = Text::tr("field \"%1\" holds \"%2\", not a whole number")
                     .arg(QLatin1String(field), QString::fromUtf8(map.value(field).left(40)));
        return false;
    }
    return true;
}

// A version as store_commit.lua reads it (plain digits, at most 15), so a change expects the
// version the script will find; anything else is damage.
std::optional<qint64> storedVersion(const QByteArray &text)
{
    static const QRegularExpression plainWholeNumber(QStringLiteral("^[0-9]{1,15}$"));
    if (!plainWholeNumber.match(QString::fromLatin1(text)).hasMatch())
        return std::nullopt;
    return text.toLongLong();
}

// Every field a stored policy's hash may hold: its definition and the store's bookkeeping.
const QSet<QByteArray> &storedFields()
{
    static const QSet<QByteArray> fields = [] {
        QSet<QByteArray> names{"version", "updated_at", "updated_by"};
        for (const QString &name : definitionFieldNames())
            names.insert(name.toUtf8());
        return names;
    }();
    return fields;
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
    QByteArrayList fields{"name",        policy.name.toUtf8(),
                          "algorithm",   algorithmName(policy.algorithm).toUtf8(),
                          "limit",       QByteArray::number(policy.limit),
                          "window_ms",   QByteArray::number(policy.windowMs),
                          "burst",       QByteArray::number(policy.effectiveBurst()),
                          "shadow",      policy.shadow ? "1" : "0",
                          "description", policy.description.toUtf8()};
    // Only when not the default: a policy stored before the field existed is read as aligned, and saving
    // it unchanged writes the same hash (no new version).
    if (policy.windowStart != WindowStart::Aligned)
        fields << "window_start" << windowStartName(policy.windowStart).toUtf8();
    if (!policy.shadowOf.isEmpty())
        fields << "shadow_of" << policy.shadowOf.toUtf8();
    if (policy.predictedRejectedShare >= 0)
        fields << "predicted_rejected_share" << QByteArray::number(policy.predictedRejectedShare, 'g', 17);
    if (!policy.overrides.isEmpty())
        fields << "overrides" << QJsonDocument(overridesToJson(policy.overrides)).toJson(QJsonDocument::Compact);
    if (policy.blockMs > 0)
        fields << "block_ms" << QByteArray::number(policy.blockMs);
    if (policy.maxDebt > 0)
        fields << "max_debt" << QByteArray::number(policy.maxDebt);
    if (policy.reserveTimeoutMs > 0)
        fields << "reserve_timeout_ms" << QByteArray::number(policy.reserveTimeoutMs);
    if (policy.spread != 0)
        fields << "spread" << QByteArray::number(policy.spread);
    if (policy.calendar != Calendar::None)
        fields << "calendar" << calendarName(policy.calendar).toUtf8() << "utc_offset_minutes"
               << QByteArray::number(policy.utcOffsetMinutes) << "anchor_day" << QByteArray::number(policy.anchorDay);
    return fields;
}

std::optional<Policy> PolicyStore::fromDefinition(const QString &name, const QHash<QByteArray, QByteArray> &map,
                                                  QString *error)
{
    const QString where = Text::tr("stored policy \"%1\": ").arg(name);
    Policy policy;
    policy.name = name;
    const auto algorithm = algorithmFromName(QString::fromUtf8(map.value("algorithm")));
    if (!algorithm) {
        *error = where
            + Text::tr("field \"algorithm\" holds \"%1\", which is not an algorithm")
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
        *error = where + Text::tr("field \"shadow\" holds \"%1\", not 0 or 1").arg(QString::fromUtf8(shadow.left(40)));
        return std::nullopt;
    }
    policy.shadow = shadow == "1";
    const QByteArray windowStart = map.value("window_start", "aligned");
    const auto start = windowStartFromName(QString::fromUtf8(windowStart));
    if (!start) {
        *error = where
            + Text::tr("field \"window_start\" holds \"%1\", not aligned or first_call")
                  .arg(QString::fromUtf8(windowStart.left(40)));
        return std::nullopt;
    }
    policy.windowStart = *start;
    policy.shadowOf = QString::fromUtf8(map.value("shadow_of"));
    if (map.contains("predicted_rejected_share")) {
        bool ok = false;
        policy.predictedRejectedShare = map.value("predicted_rejected_share").toDouble(&ok);
        if (!ok) {
            *error = where
                + Text::tr("field \"predicted_rejected_share\" holds \"%1\", not a number")
                      .arg(QString::fromUtf8(map.value("predicted_rejected_share").left(40)));
            return std::nullopt;
        }
    }
    if (map.contains("overrides")) {
        QString problem = Text::tr("holds no JSON object");
        const QJsonDocument document = QJsonDocument::fromJson(map.value("overrides"));
        const std::optional<QVector<SubjectOverride>> overrides
            = document.isObject() ? overridesFromJson(document.object(), &problem) : std::nullopt;
        if (!overrides) {
            *error = where + Text::tr("field \"overrides\" %1").arg(problem);
            return std::nullopt;
        }
        policy.overrides = *overrides;
    }
    if (map.contains("block_ms") && !readWhole(map, "block_ms", &policy.blockMs, &fieldError)) {
        *error = where + fieldError;
        return std::nullopt;
    }
    if ((map.contains("max_debt") && !readWhole(map, "max_debt", &policy.maxDebt, &fieldError))
        || (map.contains("reserve_timeout_ms")
            && !readWhole(map, "reserve_timeout_ms", &policy.reserveTimeoutMs, &fieldError))) {
        *error = where + fieldError;
        return std::nullopt;
    }
    qint64 spread = 0;
    if (map.contains("spread")) {
        if (!readWhole(map, "spread", &spread, &fieldError)) {
            *error = where + fieldError;
            return std::nullopt;
        }
        policy.spread = int(std::min<qint64>(spread, policy_limits::maxSpread + 1)); // validatePolicy() says more
    }
    if (map.contains("calendar")) {
        const auto calendar = calendarFromName(QString::fromUtf8(map.value("calendar")));
        qint64 offset = 0, anchor = 0;
        if (!calendar) {
            *error = where
                + Text::tr("field \"calendar\" holds \"%1\", not day, week or month")
                      .arg(QString::fromUtf8(map.value("calendar").left(40)));
            return std::nullopt;
        }
        if (!readWhole(map, "utc_offset_minutes", &offset, &fieldError)
            || !readWhole(map, "anchor_day", &anchor, &fieldError)) {
            *error = where + fieldError;
            return std::nullopt;
        }
        policy.calendar = *calendar;
        policy.utcOffsetMinutes = int(std::clamp<qint64>(offset, -100000, 100000)); // validated below
        policy.anchorDay = int(std::clamp<qint64>(anchor, -1, 100));
    }
    policy.description = QString::fromUtf8(map.value("description"));
    for (auto it = map.cbegin(); it != map.cend(); ++it)
        if (!storedFields().contains(it.key()))
            policy.unknownFields << QString::fromUtf8(it.key().left(64));
    policy.unknownFields.sort();
    const QVector<PolicyError> problems = validatePolicy(policy);
    if (!problems.isEmpty()) {
        *error = Text::tr("stored %1").arg(problems.first().toString());
        return std::nullopt;
    }
    return policy;
}

std::optional<Policy> PolicyStore::fromHash(const QString &name, const RespValue &hash, QString *error)
{
    if (!hash.isArray() || hash.elements.size() % 2 != 0) {
        *error = Text::tr("stored policy \"%1\": not a hash").arg(name);
        return std::nullopt;
    }
    QHash<QByteArray, QByteArray> map;
    for (qsizetype i = 0; i < hash.elements.size(); i += 2)
        map.insert(hash.elements.at(i).bytes, hash.elements.at(i + 1).bytes);

    std::optional<Policy> policy = fromDefinition(name, map, error);
    if (!policy)
        return std::nullopt;
    const std::optional<qint64> version = storedVersion(map.value("version"));
    if (!version) {
        *error = Text::tr("stored policy \"%1\": field \"version\" holds \"%2\", not a version")
                     .arg(name, QString::fromUtf8(map.value("version").left(40)));
        return std::nullopt;
    }
    policy->version = *version;
    QString fieldError;
    if (!readWhole(map, "updated_at", &policy->updatedAtMs, &fieldError)) {
        *error = Text::tr("stored policy \"%1\": ").arg(name) + fieldError;
        return std::nullopt;
    }
    policy->updatedBy = QString::fromUtf8(map.value("updated_by"));
    return policy;
}

QStringList PolicyStore::ListResult::names() const
{
    QStringList names;
    for (const Policy &policy : policies)
        names << policy.name;
    for (const DamagedPolicy &policy : damaged)
        names << policy.name;
    return names;
}

DamagedPolicy PolicyStore::damaged(const QString &name, const RespValue &hash, const QString &problem)
{
    DamagedPolicy damaged{name, problem, 0};
    for (qsizetype i = 0; i + 1 < hash.elements.size(); i += 2)
        if (hash.elements.at(i).bytes == "version")
            damaged.version = storedVersion(hash.elements.at(i + 1).bytes).value_or(0);
    return damaged;
}

namespace {

// A name listed without a hash is either damage or a delete that ran between the two reads; a
// second look tells them apart, so a list racing a prune reports neither a failure nor damage.
constexpr int listAttempts = 3;

void listAttempt(redis::RedisCommands *client, const AdminKeys &keys, int attempt, QObject *context,
                 std::function<void(const PolicyStore::ListResult &)> done)
{
    client->send({"SMEMBERS", keys.policies()}, context, [=](const RedisReply &names) {
        if (!names.ok() || !names.value.isArray()) {
            const Failure failure
                = names.ok() ? Failure::serverError(Text::tr("not a set")) : Failure::fromReply(names);
            done({{}, {}, failure.prefixed(Text::tr("cannot list policies"))});
            return;
        }
        if (names.value.elements.isEmpty()) {
            done({});
            return;
        }
        // One HGETALL per name, pipelined; the last reply assembles the answer.
        auto result = std::make_shared<PolicyStore::ListResult>();
        auto pending = std::make_shared<qsizetype>(names.value.elements.size());
        auto vanished = std::make_shared<bool>(false);
        for (const RespValue &nameValue : names.value.elements) {
            const QString name = QString::fromUtf8(nameValue.bytes);
            client->send({"HGETALL", keys.policy(name)}, context, [=](const RedisReply &hash) {
                if (hash.failure != RedisReply::Failure::None) {
                    result->failure
                        = Failure::fromReply(hash).prefixed(Text::tr("cannot read policy \"%1\"").arg(name));
                } else if (hash.value.isError()) {
                    result->damaged.append(
                        {name, Text::tr("its key is not a hash (%1)").arg(hash.value.toString()), 0});
                } else if (hash.value.elements.isEmpty()) {
                    *vanished = true;
                    result->damaged.append({name, Text::tr("its name is listed, but its hash is missing"), 0});
                } else {
                    QString error;
                    if (auto policy = PolicyStore::fromHash(name, hash.value, &error))
                        result->policies.append(*policy);
                    else
                        result->damaged.append(PolicyStore::damaged(name, hash.value, error));
                }
                if (--*pending > 0)
                    return;
                if (!result->failure && *vanished && attempt + 1 < listAttempts) {
                    listAttempt(client, keys, attempt + 1, context, done);
                    return;
                }
                if (result->failure) {
                    result->policies.clear();
                    result->damaged.clear();
                }
                std::sort(result->policies.begin(), result->policies.end(),
                          [](const Policy &a, const Policy &b) { return a.name < b.name; });
                std::sort(result->damaged.begin(), result->damaged.end(),
                          [](const DamagedPolicy &a, const DamagedPolicy &b) { return a.name < b.name; });
                done(*result);
            });
        }
    });
}

} // namespace

void PolicyStore::list(QObject *context, std::function<void(const ListResult &)> done) const
{
    listAttempt(m_client, m_keys, 0, context, std::move(done));
}

void PolicyStore::read(const QString &name, QObject *context, std::function<void(const ReadResult &)> done) const
{
    m_client->send({"HGETALL", m_keys.policy(name)}, context, [name, done](const RedisReply &hash) {
        ReadResult result;
        if (!hash.ok()) {
            result.failure = Failure::fromReply(hash).prefixed(Text::tr("cannot read policy \"%1\"").arg(name));
        } else if (!hash.value.elements.isEmpty()) {
            QString error;
            result.policy = fromHash(name, hash.value, &error);
            if (!result.policy) {
                result.damaged = damaged(name, hash.value, error);
                result.failure = Failure::serverError(error);
            }
        }
        done(result);
    });
}

void PolicyStore::commit(const QVector<PolicyChange> &changes, const QString &who, QObject *context,
                         std::function<void(const CommitResult &)> done,
                         const std::optional<QStringList> &expectedNames) const
{
    const bool writes = std::any_of(changes.begin(), changes.end(), [](const PolicyChange &change) {
        return change.kind != PolicyChange::Kind::Check;
    });
    if (!writes) {
        QMetaObject::invokeMethod(
            context, [done] { done({}); }, Qt::QueuedConnection);
        return;
    }
    QByteArrayList keys{m_keys.policies(), m_keys.audit()};
    QByteArrayList args{who.toUtf8(), QByteArray::number(expectedNames ? expectedNames->size() : -1)};
    if (expectedNames)
        for (const QString &name : *expectedNames)
            args << name.toUtf8();
    for (const PolicyChange &change : changes) {
        keys << m_keys.policy(change.policy.name);
        const QByteArrayList fields = change.kind == PolicyChange::Kind::Put
            ? definitionFields(change.policy)
            : QByteArrayList{"name", change.policy.name.toUtf8()};
        const char *operation = change.kind == PolicyChange::Kind::Put ? "put"
            : change.kind == PolicyChange::Kind::Delete                ? "del"
                                                                       : "check";
        args << operation << QByteArray::number(change.expectedVersion) << QByteArray::number(change.rollbackTo)
             << QByteArray::number(fields.size() / 2) << fields;
    }
    args << QByteArray::number(policy_limits::maxPoliciesPerNamespace);
    QByteArrayList command{"EVAL", luaSource(QStringLiteral("store_commit.lua")), QByteArray::number(keys.size())};
    command << keys << args;
    m_client->send(command, context, [done](const RedisReply &reply) {
        CommitResult result;
        if (!reply.ok()) {
            result.failure = Failure::fromWriteReply(reply);
            if (result.failure->kind == Failure::Kind::Conflict)
                result.failure = result.failure->prefixed(Text::tr("someone else saved in between"));
        } else {
            for (const RespValue &name : reply.value.elements)
                result.changed << QString::fromUtf8(name.bytes);
        }
        done(result);
    });
}

} // namespace sluice::model
