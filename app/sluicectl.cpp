// sluicectl: what the GUI can do, for operators who script. Errors go to stderr and the exit code
// says what kind of failure it was (app/exit_codes.h).

#include "app/exit_codes.h"
#include "redis/info_reply.h"
#include "redis/redis_connection.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QTextStream>

using namespace sluice;
using redis::RedisReply;

namespace {

QTextStream &out()
{
    static QTextStream stream(stdout);
    return stream;
}

QTextStream &err()
{
    static QTextStream stream(stderr);
    return stream;
}

int usageError(const QString &message)
{
    err() << "sluicectl: " << message << Qt::endl
          << QCoreApplication::translate("sluicectl", "Try 'sluicectl --help'.") << Qt::endl;
    return app::ExitUsage;
}

// Reports a failed reply on stderr and returns the exit code that describes it.
int reportFailure(const redis::ConnectionOptions &options, const RedisReply &reply)
{
    switch (reply.failure) {
    case RedisReply::Failure::None:
        err() << "sluicectl: " << reply.value.toString() << Qt::endl;
        return app::ExitFailure;
    case RedisReply::Failure::Timeout:
        err() << QCoreApplication::translate("sluicectl", "sluicectl: %1 did not answer in time: %2")
                     .arg(options.redactedUrl(), reply.failureMessage)
              << Qt::endl;
        return app::ExitTimeout;
    case RedisReply::Failure::Disconnected:
    case RedisReply::Failure::NotConnected:
        break;
    }
    err() << QCoreApplication::translate("sluicectl", "sluicectl: cannot connect to %1: %2")
                 .arg(options.redactedUrl(), reply.failureMessage)
          << Qt::endl;
    return app::ExitCannotConnect;
}

// ping: proves the server answers, then says what it is.
void ping(redis::RedisConnection *connection)
{
    auto *app = QCoreApplication::instance();
    connection->send({QByteArrayLiteral("PING")}, app, [connection, app](const RedisReply &pong) {
        if (!pong.ok()) {
            QCoreApplication::exit(reportFailure(connection->options(), pong));
            return;
        }
        connection->send({QByteArrayLiteral("INFO"), QByteArrayLiteral("server")}, app,
                         [connection](const RedisReply &info) {
            const QString target = connection->options().redactedUrl();
            if (!info.ok()) {
                out() << QCoreApplication::translate("sluicectl", "PONG from %1 (server details not "
                                                                  "available: %2)")
                             .arg(target, info.errorText())
                      << Qt::endl;
                QCoreApplication::exit(app::ExitOk);
                return;
            }
            const auto fields = redis::parseInfo(info.value.bytes);
            out() << QCoreApplication::translate("sluicectl", "PONG from %1: Redis %2, %3")
                         .arg(target, fields.value(QStringLiteral("redis_version")),
                              fields.value(QStringLiteral("redis_mode"), QStringLiteral("standalone")))
                  << Qt::endl;
            QCoreApplication::exit(app::ExitOk);
        });
    });
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("sluicectl"));
    QCoreApplication::setApplicationVersion(QStringLiteral(SLUICE_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QCoreApplication::translate(
        "sluicectl", "Command-line control for Sluice rate limiters in Redis.\n\n"
                     "Commands:\n"
                     "  ping    check that the server answers; print its version and mode\n\n"
                     "Exit codes: 0 ok, 1 failed, 2 usage error, 3 cannot connect, 4 timeout."));
    const QCommandLineOption helpOption = parser.addHelpOption();
    const QCommandLineOption versionOption = parser.addVersionOption();
    const QCommandLineOption urlOption(
        {QStringLiteral("u"), QStringLiteral("url")},
        QCoreApplication::translate("sluicectl", "Redis URL (redis://, rediss:// or unix://). Default: %1.")
            .arg(QStringLiteral("redis://127.0.0.1:6379")),
        QStringLiteral("url"), QStringLiteral("redis://127.0.0.1:6379"));
    const QCommandLineOption timeoutOption(
        QStringLiteral("timeout"),
        QCoreApplication::translate("sluicectl", "Milliseconds to wait for the connection and each reply."),
        QStringLiteral("ms"), QStringLiteral("5000"));
    parser.addOptions({urlOption, timeoutOption});
    parser.addPositionalArgument(QStringLiteral("command"),
                                 QCoreApplication::translate("sluicectl", "What to do (see Commands)."));

    if (!parser.parse(QCoreApplication::arguments()))
        return usageError(parser.errorText());
    if (parser.isSet(helpOption)) {
        out() << parser.helpText();
        return app::ExitOk;
    }
    if (parser.isSet(versionOption)) {
        out() << "sluicectl " << QCoreApplication::applicationVersion() << Qt::endl;
        return app::ExitOk;
    }

    const QStringList positional = parser.positionalArguments();
    if (positional.isEmpty())
        return usageError(QCoreApplication::translate("sluicectl", "no command given"));
    const QString command = positional.first();
    if (command != QLatin1String("ping"))
        return usageError(QCoreApplication::translate("sluicectl", "unknown command \"%1\"").arg(command));
    if (positional.size() > 1)
        return usageError(QCoreApplication::translate("sluicectl", "ping takes no arguments"));

    redis::ConnectionOptions options;
    QString error;
    if (!redis::ConnectionOptions::fromUrl(parser.value(urlOption), &options, &error))
        return usageError(QCoreApplication::translate("sluicectl", "bad --url: %1").arg(error));
    bool timeoutOk = false;
    const int timeoutMs = parser.value(timeoutOption).toInt(&timeoutOk);
    if (!timeoutOk || timeoutMs <= 0)
        return usageError(QCoreApplication::translate("sluicectl", "--timeout must be a positive number of ms"));
    options.connectTimeoutMs = timeoutMs;
    options.commandTimeoutMs = timeoutMs;
    options.clientName = QStringLiteral("sluicectl");

    redis::RedisConnection connection(options);
    connection.setAutoReconnect(false);
    connection.open();
    ping(&connection);
    return QCoreApplication::exec();
}
