// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "redis/resp_value.h"

#include <QString>
#include <QVector>

#include <optional>

namespace sluice::redis {

constexpr int clusterSlotCount = 16384;

// The Cluster slot of a key: CRC16 (XMODEM) of the key, or of its hash tag, the part between the
// first '{' and the next '}' when that part is not empty.
int keySlot(const QByteArray &key);

struct ClusterNode {
    QString id;
    QString host;
    quint16 port = 0;
    bool primary = false;
    bool online = false;
};

struct ClusterShard {
    QVector<QPair<int, int>> slotRanges; // inclusive
    QVector<ClusterNode> nodes;
    const ClusterNode *primary() const;
};

// Who serves which slots, as CLUSTER SHARDS (Redis 7) reports it.
struct ClusterTopology {
    QVector<ClusterShard> shards;

    // tls: read each node's TLS port instead of its plain one.
    static std::optional<ClusterTopology> fromShards(const RespValue &reply, bool tls, QString *error);

    const ClusterNode *ownerOf(int slot) const;
    QVector<ClusterNode> primaries() const;
};

} // namespace sluice::redis
