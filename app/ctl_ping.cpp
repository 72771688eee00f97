// sluicectl ping: proves the server answers, then says what it is.

#include "app/ctl_request.h"
#include "app/exit_codes.h"
#include "redis/info_reply.h"

#include <QCoreApplication>

namespace sluice::app {

using redis::RedisReply;

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
                                .arg(target, fields.value(QStringLiteral("redis_version")),
                                     fields.value(QStringLiteral("redis_mode"), QStringLiteral("standalone")))
                         << Qt::endl;
            }
            QCoreApplication::exit(ExitOk);
        });
    });
}

} // namespace sluice::app
