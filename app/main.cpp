// sluice: the desktop control room. With --profile or --url it connects there; with neither (or
// --sandbox) it starts a private redis-server of its own and stops it on exit.

#include "model/connection/keychain_secret_store.h"
#include "app/exit_codes.h"
#include "app/quit_on_signal.h"
#include "app/sandbox_demo.h"
#include "app/sandbox_redis.h"
#include "model/connection/connection_session.h"
#include "redis/redis_client.h"
#include "ui/credential_resolver.h"
#include "ui/main_window.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QTextStream>

#include <optional>

using namespace sluice;

namespace {

// A connection that no saved profile describes (--url, the sandbox): dev, namespace sluice.
model::ConnectionProfile unsavedProfile(const QString &name)
{
    model::ConnectionProfile profile;
    profile.name = name;
    return profile;
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
    const QCommandLineOption profileOption(
        QStringLiteral("profile"),
        QApplication::translate("main", "Connect with this saved connection profile (see File \u2192 Connections)."),
        QStringLiteral("name"));
    parser.addOptions({urlOption, profileOption, sandboxOption, sandboxDataOption});
    parser.process(app);

    QTextStream err(stderr);
    const int targets = int(parser.isSet(urlOption)) + int(parser.isSet(profileOption))
        + int(parser.isSet(sandboxOption) || parser.isSet(sandboxDataOption));
    if (targets > 1) {
        err << QApplication::translate("main", "sluice: --url, --profile and --sandbox exclude each other") << Qt::endl;
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

    const auto settings = model::ProfileSettings::openShared();
    std::optional<model::ConnectionProfile> profile;
    if (parser.isSet(profileOption)) {
        profile = model::ProfileSettings(settings.get()).profile(parser.value(profileOption));
        if (!profile) {
            err << QApplication::translate("main", "sluice: no usable connection profile named \"%1\" in %2")
                       .arg(parser.value(profileOption), settings->fileName())
                << Qt::endl;
            return app::ExitUsage;
        }
    }

    model::KeychainSecretStore keychain;
    ui::MainWindow window;
    window.setProfileStorage(settings.get(), &keychain);
    window.show();

    if (parser.isSet(urlOption)) {
        window.setSession(new model::ConnectionSession(unsavedProfile({}), options));
        return QApplication::exec();
    }
    if (profile) {
        window.showStartupMessage(
            QApplication::translate("main", "Reading the credentials of \u201c%1\u201d\u2026").arg(profile->name),
            false);
        auto *resolver = new ui::CredentialResolver(&keychain, &window);
        resolver->resolve(*profile, {},
                          [&window, profile = *profile](const std::optional<redis::ConnectionOptions> &resolved) {
            if (resolved)
                window.setSession(new model::ConnectionSession(profile, *resolved));
            else
                window.showStartupMessage(
                    QApplication::translate("main", "Not connected: no password given. Use File \u2192 Connections."),
                    true);
        });
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
        window.setSession(new model::ConnectionSession(unsavedProfile(QStringLiteral("sandbox")), sandboxOptions));
        // Demo policies and traffic, on a connection of their own so the monitor's stays light.
        auto *demoClient = new redis::RedisClient(sandboxOptions, &window);
        demoClient->open();
        auto *demo = new app::SandboxDemo(demoClient, &window);
        QObject::connect(demo, &app::SandboxDemo::failed, &window,
                         [](const QString &reason) { QTextStream(stderr) << "sluice: " << reason << Qt::endl; });
        QObject::connect(demo, &app::SandboxDemo::trafficStarted, &window, [] {
            QTextStream(stdout) << "sluice: sandbox demo policies published; demo traffic running" << Qt::endl;
        });
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
