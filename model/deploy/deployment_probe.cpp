// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/deploy/deployment_probe.h"

#include "redis/info_reply.h"

#include <QCoreApplication>
#include <QElapsedTimer>

namespace sluice::model {

using redis::RedisClient;
using redis::RedisReply;

namespace {

QString describe(const RedisClient &client, const QString &serverMode)
{
    const QStringList primaries = client.primaries();
    switch (client.kind()) {
    case RedisClient::Kind::Cluster:
        return QCoreApplication::translate("sluice::model::DeploymentProbe", "cluster of %n primaries (%1)", nullptr,
                                           static_cast<int>(primaries.size()))
            .arg(primaries.join(QLatin1String(", ")));
    case RedisClient::Kind::Sentinel:
        return QCoreApplication::translate("sluice::model::DeploymentProbe", "primary %1 of Sentinel service \"%2\"")
            .arg(primaries.value(0), client.options().sentinelService);
    case RedisClient::Kind::Standalone:
    case RedisClient::Kind::Unknown: break;
    }
    return serverMode; // "standalone", or "sentinel" when pointed at a sentinel itself
}

} // namespace

void probeDeployment(RedisClient *client, QObject *context, std::function<void(const DeploymentProbe &)> done)
{
    QElapsedTimer clock;
    clock.start();
    client->send({"PING"}, context, [client, context, done, clock](const RedisReply &pong) {
        DeploymentProbe probe;
        probe.ping = pong;
        if (!pong.ok()) {
            probe.elapsedMs = clock.elapsed();
            done(probe);
            return;
        }
        client->send({"INFO", "server"}, context, [client, done, clock, probe](const RedisReply &info) mutable {
            probe.elapsedMs = clock.elapsed();
            if (info.ok())
                probe.server = redis::ServerIdentity::fromInfo(redis::parseInfo(info.value.bytes));
            else
                probe.infoError = info.errorText();
            probe.description = describe(*client, probe.server.mode);
            done(probe);
        });
    });
}

ConnectionTest::ConnectionTest(const ConnectionProfile &profile, const ConnectionSecrets &secrets, QObject *parent)
    : QObject(parent)
    , m_client(new RedisClient(profile.resolved(secrets), this))
{
    m_client->setAutoReconnect(false);
    m_client->setReadOnly(profile.readOnly);
}

void ConnectionTest::start()
{
    m_client->open();
    probeDeployment(m_client, this, [this](const DeploymentProbe &probe) { Q_EMIT finished(probe); });
}

} // namespace sluice::model
