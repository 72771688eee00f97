// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "redis/server_identity.h"

#include <QHash>
#include <QMetaType>
#include <QString>

namespace sluice::model {

// What the dashboard shows about the server it is connected to, decoded from one INFO reply.
struct ServerStatus {
    redis::ServerIdentity server; // Redis or Valkey, its version and mode
    QString role;                 // master or slave (Redis' own words)
    qint64 uptimeSeconds = 0;
    qint64 usedMemoryBytes = 0;
    qint64 peakMemoryBytes = 0;
    qint64 maxMemoryBytes = 0; // 0: no limit
    QString maxmemoryPolicy;   // what it drops when memory runs out (noeviction, allkeys-lru, ...)
    qint64 evictedKeys = 0;    // since the server started, the whole server's
    qint64 connectedClients = 0;
    qint64 opsPerSecond = 0;
    qint64 keys = 0; // over every database
    bool aofEnabled = false;
    bool rdbEnabled = false; // save points configured (from CONFIG GET save)
    bool rdbKnown = false;   // false when this user may not run CONFIG GET

    static ServerStatus fromInfo(const QHash<QString, QString> &info);
};

} // namespace sluice::model

Q_DECLARE_METATYPE(sluice::model::ServerStatus)
