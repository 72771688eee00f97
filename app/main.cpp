// sluice: the desktop control room. With --url it watches that server; with no URL (or --sandbox)
// it starts a private redis-server of its own and stops it on exit.

#include "app/exit_codes.h"
#include "app/quit_on_signal.h"
#include "app/sandbox_demo.h"
#include "app/sandbox_redis.h"
#include "model/server_monitor.h"
#include "redis/redis_client.h"
#include "ui/main_window.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QTextStream>

using namespace sluice;

namespace {

void attach(ui::MainWindow *window, const redis::ConnectionOptions &options, const QString &label)
{
    auto *client = new redis::RedisClient(options, window);
    auto *monitor = new model::ServerMonitor(client, label, 2000, window);
    window->setMonitor(monitor);
    monitor->start();
}

} // namespace

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Sluice"));
    QApplication::setOrganizationName(QStringLiteral("Sluice"));
    QApplication::setApplicationVersion(QStringLiteral(SLUICE_VERSION));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/sluice.svg")));
    app::quitOnTerminationSignals(&app);

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QApplication::translate("main", "Control room for distributed rate limiters running inside Redis."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption urlOption(
        {QStringLiteral("u"), QStringLiteral("url")},
        QApplication::translate("main", "Connect to this Redis (redis://, rediss:// or unix:// URL)."),
        QStringLiteral("url"));
    const QCommandLineOption sandboxOption(
        QStringLiteral("sandbox"),
        QApplication::translate("main", "Start a private redis-server for this session (the default)."));
    const QCommandLineOption sandboxDataOption(
        QStringLiteral("sandbox-data"),
        QApplication::translate("main", "Keep the sandbox's data in this folder across runs."),
        QStringLiteral("folder"));
    parser.addOptions({urlOption, sandboxOption, sandboxDataOption});
    parser.process(app);

    QTextStream err(stderr);
    if (parser.isSet(urlOption) && (parser.isSet(sandboxOption) || parser.isSet(sandboxDataOption))) {
        err << QApplication::translate("main", "sluice: --url and --sandbox exclude each other") << Qt::endl;
        return app::ExitUsage;
    }
    if (!parser.positionalArguments().isEmpty()) {
        err << QApplication::translate("main", "sluice: unexpected argument \"%1\"; see --help")
                   .arg(parser.positionalArguments().first())
            << Qt::endl;
        return app::ExitUsage;
    }

    redis::ConnectionOptions options;
    if (parser.isSet(urlOption)) {
        QString error;
        if (!redis::ConnectionOptions::fromUrl(parser.value(urlOption), &options, &error)) {
            err << QApplication::translate("main", "sluice: bad --url: %1").arg(error) << Qt::endl;
            return app::ExitUsage;
        }
    }

    ui::MainWindow window;
    window.show();

    if (parser.isSet(urlOption)) {
        attach(&window, options, options.redactedUrl());
        return QApplication::exec();
    }

    auto *sandbox = new app::SandboxRedis(&app);
    if (parser.isSet(sandboxDataOption))
        sandbox->setDataDirectory(parser.value(sandboxDataOption));
    window.showStartupMessage(QApplication::translate("main", "Starting the sandbox Redis\u2026"), false);
    QObject::connect(sandbox, &app::SandboxRedis::ready, &window, [&window, sandbox](quint16 port) {
        QTextStream(stdout) << "sluice: sandbox Redis listening on 127.0.0.1:" << port << " in "
                            << sandbox->directory() << Qt::endl;
        redis::ConnectionOptions sandboxOptions;
        sandboxOptions.port = port;
        attach(&window, sandboxOptions,
               QApplication::translate("main", "sandbox Redis at %1").arg(sandboxOptions.address()));
        // Demo policies and traffic, on a connection of their own so the monitor's stays light.
        auto *demoClient = new redis::RedisClient(sandboxOptions, &window);
        demoClient->open();
        auto *demo = new app::SandboxDemo(demoClient, &window);
        QObject::connect(demo, &app::SandboxDemo::failed, &window,
                         [](const QString &reason) { QTextStream(stderr) << "sluice: " << reason << Qt::endl; });
        QObject::connect(demo, &app::SandboxDemo::trafficStarted, &window,
                         [] { QTextStream(stdout) << "sluice: sandbox demo policies published; demo traffic running" << Qt::endl; });
        demo->start();
    });
    QObject::connect(sandbox, &app::SandboxRedis::failed, &window, [&window](const QString &reason) {
        QTextStream(stderr) << "sluice: " << reason << Qt::endl;
        window.showStartupMessage(reason, true);
    });
    sandbox->start();
    const int code = QApplication::exec();
    delete sandbox; // stop the server before the window and the event loop go away
    return code;
}
