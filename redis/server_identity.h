// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QHash>
#include <QString>

#include <optional>

namespace sluice::redis {

// Which server answers, from INFO server: Redis, or Valkey (which also reports the Redis version it
// is compatible with, so its own name and version are read first), and whether it has functions
// (Redis 7.0 brought them), which everything Sluice does rests on: every connection's handshake
// asks, and refuses a server without them.
struct ServerIdentity {
    QString product;                             // "Redis" or "Valkey"; empty when INFO gave no version
    QString version;                             // the product's own version: "7.0.15", "8.0.1"
    QString mode = QStringLiteral("standalone"); // standalone, cluster or sentinel

    static ServerIdentity fromInfo(const QHash<QString, QString> &info);
    bool known() const { return !version.isEmpty(); }
    // "Redis 7.0.15", "Valkey 8.0.1"
    QString displayName() const;
    // Why Sluice cannot use this server, or nothing (also when the version is not known).
    std::optional<QString> unsupported() const;
};

} // namespace sluice::redis
