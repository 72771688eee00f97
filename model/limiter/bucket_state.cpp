// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/limiter/bucket_state.h"

#include "model/limiter/library_problem.h"
#include "model/limiter/limiter_library.h"

#include <QCoreApplication>

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
    }
    if (!ok) {
        *problem = QCoreApplication::translate("sluice::model", "unexpected reply to sluice_inspect");
        return std::nullopt;
    }
    return state;
}

QJsonObject BucketState::toJson() const
{
    return {{QStringLiteral("algorithm"), algorithm},
            {QStringLiteral("available"), available},
            {QStringLiteral("capacity"), capacity},
            {QStringLiteral("reset_after_ms"), resetAfterMs},
            {QStringLiteral("ttl_ms"), ttlMs},
            {QStringLiteral("allowed"), qint64(allowed)},
            {QStringLiteral("rejected"), qint64(rejected)}};
}

} // namespace sluice::model
