// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "redis/resp_value.h"

#include <QString>

namespace sluice::redis {

// The outcome of one command: a server reply (which may be a Redis error) or a client-side failure.
struct RedisReply {
    // Timeout (no connection in time) and NotConnected: the command was never written, so it did
    // not run. Disconnected: it was written and then the connection broke; NoReply: it was written
    // and no reply came in time. Either way it may have run. Refused: the client would not send it
    // (a write on a read-only client).
    enum class Failure { None, Timeout, Disconnected, NoReply, NotConnected, Refused };

    RespValue value;
    Failure failure = Failure::None;
    QString failureMessage;

    // True when the server answered with something other than an error reply.
    bool ok() const { return failure == Failure::None && !value.isError(); }
    // The server's error text or the client's failure, for messages.
    QString errorText() const { return failure != Failure::None ? failureMessage : value.toString(); }
};

} // namespace sluice::redis
