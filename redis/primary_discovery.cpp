#include "redis/primary_discovery.h"

#include "redis/cluster_topology.h"
#include "redis/info_reply.h"

#include <QCoreApplication>

namespace sluice::redis {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("sluice::redis::PrimaryDiscovery", text);
}

Primaries failed(const RedisReply &reply, const QString &what)
{
    Primaries result;
    result.error = what.arg(reply.errorText());
    result.unreachable = reply.failure != RedisReply::Failure::None;
    return result;
}

} // namespace

void discoverPrimaries(RedisConnection *seed, const QByteArray &adminKey, QObject *context,
                       std::function<void(const Primaries &)> done)
{
    seed->send({"INFO", "server"}, context, [seed, adminKey, context, done](const RedisReply &info) {
        if (!info.ok()) {
            done(failed(info, tr("cannot ask the server what it is: %1")));
            return;
        }
        if (parseInfo(info.value.bytes).value(QStringLiteral("redis_mode")) != QLatin1String("cluster")) {
            done({{seed->options()}, 0, false, {}, false});
            return;
        }
        seed->send({"CLUSTER", "SHARDS"}, context, [seed, adminKey, done](const RedisReply &shards) {
            if (!shards.ok()) {
                done(failed(shards, tr("cannot read the Cluster's shards: %1")));
                return;
            }
            const ConnectionOptions &seedOptions = seed->options();
            Primaries result;
            result.cluster = true;
            const auto topology = ClusterTopology::fromShards(shards.value, seedOptions.transport == ConnectionOptions::Transport::Tls, &result.error);
            if (!topology) {
                done(result);
                return;
            }
            const ClusterNode *admin = topology->ownerOf(keySlot(adminKey));
            for (const ClusterNode &node : topology->primaries()) {
                ConnectionOptions options = seedOptions;
                options.transport = options.transport == ConnectionOptions::Transport::Unix ? ConnectionOptions::Transport::Tcp
                                                                                            : options.transport;
                options.socketPath.clear();
                options.host = node.host;
                options.port = node.port;
                if (admin && node.id == admin->id)
                    result.adminIndex = static_cast<int>(result.nodes.size());
                result.nodes.append(options);
            }
            if (!admin)
                result.error = tr("no primary serves slot %1 of the admin keys").arg(keySlot(adminKey));
            done(result);
        });
    });
}

} // namespace sluice::redis
