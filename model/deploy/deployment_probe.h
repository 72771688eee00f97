// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/connection/connection_profile.h"
#include "redis/redis_client.h"
#include "redis/server_identity.h"

#include <QObject>

#include <functional>

namespace sluice::model {

// What answers behind a connection: PING, then INFO server, then what the client found
// (standalone, a Cluster and its primaries, the primary a Sentinel service names).
struct DeploymentProbe {
    redis::RedisReply ping;       // the PING reply; when it failed nothing else is known
    redis::ServerIdentity server; // not known when INFO was refused (an ACL user may not run it)
    QString infoError;
    QString description;  // "standalone", "cluster of 3 primaries (...)", ...
    qint64 elapsedMs = 0; // from the probe's start to INFO's answer
    bool ok() const { return ping.ok(); }
    // Why the connection cannot be used, when !ok() (a server without functions among the reasons).
    QString problem() const { return ping.errorText(); }
};

void probeDeployment(redis::RedisClient *client, QObject *context, std::function<void(const DeploymentProbe &)> done);

// "Test connection": a connection of its own, opened once (no reconnects) and probed. Deleting the
// test closes it and cancels what is still running; otherwise `finished` is emitted once.
class ConnectionTest : public QObject {
    Q_OBJECT
public:
    // To `profile`'s server with `secrets`, refusing writes when the profile is read-only.
    ConnectionTest(const ConnectionProfile &profile, const ConnectionSecrets &secrets, QObject *parent = nullptr);
    void start();

Q_SIGNALS:
    void finished(const sluice::model::DeploymentProbe &probe);

private:
    redis::RedisClient *m_client;
};

} // namespace sluice::model
