// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/failure.h"

namespace sluice::model {

namespace {

// The policy store's and the publish record's scripts refuse an outdated write this way,
const QLatin1String conflictPrefix("CONFLICT ");
// and a write that breaks a rule of the store (the number of policies) this way.
const QLatin1String invalidPrefix("INVALID ");

} // namespace

Failure Failure::fromReply(const redis::RedisReply &reply)
{
    using Client = redis::RedisReply::Failure;
    switch (reply.failure) {
    case Client::NotConnected: return {Kind::Unreachable, reply.failureMessage};
    case Client::Timeout: return {Kind::TimedOut, reply.failureMessage};
    case Client::Disconnected: return {Kind::Unreachable, reply.failureMessage};
    case Client::NoReply: return {Kind::TimedOut, reply.failureMessage};
    case Client::Refused: return {Kind::Refused, reply.failureMessage};
    case Client::None: break;
    }
    const QString text = reply.value.toString();
    if (text.startsWith(conflictPrefix))
        return {Kind::Conflict, text.mid(conflictPrefix.size())};
    if (text.startsWith(invalidPrefix))
        return {Kind::Invalid, text.mid(invalidPrefix.size())};
    return {Kind::ServerError, text};
}

Failure Failure::fromWriteReply(const redis::RedisReply &reply)
{
    using Client = redis::RedisReply::Failure;
    if (reply.failure == Client::Disconnected || reply.failure == Client::NoReply)
        return {Kind::OutcomeUnknown, reply.failureMessage};
    return fromReply(reply);
}

bool Failure::isConnectionFailure() const
{
    return kind == Kind::Unreachable || kind == Kind::TimedOut || kind == Kind::OutcomeUnknown;
}

Failure Failure::prefixed(const QString &context) const
{
    return {kind, context + QLatin1String(": ") + message};
}

} // namespace sluice::model
