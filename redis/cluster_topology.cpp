// SPDX-License-Identifier: GPL-3.0-or-later
#include "redis/cluster_topology.h"

#include <QCoreApplication>

namespace sluice::redis {

namespace {

quint16 crc16(const char *data, qsizetype length)
{
    quint16 crc = 0;
    for (qsizetype i = 0; i < length; ++i) {
        crc ^= static_cast<quint16>(static_cast<unsigned char>(data[i]) << 8);
        for (int bit = 0; bit < 8; ++bit)
            crc = (crc & 0x8000) ? static_cast<quint16>((crc << 1) ^ 0x1021) : static_cast<quint16>(crc << 1);
    }
    return crc;
}

// This file's strings, under the context a translator sees them in.
struct Text {
    Q_DECLARE_TR_FUNCTIONS(sluice::redis::ClusterTopology)
};

} // namespace

int keySlot(const QByteArray &key)
{
    const qsizetype open = key.indexOf('{');
    if (open >= 0) {
        const qsizetype close = key.indexOf('}', open + 1);
        if (close > open + 1)
            return crc16(key.constData() + open + 1, close - open - 1) % clusterSlotCount;
    }
    return crc16(key.constData(), key.size()) % clusterSlotCount;
}

const ClusterNode *ClusterShard::primary() const
{
    for (const ClusterNode &node : nodes)
        if (node.primary)
            return &node;
    return nullptr;
}

std::optional<ClusterTopology> ClusterTopology::fromShards(const RespValue &reply, bool tls, QString *error)
{
    if (!reply.isArray() || reply.elements.isEmpty()) {
        *error = Text::tr("CLUSTER SHARDS did not answer a list of shards");
        return std::nullopt;
    }
    ClusterTopology topology;
    for (const RespValue &shardValue : reply.elements) {
        const RespValue *slots = shardValue.field("slots");
        const RespValue *nodes = shardValue.field("nodes");
        if (!slots || !nodes || slots->elements.size() % 2 != 0) {
            *error = Text::tr("CLUSTER SHARDS answered a shard without slots or nodes");
            return std::nullopt;
        }
        ClusterShard shard;
        for (qsizetype i = 0; i < slots->elements.size(); i += 2) {
            const qint64 first = slots->elements.at(i).integer, last = slots->elements.at(i + 1).integer;
            if (first < 0 || last < first || last >= clusterSlotCount) {
                *error = Text::tr("CLUSTER SHARDS answered the slot range %1-%2").arg(first).arg(last);
                return std::nullopt;
            }
            shard.slotRanges.append({static_cast<int>(first), static_cast<int>(last)});
        }
        for (const RespValue &nodeValue : nodes->elements) {
            ClusterNode node;
            const RespValue *id = nodeValue.field("id");
            const RespValue *ip = nodeValue.field("ip");
            const RespValue *endpoint = nodeValue.field("endpoint");
            const RespValue *port = nodeValue.field(tls ? "tls-port" : "port");
            const RespValue *role = nodeValue.field("role");
            const RespValue *health = nodeValue.field("health");
            if (!id || !port || !role || (!ip && !endpoint)) {
                *error = Text::tr("CLUSTER SHARDS answered a node without id, address, port or role");
                return std::nullopt;
            }
            node.id = id->toString();
            // "?" means the node announces no endpoint of its own; its IP then serves.
            node.host = endpoint && !endpoint->bytes.isEmpty() && endpoint->bytes != "?" ? endpoint->toString()
                                                                                         : ip->toString();
            node.port = static_cast<quint16>(port->integer);
            node.primary = role->bytes == "master";
            node.online = health && health->bytes == "online";
            shard.nodes.append(node);
        }
        topology.shards.append(shard);
    }
    return topology;
}

const ClusterNode *ClusterTopology::ownerOf(int slot) const
{
    for (const ClusterShard &shard : shards)
        for (const auto &[first, last] : shard.slotRanges)
            if (slot >= first && slot <= last)
                return shard.primary();
    return nullptr;
}

QVector<ClusterNode> ClusterTopology::primaries() const
{
    QVector<ClusterNode> result;
    for (const ClusterShard &shard : shards)
        if (const ClusterNode *primary = shard.primary(); primary && !shard.slotRanges.isEmpty())
            result.append(*primary);
    return result;
}

} // namespace sluice::redis
