// SPDX-License-Identifier: GPL-3.0-or-later
// sluice: the desktop control room. With --profile or a URL (--url, or alone) it connects there; with
// neither (or --sandbox) it starts a private redis-server of its own and stops it on exit.

#include "app/common/exit_codes.h"
#include "app/common/quit_on_signal.h"
#include "app/common/translations.h"
#include "app/sluice/sandbox_demo.h"
#include "app/sluice/sandbox_redis.h"
#include "model/connection/connection_session.h"
#include "model/connection/keychain_secret_store.h"
#include "model/connection/remembering_secret_store.h"
#include "redis/redis_client.h"
#include "ui/connection/credential_resolver.h"
#include "ui/widgets/focus_ring_style.h"
#include "ui/window/main_window.h"
#include "ui/window/window_state.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QLoggingCategory>
#include <QTextStream>

#include <optional>

using namespace sluice;

namespace {

// The dashboard's command line.
struct GuiOptions {
    QCommandLineOption url{
        {QStringLiteral("u"), QStringLiteral("url")},
        QApplication::translate("main", "Connect to this Redis (redis://, rediss:// or unix:// URL)."),
        QStringLiteral("url")};
    QCommandLineOption profile{
        QStringLiteral("profile"),
        QApplication::translate("main", "Connect with this saved connection profile (see File \u2192 Connections)."),
        QStringLiteral("name")};
    QCommandLineOption sandbox{
        QStringLiteral("sandbox"),
        QApplication::translate("main", "Start a private redis-server for this session (the default).")};
    QCommandLineOption sandboxData{
        QStringLiteral("sandbox-data"),
        QApplication::translate("main", "Keep the sandbox's data in this folder across runs."),
        QStringLiteral("folder")};
    QCommandLineOption verbose{{QStringLiteral("v"), QStringLiteral("verbose")},
                               QApplication::translate("main",
                                                       "Say on stderr what is done: connecting, routing, publishing, "
                                                       "firing (never a secret). QT_LOGGING_RULES picks categories.")};
    QCommandLineOption help{{QStringLiteral("h"), QStringLiteral("help")},
                            QApplication::translate("main", "Show this help.")};
    QCommandLineOption version{QStringLiteral("version"), QApplication::translate("main", "Print the version.")};

    void addTo(QCommandLineParser &parser) const
    {
        parser.setApplicationDescription(
            QApplication::translate("main", "Control room for distributed rate limiters running inside Redis."));
        parser.addOptions({url, profile, sandbox, sandboxData, verbose, help, version});
        parser.addPositionalArgument(QStringLiteral("URL"),
                                     QApplication::translate("main", "The same as --url (a desktop opening a link)."),
                                     QStringLiteral("[URL]"));
    }
};

// --help and --version, answered before the application needs a display (packaging and help2man
// run them on none). Nothing when the command line asks for the dashboard, or holds Qt's own
// options, which QApplication takes out first.
std::optional<int> answerWithoutDisplay(int argc, char *argv[])
{
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments << QString::fromLocal8Bit(argv[i]);
    const GuiOptions options;
    QCommandLineParser parser;
    options.addTo(parser);
    if (!parser.parse(arguments))
        return std::nullopt;
    if (parser.isSet(options.help)) {
        // The usage line names the program as its users type it, wherever it was started from.
        int nameCount = 1;
        char name[] = "sluice";
        char *names[] = {name, nullptr};
        const QCoreApplication named(nameCount, names);
        QTextStream(stdout) << parser.helpText();
        return app::ExitOk;
    }
    if (parser.isSet(options.version)) {
        QTextStream(stdout) << "sluice " << QCoreApplication::applicationVersion() << Qt::endl;
        return app::ExitOk;
    }
    return std::nullopt;
}

// A connection that no saved profile describes (--url, the sandbox): dev, namespace sluice.
model::ConnectionProfile unsavedProfile(const QString &name)
{
    model::ConnectionProfile profile;
    profile.name = name;
    return profile;
}

} // namespace

// The embedded default: a sandbox Redis of the app's own in a temporary folder (or `dataDirectory`), with demo
// policies and traffic; stopped before the window goes.
int runOnSandbox(QApplication *app, ui::MainWindow &window, const QString &dataDirectory)
{
    auto *sandbox = new app::SandboxRedis(app);
    if (!dataDirectory.isEmpty())
        sandbox->setDataDirectory(dataDirectory);
    window.showStartupMessage(QApplication::translate("main", "Starting the sandbox Redis\u2026"),
                              ui::MainWindow::StartupState::Starting);
    QObject::connect(sandbox, &app::SandboxRedis::ready, &window, [&window, sandbox](quint16 port) {
        QTextStream(stdout) << "sluice: sandbox Redis listening on 127.0.0.1:" << port << " in " << sandbox->directory()
                            << Qt::endl;
        redis::ConnectionOptions sandboxOptions;
        sandboxOptions.port = port;
        window.setSession(
            std::make_unique<model::ConnectionSession>(unsavedProfile(QStringLiteral("sandbox")), sandboxOptions));
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
        window.showStartupMessage(reason, ui::MainWindow::StartupState::Failed);
    });
    sandbox->start();
    const int code = QApplication::exec();
    delete sandbox; // stop the server before the window and the event loop go away
    return code;
}

int main(int argc, char *argv[])
{
    QApplication::setApplicationName(QStringLiteral("Sluice"));
    QApplication::setOrganizationName(QStringLiteral("Sluice"));
    QApplication::setApplicationVersion(QStringLiteral(SLUICE_VERSION));
    if (const auto answered = answerWithoutDisplay(argc, argv))
        return *answered;
    QApplication app(argc, argv);
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/sluice.svg")));
    QApplication::setStyle(new ui::FocusRingStyle); // the platform's style, with a focus ring that shows
    app::quitOnTerminationSignals(&app);
    app::installTranslations(&app);

    const GuiOptions options;
    QCommandLineParser parser;
    options.addTo(parser);
    parser.process(app);
    if (parser.isSet(options.verbose))
        QLoggingCategory::setFilterRules(QStringLiteral("sluice.*.debug=true"));

    QTextStream err(stderr);
    const QStringList positional = parser.positionalArguments();
    if (positional.size() > 1 || (positional.size() == 1 && !positional.first().contains(QLatin1String("://")))) {
        err << QApplication::translate("main", "sluice: unexpected argument \"%1\"; see --help")
                   .arg(positional.value(positional.size() > 1 ? 1 : 0))
            << Qt::endl;
        return app::ExitUsage;
    }
    // A URL given alone is --url: what a desktop passes when a redis:// link is opened with Sluice.
    const bool urlGiven = parser.isSet(options.url) || !positional.isEmpty();
    const int targets = int(parser.isSet(options.url)) + int(!positional.isEmpty()) + int(parser.isSet(options.profile))
        + int(parser.isSet(options.sandbox) || parser.isSet(options.sandboxData));
    if (targets > 1) {
        err << QApplication::translate("main", "sluice: a URL, --profile and --sandbox exclude each other") << Qt::endl;
        return app::ExitUsage;
    }

    redis::ConnectionOptions target;
    if (urlGiven) {
        QString error;
        const QString url = positional.isEmpty() ? parser.value(options.url) : positional.first();
        if (!redis::ConnectionOptions::fromUrl(url, &target, &error)) {
            err << QApplication::translate("main", "sluice: bad --url: %1").arg(error) << Qt::endl;
            return app::ExitUsage;
        }
        if (!target.password.isEmpty())
            err << QApplication::translate("main",
                                           "sluice: warning: the password in the URL may be seen by other users (in "
                                           "the process list); save it in a connection profile, whose password "
                                           "goes to the keychain")
                << Qt::endl;
    }

    QString settingsProblem;
    const auto settings = model::ProfileSettings::openShared(&settingsProblem);
    if (!settingsProblem.isEmpty())
        err << QApplication::translate("main", "sluice: warning: %1").arg(settingsProblem) << Qt::endl;
    const model::ProfileSettings saved(settings.get());
    std::optional<model::ConnectionProfile> profile;
    // With no target at all: the last used profile while it exists, else the connection list when
    // profiles are saved; the sandbox only on a machine with none (a first run has nothing else).
    const bool noTarget = targets == 0;
    QString launchNote;
    if (noTarget && !saved.lastUsed().isEmpty()) {
        profile = saved.profile(saved.lastUsed());
        if (!profile)
            launchNote = QApplication::translate("main", "The last used connection \u201c%1\u201d is gone: choose one.")
                             .arg(saved.lastUsed());
    }
    const bool chooseConnection = noTarget && !profile && !saved.profiles().isEmpty();
    if (parser.isSet(options.profile)) {
        profile = model::ProfileSettings(settings.get()).profile(parser.value(options.profile));
        if (!profile) {
            err << QApplication::translate("main", "sluice: no usable connection profile named \"%1\" in %2")
                       .arg(parser.value(options.profile), settings->fileName())
                << Qt::endl;
            return app::ExitUsage;
        }
    }

    model::KeychainSecretStore keychain;
    // Without a keychain, a secret the operator typed is kept for this run (in memory only).
    model::RememberingSecretStore secretStore(&keychain);
    ui::MainWindow window;
    window.setProfileStorage(settings.get(), &secretStore);
    window.setRateHistoryDirectory(model::RateHistoryStore::defaultDirectory());
    ui::restoreWindowState(&window, settings.get());
    QObject::connect(&app, &QApplication::aboutToQuit, &window,
                     [&window, &settings] { ui::saveWindowState(&window, settings.get()); });
    window.show();

    if (urlGiven) {
        window.setSession(std::make_unique<model::ConnectionSession>(unsavedProfile({}), target));
        return QApplication::exec();
    }
    if (chooseConnection) {
        QTextStream(stdout) << "sluice: opening the connection list" << Qt::endl;
        window.showStartupMessage(
            launchNote.isEmpty() ? QApplication::translate("main", "Choose a connection (File \u2192 Connections).")
                                 : launchNote,
            ui::MainWindow::StartupState::Waiting);
        window.openConnectionManager();
        return QApplication::exec();
    }
    if (profile) {
        QTextStream(stdout) << "sluice: opening connection \"" << profile->name << "\"" << Qt::endl;
        window.showStartupMessage(
            QApplication::translate("main", "Reading the credentials of \u201c%1\u201d\u2026").arg(profile->name),
            ui::MainWindow::StartupState::Starting);
        auto *resolver = new ui::CredentialResolver(&secretStore, &window);
        resolver->resolve(*profile, {},
                          [&window, profile = *profile](const std::optional<model::ConnectionSecrets> &secrets) {
            if (secrets)
                window.openProfileSession(profile, *secrets);
            else
                window.showStartupMessage(
                    QApplication::translate("main", "Not connected: no password given. Use File \u2192 Connections."),
                    ui::MainWindow::StartupState::Waiting);
        });
        return QApplication::exec();
    }

    return runOnSandbox(&app, window,
                        parser.isSet(options.sandboxData) ? parser.value(options.sandboxData) : QString());
}
