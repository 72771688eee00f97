// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "redis/connection_options.h"

#include <QByteArrayList>

#include <optional>

namespace sluice::redis {

// The key a command is routed by in a Cluster: the first key of FCALL/EVAL-style commands, none
// for server commands (PING, INFO, FUNCTION, SCAN...), otherwise the first argument.
std::optional<QByteArray> routingKey(const QByteArrayList &args);

// A Cluster's answer that a slot lives elsewhere: "MOVED <slot> <host:port>" for good,
// "ASK <slot> <host:port>" for the next command only (the slot is being migrated).
struct Redirect {
    bool ask = false;
    int slot = 0;
    HostPort node;
};

// Reads a MOVED or ASK error; an empty host means the host that answered (`answeredBy`).
std::optional<Redirect> parseRedirect(const QByteArray &error, const QString &answeredBy);

} // namespace sluice::redis
