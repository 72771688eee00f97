// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "support/redis_process.h"

#include <memory>
#include <vector>

namespace sluice::test {

// A Redis Cluster of its own for one test or benchmark: `primaries` servers, no replicas, the slots
// split evenly, so one can be frozen or stopped without a failover and without touching the shared
// services. Stopped with this object (and with the test process).
class PrivateCluster {
public:
    explicit PrivateCluster(int primaries, RedisProcess::Patience patience = RedisProcess::Patience::Patient);
    // Starts the servers, creates the cluster and waits until every node says cluster_state:ok.
    bool start();
    RedisProcess &node(int index) { return *m_nodes.at(index); }
    int size() const { return int(m_nodes.size()); }
    // Options that reach the cluster through its first node.
    redis::ConnectionOptions options() const;
    QString errorString() const { return m_error; }

private:
    std::vector<std::unique_ptr<RedisProcess>> m_nodes;
    QString m_error;
};

} // namespace sluice::test
