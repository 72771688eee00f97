// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/policy/audit_log.h"

#include "model/policy/lists_store.h"
#include "model/policy/policy_diff.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonObject>

#include <memory>

namespace sluice::model {

using redis::RedisReply;
using redis::RespValue;

namespace {

// This file's strings, under the context a translator sees them in.
struct Text {
    Q_DECLARE_TR_FUNCTIONS(sluice::model::AuditLog)
};

// Entries read per XREVRANGE: bounded, so one read never blocks the server for long.
constexpr int pageSize = 500;

// The definition an entry's "old" or "new" field holds: a JSON object of field strings, or empty.
std::optional<Policy> decodeDefinition(const QString &name, const QByteArray &json, bool *ok, QString *error)
{
    *ok = true;
    if (json.isEmpty())
        return std::nullopt;
    const QJsonDocument document = QJsonDocument::fromJson(json);
    if (!document.isObject()) {
        *ok = false;
        *error = Text::tr("audit entry for \"%1\": a definition that is not a JSON object").arg(name);
        return std::nullopt;
    }
    QHash<QByteArray, QByteArray> fields;
    const QJsonObject object = document.object();
    for (auto it = object.begin(); it != object.end(); ++it)
        fields.insert(it.key().toUtf8(), it.value().toString().toUtf8());
    std::optional<Policy> policy = PolicyStore::fromDefinition(name, fields, error);
    *ok = policy.has_value();
    return policy;
}

} // namespace

QString AuditEntry::changeText() const
{
    if (action == QLatin1String("publish"))
        return Text::tr("published library version %1").arg(version);
    if (action == QLatin1String("delete"))
        return Text::tr("deleted");
    if (action == QLatin1String("lists")) {
        const OverrideChanges changes = overrideChanges(listsBefore, listsAfter);
        QStringList parts;
        if (!changes.before.isEmpty())
            parts << Text::tr("lists: removed %1").arg(changes.before);
        if (!changes.after.isEmpty())
            parts << Text::tr("lists: added %1").arg(changes.after);
        return parts.isEmpty() ? Text::tr("lists saved unchanged") : parts.join(QStringLiteral(", "));
    }
    if (action == QLatin1String("reset")) {
        const QString subjectText = QString::fromUtf8(subject);
        if (bucketState.contains(QLatin1String("unreadable")))
            return Text::tr("reset the bucket of \u201c%1\u201d (its state was unreadable: %2)")
                .arg(subjectText, bucketState.value(QLatin1String("unreadable")).toString());
        return Text::tr("reset the bucket of \u201c%1\u201d (%2 of %3 available, %4 rejected)")
            .arg(subjectText)
            .arg(bucketState.value(QLatin1String("available")).toInteger())
            .arg(bucketState.value(QLatin1String("capacity")).toInteger())
            .arg(bucketState.value(QLatin1String("rejected")).toInteger());
    }
    QStringList parts;
    if (action == QLatin1String("rollback"))
        parts << Text::tr("rolled back to version %1").arg(rollbackTo);
    if (replacedDamage)
        parts << Text::tr("repaired a damaged definition");
    else if (action == QLatin1String("create"))
        return Text::tr("created");
    const auto changes = diffPolicies(before ? &*before : nullptr, after ? &*after : nullptr);
    for (const FieldChange &change : changes)
        parts << QStringLiteral("%1 %2 \u2192 %3").arg(change.label, change.before, change.after);
    return parts.join(QStringLiteral(", "));
}

QString auditSubjectText(const AuditEntry &entry)
{
    if (!entry.policy.isEmpty())
        return entry.policy;
    return entry.action == QLatin1String("lists") ? Text::tr("(lists)") : Text::tr("(library)");
}

AuditLog::AuditLog(redis::RedisCommands *client, const QString &ns)
    : m_client(client)
    , m_keys(ns)
{
}

std::optional<AuditEntry> AuditLog::decode(const RespValue &element, QString *error)
{
    if (element.elements.size() != 2 || element.elements.at(1).elements.size() % 2 != 0) {
        *error = Text::tr("an audit entry that is not a stream entry");
        return std::nullopt;
    }
    QHash<QByteArray, QByteArray> fields;
    const QVector<RespValue> &flat = element.elements.at(1).elements;
    for (qsizetype i = 0; i < flat.size(); i += 2)
        fields.insert(flat.at(i).bytes, flat.at(i + 1).bytes);

    AuditEntry entry;
    entry.id = element.elements.at(0).bytes;
    entry.policy = QString::fromUtf8(fields.value("policy"));
    entry.action = QString::fromUtf8(fields.value("action"));
    entry.who = QString::fromUtf8(fields.value("who"));
    entry.atMs = fields.value("at").toLongLong();
    entry.version = fields.value("version").toLongLong();
    entry.rollbackTo = fields.value("rollback_to").toLongLong();
    if (entry.action == QLatin1String("publish")) {
        entry.publishedDigest = fields.value("new");
        return entry;
    }
    if (entry.action == QLatin1String("lists")) {
        const std::optional<QVector<SubjectOverride>> before = ListsStore::entriesFromJson(fields.value("old"), error);
        const std::optional<QVector<SubjectOverride>> after
            = before ? ListsStore::entriesFromJson(fields.value("new"), error) : std::nullopt;
        if (!after) {
            *error = Text::tr("audit entry for the lists: %1").arg(*error);
            return std::nullopt;
        }
        entry.listsBefore = *before;
        entry.listsAfter = *after;
        return entry;
    }
    if (entry.action == QLatin1String("reset")) {
        const QJsonDocument state = QJsonDocument::fromJson(fields.value("old"));
        if (!state.isObject()) {
            *error = Text::tr("audit entry for \"%1\": a reset without the bucket's state").arg(entry.policy);
            return std::nullopt;
        }
        entry.subject = fields.value("subject");
        entry.bucketState = state.object();
        return entry;
    }
    bool ok = true;
    QString oldProblem;
    entry.before = decodeDefinition(entry.policy, fields.value("old"), &ok, &oldProblem);
    // A change that repaired a damaged policy recorded the damage as it found it.
    entry.replacedDamage = !ok;
    entry.after = decodeDefinition(entry.policy, fields.value("new"), &ok, error);
    if (!ok)
        return std::nullopt;
    return entry;
}

namespace {

struct AuditScan {
    QString policy;
    int maxEntries = 0;
    AuditLog::ReadResult result;
};

// Reads the page of entries older than `end` and goes on with the next until enough match or the stream ends.
void readPage(redis::RedisCommands *client, const QByteArray &key, const QByteArray &end,
              std::shared_ptr<AuditScan> scan, QObject *context, std::function<void(const AuditLog::ReadResult &)> done)
{
    client->send({"XREVRANGE", key, end, "-", "COUNT", QByteArray::number(pageSize)}, context,
                 [=](const RedisReply &reply) {
        AuditLog::ReadResult &result = scan->result;
        if (!reply.ok() || !reply.value.isArray()) {
            const Failure failure
                = reply.ok() ? Failure::serverError(Text::tr("not a stream")) : Failure::fromReply(reply);
            result.failure = failure.prefixed(Text::tr("cannot read the audit log"));
            result.entries.clear();
            done(result);
            return;
        }
        for (const RespValue &element : reply.value.elements) {
            QString problem;
            const std::optional<AuditEntry> entry = AuditLog::decode(element, &problem);
            if (!entry) {
                result.failure = Failure::serverError(problem);
                result.entries.clear();
                done(result);
                return;
            }
            if (!scan->policy.isEmpty() && entry->policy != scan->policy)
                continue;
            if (result.entries.size() == scan->maxEntries) {
                result.complete = false;
                break;
            }
            result.entries.append(*entry);
        }
        if (reply.value.elements.size() < pageSize || !result.complete) {
            done(result);
            return;
        }
        readPage(client, key, '(' + reply.value.elements.last().elements.at(0).bytes, scan, context, done);
    });
}

} // namespace

void AuditLog::read(const QString &policy, int maxEntries, QObject *context,
                    std::function<void(const ReadResult &)> done) const
{
    auto scan = std::make_shared<AuditScan>();
    scan->policy = policy;
    scan->maxEntries = maxEntries;
    readPage(m_client, m_keys.audit(), "+", scan, context, std::move(done));
}

} // namespace sluice::model
