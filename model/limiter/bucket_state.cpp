// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/limiter/bucket_state.h"

#include "model/format/subject_text.h"
#include "model/format/units.h"
#include "model/limiter/library_problem.h"
#include "model/limiter/limiter_library.h"

#include <QCoreApplication>

#include <algorithm>

namespace sluice::model {

using redis::RedisReply;
using redis::RespValue;

namespace {

qint64 integerField(const RespValue &reply, const char *name, bool *ok)
{
    const RespValue *value = reply.field(name);
    if (!value || !value->isInteger()) {
        *ok = false;
        return 0;
    }
    return value->integer;
}

} // namespace

QByteArrayList BucketState::inspectCommand(const LibraryOwner &owner, const QByteArray &key, const QString &policy)
{
    return {"FCALL_RO", owner.function("inspect"), "1", key, policy.toUtf8()};
}

std::optional<BucketState> BucketState::fromReply(const RedisReply &reply, QString *problem)
{
    if (!reply.ok()) {
        *problem = libraryCallProblem(reply.errorText());
        return std::nullopt;
    }
    bool ok = reply.value.isArray();
    BucketState state;
    if (ok) {
        state.available = integerField(reply.value, "available", &ok);
        state.capacity = integerField(reply.value, "capacity", &ok);
        state.resetAfterMs = integerField(reply.value, "reset_after_ms", &ok);
        state.ttlMs = integerField(reply.value, "ttl_ms", &ok);
        state.nowMs = integerField(reply.value, "now_ms", &ok);
        state.allowed = quint64(integerField(reply.value, "allowed", &ok));
        state.rejected = quint64(integerField(reply.value, "rejected", &ok));
        const RespValue *algorithm = reply.value.field("algorithm");
        ok = ok && algorithm;
        if (algorithm)
            state.algorithm = algorithm->toString();
        if (reply.value.field("limit")) {
            state.limit = integerField(reply.value, "limit", &ok);
            state.blockedMs = integerField(reply.value, "blocked_ms", &ok);
            const RespValue *override = reply.value.field("override");
            const RespValue *listed = reply.value.field("listed");
            ok = ok && override && listed;
            if (ok) {
                state.override = override->toString();
                state.listed = listed->toString();
            }
            // A library from before the namespace's lists replies none.
            if (reply.value.field("from_list"))
                state.fromNamespaceLists = integerField(reply.value, "from_list", &ok) == 1;
        }
    }
    if (!ok) {
        *problem = QCoreApplication::translate("sluice::model", "unexpected reply to sluice_inspect");
        return std::nullopt;
    }
    return state;
}

BucketState BucketState::summed(const QVector<BucketState> &states)
{
    BucketState sum = states.first();
    sum.buckets = int(states.size());
    for (qsizetype i = 1; i < states.size(); ++i) {
        const BucketState &state = states.at(i);
        sum.available += state.available;
        sum.capacity += state.capacity;
        sum.resetAfterMs = std::max(sum.resetAfterMs, state.resetAfterMs);
        sum.ttlMs = std::max(sum.ttlMs, state.ttlMs);
        sum.nowMs = std::max(sum.nowMs, state.nowMs);
        sum.allowed += state.allowed;
        sum.rejected += state.rejected;
        sum.limit = sum.limit < 0 || state.limit < 0 ? -1 : sum.limit + state.limit;
        sum.blockedMs = std::max(sum.blockedMs, state.blockedMs);
    }
    return sum;
}

QString BucketState::rulesText() const
{
    QStringList rules;
    if (blockedMs > 0)
        rules << QCoreApplication::translate("sluice::model", "blocked %1").arg(formatWait(blockedMs));
    // The pattern is the operator's, but a subject may hold any byte: printed escaped.
    const QString pattern = subjectText(override.toUtf8());
    if (fromNamespaceLists)
        rules << QCoreApplication::translate("sluice::model", "%1 (%2, namespace list)").arg(listed, pattern);
    else if (!listed.isEmpty())
        rules << QStringLiteral("%1 (%2)").arg(listed, pattern);
    else if (!override.isEmpty())
        rules << QCoreApplication::translate("sluice::model", "override %1").arg(pattern);
    return rules.join(QStringLiteral(", "));
}

QJsonObject BucketState::toJson() const
{
    return {{QStringLiteral("algorithm"), algorithm},
            {QStringLiteral("available"), available},
            {QStringLiteral("capacity"), capacity},
            {QStringLiteral("reset_after_ms"), resetAfterMs},
            {QStringLiteral("ttl_ms"), ttlMs},
            {QStringLiteral("allowed"), qint64(allowed)},
            {QStringLiteral("rejected"), qint64(rejected)},
            {QStringLiteral("override"), override},
            {QStringLiteral("listed"), listed},
            {QStringLiteral("from_list"), fromNamespaceLists},
            {QStringLiteral("blocked_ms"), blockedMs}};
}

} // namespace sluice::model
