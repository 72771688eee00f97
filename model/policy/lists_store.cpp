// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/policy/lists_store.h"

#include "model/limiter/lua_source.h"

#include <QCoreApplication>
#include <QJsonDocument>

namespace sluice::model {

using redis::RedisReply;

namespace {

// This file's strings, under the context a translator sees them in.
struct Text {
    Q_DECLARE_TR_FUNCTIONS(sluice::model::ListsStore)
};

} // namespace

ListsStore::ListsStore(redis::RedisCommands *client, const QString &ns)
    : m_client(client)
    , m_keys(ns)
{
}

QByteArray ListsStore::entriesJson(const QVector<SubjectOverride> &entries)
{
    return QJsonDocument(overridesToJson(entries)).toJson(QJsonDocument::Compact);
}

std::optional<QVector<SubjectOverride>> ListsStore::entriesFromJson(const QByteArray &json, QString *problem)
{
    if (json.isEmpty())
        return QVector<SubjectOverride>();
    const QJsonDocument document = QJsonDocument::fromJson(json);
    return listEntriesFromJson(document.isObject() ? QJsonValue(document.object()) : QJsonValue(), problem);
}

void ListsStore::read(QObject *context, std::function<void(const ReadResult &)> done) const
{
    m_client->send({"HMGET", m_keys.lists(), "entries", "version", "updated_at", "updated_by"}, context,
                   [done](const RedisReply &reply) {
        ReadResult result;
        const auto fail = [&](const Failure &failure) {
            result.failure = failure.prefixed(Text::tr("cannot read the namespace's lists"));
            done(result);
        };
        if (!reply.ok())
            return fail(Failure::fromReply(reply));
        if (reply.value.elements.size() != 4)
            return fail(Failure::serverError(Text::tr("not a hash of lists")));
        const auto &fields = reply.value.elements;
        QString problem;
        const std::optional<QVector<SubjectOverride>> entries = entriesFromJson(fields.at(0).bytes, &problem);
        if (!entries)
            return fail(Failure::serverError(Text::tr("the stored entries are damaged: %1").arg(problem)));
        result.lists.entries = *entries;
        result.lists.version = fields.at(1).bytes.toLongLong();
        result.lists.updatedAtMs = fields.at(2).bytes.toLongLong();
        result.lists.updatedBy = QString::fromUtf8(fields.at(3).bytes);
        done(result);
    });
}

void ListsStore::commit(const QVector<SubjectOverride> &entries, qint64 expectedVersion, const QString &who,
                        QObject *context, std::function<void(const CommitResult &)> done) const
{
    const QVector<PolicyError> problems = listProblems(entries);
    bool limits = false;
    for (const SubjectOverride &entry : entries)
        limits = limits || entry.kind == SubjectOverride::Kind::Limits;
    if (!problems.isEmpty() || limits) {
        const Failure failure = Failure::invalid(
            limits ? Text::tr("a list holds \"allow\" or \"deny\"; only a policy's override has limits")
                   : problems.first().message);
        QMetaObject::invokeMethod(
            context,
            [done, failure] {
            done({0, failure});
            },
            Qt::QueuedConnection);
        return;
    }
    m_client->send({"EVAL", luaSource(QStringLiteral("lists_commit.lua")), "2", m_keys.lists(), m_keys.audit(),
                    who.toUtf8(), QByteArray::number(expectedVersion), entriesJson(entries)},
                   context,
                   [done](const RedisReply &reply) {
        CommitResult result;
        if (!reply.ok()) {
            result.failure = Failure::fromWriteReply(reply);
            if (result.failure->kind == Failure::Kind::Conflict)
                result.failure = Failure{Failure::Kind::Conflict,
                                         Text::tr("someone else saved the lists in between (now version %1); "
                                                  "nothing was saved")
                                             .arg(result.failure->message)};
        } else {
            result.version = reply.value.integer;
        }
        done(result);
    });
}

} // namespace sluice::model
