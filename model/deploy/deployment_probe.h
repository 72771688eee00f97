#pragma once

#include "redis/redis_client.h"

#include <functional>

namespace sluice::model {

// What answers behind a connection: PING, then INFO server, then what the client found
// (standalone, a Cluster and its primaries, the primary a Sentinel service names).
struct DeploymentProbe {
    redis::RedisReply ping;   // the PING reply; when it failed nothing else is known
    QString version;          // empty when INFO was refused (an ACL user may not run it)
    QString infoError;
    QString description;      // "standalone", "cluster of 3 primaries (...)", ...
    qint64 elapsedMs = 0;     // from the probe's start to INFO's answer
    bool ok() const { return ping.ok(); }
};

void probeDeployment(redis::RedisClient *client, QObject *context, std::function<void(const DeploymentProbe &)> done);

} // namespace sluice::model
