#include "app/ctl_request.h"

#include "app/exit_codes.h"

#include <QCoreApplication>

namespace sluice::app {

using redis::RedisReply;

QTextStream &ctlOut()
{
    static QTextStream stream(stdout);
    return stream;
}

QTextStream &ctlErr()
{
    static QTextStream stream(stderr);
    return stream;
}

void failCommand(const char *command, const QString &message, int code)
{
    ctlErr() << "sluicectl: " << command << ": " << message << Qt::endl;
    QCoreApplication::exit(code);
}

int reportFailure(const CtlRequest &request, const RedisReply &reply)
{
    const QString target = request.client->options().redactedUrl();
    switch (reply.failure) {
    case RedisReply::Failure::None:
        ctlErr() << "sluicectl: " << reply.value.toString() << Qt::endl;
        return ExitFailure;
    case RedisReply::Failure::Timeout:
        ctlErr() << QCoreApplication::translate("sluicectl", "sluicectl: %1 did not answer in time: %2")
                        .arg(target, reply.failureMessage)
                 << Qt::endl;
        return ExitTimeout;
    case RedisReply::Failure::Refused:
        ctlErr() << "sluicectl: " << reply.failureMessage << Qt::endl;
        return ExitRefused;
    case RedisReply::Failure::Disconnected:
    case RedisReply::Failure::NotConnected:
        break;
    }
    ctlErr() << QCoreApplication::translate("sluicectl", "sluicectl: cannot connect to %1: %2")
                    .arg(target, reply.failureMessage)
             << Qt::endl;
    return ExitCannotConnect;
}

} // namespace sluice::app
