// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "redis/redis_reply.h"

#include <QString>

#include <optional>

namespace sluice::model {

// Why a model operation did not do what it was asked: the one way every operation reports failure.
// The kind says what a caller may conclude (was anything changed? is retrying sensible?); the
// message says what happened, in words an operator can act on. Never holds a secret.
struct Failure {
    enum class Kind {
        Unreachable,    // no connection, or a read's connection broke before its answer: nothing changed
        TimedOut,       // no connection in time, or a read got no reply in time: nothing changed
        Refused,        // the client or the profile would not send it (read-only, production)
        Conflict,       // someone else changed it in between; nothing changed
        Invalid,        // the input is malformed or breaks a rule; nothing changed
        OutcomeUnknown, // a write was sent, then its connection broke or its answer was late: it may have run
        ServerError,    // Redis (or the file system) answered with an error, or with nonsense
    };

    Kind kind = Kind::ServerError;
    QString message;

    // What a read's reply that is not ok() means: the client's failure, a CONFLICT, or Redis' error.
    // A read has no outcome to doubt, so a lost answer is a timeout or a lost connection.
    static Failure fromReply(const redis::RedisReply &reply);
    // The same for a write: an answer lost after the command was sent leaves its outcome unknown.
    static Failure fromWriteReply(const redis::RedisReply &reply);
    static Failure invalid(const QString &message) { return {Kind::Invalid, message}; }
    static Failure serverError(const QString &message) { return {Kind::ServerError, message}; }

    // The connection, not the data, is what failed (the operation may work later as it is).
    bool isConnectionFailure() const;
    // The same failure with more said before its message ("cannot read the bucket: ...").
    Failure prefixed(const QString &context) const;
    // The same failure, its message put in place of %1 in `wording`.
    Failure reworded(const QString &wording) const { return {kind, wording.arg(message)}; }
};

// The failure's message, or nothing when there is no failure (for messages and test diagnostics).
inline QString messageOf(const std::optional<Failure> &failure)
{
    return failure ? failure->message : QString();
}

} // namespace sluice::model
