#pragma once

#include "redis/connection_options.h"
#include "redis/redis_connection.h"

#include <functional>

namespace sluice::redis {

struct Primaries {
    QVector<ConnectionOptions> nodes; // the seed alone when it is not a Cluster node
    int adminIndex = 0;               // the node that serves the admin key's slot
    bool cluster = false;
    QString error;                    // nodes is empty then
    bool unreachable = false;
};

// Finds the primaries behind a connection: the server itself when it is standalone (or a
// Sentinel's primary), every primary when it is a Cluster node. Each node's options are the
// seed's with the node's address, so credentials and TLS settings carry over.
void discoverPrimaries(RedisConnection *seed, const QByteArray &adminKey, QObject *context,
                       std::function<void(const Primaries &)> done);

} // namespace sluice::redis
