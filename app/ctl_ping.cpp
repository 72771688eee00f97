// sluicectl ping: proves the server answers, then says what it is.

#include "app/ctl_request.h"
#include "app/exit_codes.h"
#include "redis/info_reply.h"

#include <QCoreApplication>

namespace sluice::app {

using redis::RedisReply;

namespace {

// What the client found behind the URL.
QString deploymentText(const redis::RedisClient &client, const QString &serverMode)
{
    const QStringList primaries = client.primaries();
    switch (client.kind()) {
    case redis::RedisClient::Kind::Cluster:
        return QCoreApplication::translate("sluicectl", "cluster of %n primaries (%1)", nullptr, static_cast<int>(primaries.size()))
            .arg(primaries.join(QLatin1String(", ")));
    case redis::RedisClient::Kind::Sentinel:
        return QCoreApplication::translate("sluicectl", "primary %1 of Sentinel service \"%2\"")
            .arg(primaries.value(0), client.options().sentinelService);
    case redis::RedisClient::Kind::Standalone:
    case redis::RedisClient::Kind::Unknown:
        break;
    }
    return serverMode; // "standalone", or "sentinel" when pointed at a sentinel itself
}

} // namespace

void runPing(const CtlRequest &request)
{
    auto *app = QCoreApplication::instance();
    request.client->send({"PING"}, app, [request, app](const RedisReply &pong) {
        if (!pong.ok()) {
            QCoreApplication::exit(reportFailure(request, pong));
            return;
        }
        request.client->send({"INFO", "server"}, app, [request](const RedisReply &info) {
            const QString target = request.client->options().redactedUrl();
            if (!info.ok()) {
                ctlOut() << QCoreApplication::translate("sluicectl", "PONG from %1 (server details not available: %2)")
                                .arg(target, info.errorText())
                         << Qt::endl;
            } else {
                const auto fields = redis::parseInfo(info.value.bytes);
                ctlOut() << QCoreApplication::translate("sluicectl", "PONG from %1: Redis %2, %3")
                                .arg(target, fields.value(QStringLiteral("redis_version")), deploymentText(*request.client, fields.value(QStringLiteral("redis_mode"), QStringLiteral("standalone"))))
                         << Qt::endl;
            }
            QCoreApplication::exit(ExitOk);
        });
    });
}

} // namespace sluice::app
