// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLoggingCategory>

// What the Redis layer does, for -v and QT_LOGGING_RULES: off by default (warnings only), never a
// secret (endpoints are printed redacted).
Q_DECLARE_LOGGING_CATEGORY(lcConnection) // sluice.connection: connecting, handshakes, losses, reconnects
Q_DECLARE_LOGGING_CATEGORY(lcRouting)    // sluice.routing: Cluster maps and redirects, Sentinel primaries
