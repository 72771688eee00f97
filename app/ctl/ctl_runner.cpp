// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/ctl/ctl_runner.h"

#include "app/common/exit_codes.h"
#include "app/ctl/ctl_commands.h"
#include "app/ctl/ctl_connection_flags.h"
#include "app/ctl/ctl_fire_flags.h"
#include "app/ctl/ctl_help.h"
#include "app/ctl/ctl_options.h"
#include "app/ctl/ctl_request.h"
#include "app/ctl/terminal_stream.h"
#include "model/connection/connection_profile.h"
#include "model/connection/key_namespace.h"
#include "model/connection/keychain_secret_store.h"
#include "model/connection/profile_secrets.h"
#include "model/policy/operator_identity.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QEventLoop>
#include <QLoggingCategory>
#include <QPointer>

#include <memory>
#include <optional>

using namespace sluice;
using app::ctlErr;
using app::ctlOut;

namespace {

int usageError(const QString &message)
{
    ctlErr() << "sluicectl: " << message << Qt::endl
             << QCoreApplication::translate("sluicectl", "Try 'sluicectl --help'.") << Qt::endl;
    return app::ExitUsage;
}

// sluicectl help [COMMAND] [--commands | --options COMMAND].
int printHelp(const app::CtlHelp &help, const QCommandLineParser &parser, const app::CtlOptions &flags,
              const QStringList &arguments)
{
    if (parser.isSet(flags.commandNames)) {
        if (!arguments.isEmpty())
            return usageError(QCoreApplication::translate("sluicectl", "help --commands takes no command"));
        ctlOut() << help.commandNames().join(QLatin1Char('\n')) << Qt::endl;
        return app::ExitOk;
    }
    if (arguments.isEmpty()) {
        if (parser.isSet(flags.optionNames))
            return usageError(QCoreApplication::translate("sluicectl", "usage: sluicectl help --options COMMAND"));
        ctlOut() << help.topLevel();
        return app::ExitOk;
    }
    const app::CtlCommand *command = app::findCtlCommand(arguments.constFirst());
    if (!command)
        return usageError(
            QCoreApplication::translate("sluicectl", "unknown command \"%1\"").arg(arguments.constFirst()));
    if (parser.isSet(flags.optionNames))
        ctlOut() << help.optionSpellings(*command).join(QLatin1Char('\n')) << Qt::endl;
    else
        ctlOut() << help.commandPage(*command);
    return app::ExitOk;
}

// Where the command connects: a saved profile's options or the connection flags', with --timeout. The usage
// error's exit code when the command line says it wrongly.
std::optional<int> readTarget(const QCommandLineParser &parser, const app::CtlOptions &flags,
                              const app::CtlConnectionFlags &connectionFlags, redis::ConnectionOptions *target,
                              std::optional<model::ConnectionProfile> *chosen)
{
    redis::ConnectionOptions &options = *target;
    std::optional<model::ConnectionProfile> &profile = *chosen;
    if (parser.isSet(flags.profile)) {
        if (connectionFlags.givesUrl(parser))
            return usageError(
                QCoreApplication::translate("sluicectl", "--profile and -u both say where to connect; give one"));
        QString settingsProblem;
        const auto settings = model::ProfileSettings::openShared(&settingsProblem);
        if (!settingsProblem.isEmpty())
            return usageError(settingsProblem);
        profile = model::ProfileSettings(settings.get()).profile(parser.value(flags.profile));
        if (!profile)
            return usageError(QCoreApplication::translate("sluicectl",
                                                          "no usable connection profile named \"%1\" in %2 "
                                                          "(sluicectl profiles lists them)")
                                  .arg(parser.value(flags.profile), settings->fileName()));
        options = profile->options;
    }
    QString error, warning;
    if (!connectionFlags.read(parser, &options, &error, &warning))
        return usageError(error);
    if (!warning.isEmpty())
        ctlErr() << "sluicectl: " << warning << Qt::endl;
    if (!options.verifyPeer)
        ctlErr() << QCoreApplication::translate(
            "sluicectl", "sluicectl: warning: --insecure: the server's certificate is not verified")
                 << Qt::endl;
    bool timeoutOk = false;
    const int timeoutMs = parser.value(flags.timeout).toInt(&timeoutOk);
    if (!timeoutOk || timeoutMs <= 0)
        return usageError(QCoreApplication::translate("sluicectl", "--timeout must be a positive number of ms"));
    options.connectTimeoutMs = timeoutMs;
    options.commandTimeoutMs = timeoutMs;
    options.clientName = QStringLiteral("sluicectl");
    return std::nullopt;
}

// A write the profile refuses (read-only, or production without --yes), refused before anything is sent: its
// exit code.
std::optional<int> refusedByProfile(const app::CtlRequest &request, const app::CtlCommand *command,
                                    const std::optional<model::ConnectionProfile> &profile, bool confirmed)
{
    const bool writes = command->access == app::Access::Writes || command->access == app::Access::FiresTraffic
        || (command->access == app::Access::WritesUnlessDryRun && !request.isSet("dry-run"))
        || (command->access == app::Access::WritesWhenGivenArguments && !request.args.isEmpty());
    const bool asksOnProduction
        = writes && (command->access != app::Access::FiresTraffic || request.fire.plan.realKeys);
    if (profile && writes && profile->readOnly) {
        return app::report(request,
                           {model::Failure::Kind::Refused,
                            QCoreApplication::translate("sluicectl", "profile \"%1\" is read-only and %2 writes")
                                .arg(profile->name, command->name)});
    }
    if (profile && asksOnProduction && profile->writesNeedConfirmation() && !confirmed) {
        return app::report(request,
                           {model::Failure::Kind::Refused,
                            QCoreApplication::translate("sluicectl",
                                                        "profile \"%1\" is production and %2 writes: "
                                                        "add --yes to confirm")
                                .arg(profile->name, command->name)});
    }
    return std::nullopt;
}

// A command's end: its exit code, once. The loop it runs in returns it, and is not entered when the code came first.
class CommandEnd {
public:
    explicit CommandEnd(QEventLoop *loop)
        : m_loop(loop)
    {
    }
    void finish(int code)
    {
        if (m_code)
            return;
        m_code = code;
        if (m_loop)
            m_loop->exit(code);
    }
    int wait() { return m_code ? *m_code : m_loop->exec(); }

private:
    QPointer<QEventLoop> m_loop; // gone when a late reply finishes a command whose caller has returned
    std::optional<int> m_code;
};

// A command's connection: the keychain its profile's secrets may come from, and the client (closed first).
struct CommandConnection {
    model::KeychainSecretStore keychain;
    std::unique_ptr<redis::RedisClient> client;
};

// Opens the command's client, with the profile's secrets unless the flags give a password, from inside the loop
// of `context`, then runs the command on it.
void connectAndRun(CommandConnection *connection, const app::CtlCommand *command, app::CtlRequest request,
                   redis::ConnectionOptions options, const std::optional<model::ConnectionProfile> &profile,
                   bool secretsFromFlags, QObject *context)
{
    auto start = [connection, command, request,
                  readOnly = profile && profile->readOnly](const redis::ConnectionOptions &resolved) mutable {
        connection->client = std::make_unique<redis::RedisClient>(resolved);
        connection->client->setAutoReconnect(false);
        connection->client->setReadOnly(readOnly);
        connection->client->open();
        request.client = connection->client.get();
        command->run(request);
    };
    if (profile && !secretsFromFlags) {
        // The profile's own secrets first; REDISCLI_AUTH and SLUICE_TLS_KEY_PASSPHRASE when the keychain has none.
        model::readProfileSecrets(connection->keychain, *profile, context,
                                  [options, start, name = profile->name](const model::ProfileSecrets &secrets) mutable {
            if (secrets.password)
                options.password = *secrets.password;
            if (secrets.keyPassphrase)
                options.keyPassphrase = *secrets.keyPassphrase;
            if (!secrets.keychainError.isEmpty() && options.password.isEmpty())
                ctlErr() << QCoreApplication::translate("sluicectl",
                                                        "sluicectl: the keychain did not answer (%1); "
                                                        "connecting to profile \"%2\" without its password "
                                                        "(REDISCLI_AUTH can give it)")
                                .arg(secrets.keychainError, name)
                         << Qt::endl;
            start(options);
        });
    } else {
        QMetaObject::invokeMethod(
            context, [start, options]() mutable { start(options); }, Qt::QueuedConnection);
    }
}

} // namespace

namespace sluice::app {

int runSluicectl(const QStringList &arguments, QTextStream &out, QTextStream &err)
{
    TerminalStream safeOut(out), safeErr(err);
    QTextStream printed(&safeOut), errors(&safeErr);
    const CtlStreams streams(printed, errors, &out);
    QCommandLineParser parser;
    const app::CtlOptions flags;
    const app::CtlConnectionFlags connectionFlags;
    const app::CtlFireFlags fireFlags;
    const app::CtlHelp help(flags.general(), connectionFlags.options(), flags.commandOptions() + fireFlags.options());
    parser.addOptions(flags.general() + connectionFlags.options() + flags.commandOptions() + fireFlags.options());
    parser.addPositionalArgument(QStringLiteral("command"),
                                 QCoreApplication::translate("sluicectl", "What to do (see Commands)."));

    if (!parser.parse(arguments))
        return usageError(parser.errorText());
    if (parser.isSet(flags.version)) {
        ctlOut() << "sluicectl " << QStringLiteral(SLUICE_VERSION) << Qt::endl;
        return app::ExitOk;
    }
    if (parser.isSet(flags.verbose))
        QLoggingCategory::setFilterRules(QStringLiteral("sluice.*.debug=true"));

    QStringList positional = parser.positionalArguments();
    if (positional.isEmpty())
        return parser.isSet(flags.help) ? printHelp(help, parser, flags, {})
                                        : usageError(QCoreApplication::translate("sluicectl", "no command given"));
    const QString name = positional.takeFirst();
    const app::CtlCommand *command = app::findCtlCommand(name);
    if (!command)
        return usageError(QCoreApplication::translate("sluicectl", "unknown command \"%1\"").arg(name));
    if (parser.isSet(flags.help))
        return printHelp(help, parser, flags, {name});
    const QString unexpected = help.unexpectedOption(*command, parser.optionNames());
    if (!unexpected.isEmpty())
        return usageError(
            QCoreApplication::translate("sluicectl",
                                        "%1 does not take %2 (sluicectl help %1 lists "
                                        "its options)")
                .arg(name, (unexpected.size() == 1 ? QStringLiteral("-") : QStringLiteral("--")) + unexpected));
    if (positional.size() < command->minArgs || positional.size() > command->maxArgs)
        return usageError(QCoreApplication::translate("sluicectl", "usage: sluicectl %1 (sluicectl help %2 says more)")
                              .arg(QStringList{name, command->arguments}.join(QLatin1Char(' ')).trimmed(), name));
    if (!command->run)
        return printHelp(help, parser, flags, positional);

    QEventLoop loop;
    auto end = std::make_shared<CommandEnd>(&loop);
    app::CtlRequest request;
    request.command = name;
    request.finish = [end](int code) { end->finish(code); };
    request.args = positional;
    for (const QString &option : command->options) {
        if (parser.isSet(option))
            request.options.insert(option,
                                   parser.values(option).isEmpty() ? QStringList{QString()} : parser.values(option));
    }
    request.who = model::operatorIdentity(QStringLiteral("sluicectl"));
    if (command->access == app::Access::FiresTraffic) {
        QString error;
        if (!fireFlags.read(parser, command->name == QLatin1String("bench"), parser.value(flags.cost),
                            parser.value(flags.duration), &request.fire, &error))
            return usageError(error);
    }

    redis::ConnectionOptions options;
    std::optional<model::ConnectionProfile> profile;
    if (const auto wrong = readTarget(parser, flags, connectionFlags, &options, &profile))
        return *wrong;
    request.ns = parser.isSet(flags.ns) || !profile ? parser.value(flags.ns) : profile->ns;
    if (const auto problem = model::namespaceProblem(request.ns))
        return usageError(QCoreApplication::translate("sluicectl", "bad --namespace: %1").arg(problem->message));
    request.target = options;
    // A command runs from inside the loop, so one that ends at once still ends it.
    if (command->access == app::Access::Offline
        || (command->access == app::Access::OfflineUnlessChecking && request.args.value(0) != QLatin1String("check"))
        || (command->access == app::Access::ReadsWhenNamed && !request.isSet("policy"))) {
        QMetaObject::invokeMethod(
            &loop, [command, request] { command->run(request); }, Qt::QueuedConnection);
        return end->wait();
    }

    if (const auto refused = refusedByProfile(request, command, profile, parser.isSet(flags.yes)))
        return *refused;

    CommandConnection connection;
    connectAndRun(&connection, command, request, options, profile, connectionFlags.givesPassword(parser), &loop);
    return end->wait();
}

} // namespace sluice::app
