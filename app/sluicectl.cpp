// sluicectl: what the GUI can do, for operators who script. Errors go to stderr and the exit code
// says what kind of failure it was (app/exit_codes.h).

#include "model/connection/keychain_secret_store.h"
#include "app/ctl_connection_flags.h"
#include "app/ctl_fire_flags.h"
#include "app/ctl_request.h"
#include "app/exit_codes.h"
#include "model/connection/connection_profile.h"
#include "model/connection/key_namespace.h"
#include "model/policy/operator_identity.h"
#include "model/connection/profile_secrets.h"

#include <QCommandLineParser>
#include <QCoreApplication>

#include <memory>
#include <optional>

using namespace sluice;
using app::ctlErr;
using app::ctlOut;

namespace {

// What a command does to Redis decides whether a profile lets it run (read-only, production).
// Test traffic writes (a read-only profile refuses it) but asks for --yes on production only
// when it spends real subjects' buckets.
enum class Access { Offline, Reads, Writes, WritesUnlessDryRun, FiresTraffic };

struct Command {
    const char *name;
    int minArgs;
    int maxArgs;
    Access access;
    const char *synopsis;
    const char *summary;
    void (*run)(const app::CtlRequest &);
};

const Command commands[] = {
    {"ping", 0, 0, Access::Reads, "ping", "check that the server answers; print its version and mode", app::runPing},
    {"apply", 1, 1, Access::WritesUnlessDryRun, "apply FILE [--dry-run] [--prune] [--json]",
     "make the stored policies match a JSON policy file, or change nothing if another change came in between; "
     "--dry-run: each field's old and new value, exit 10 when changes are pending",
     app::runApply},
    {"policies", 0, 0, Access::Reads, "policies [--json]", "list the stored policies", app::runPolicies},
    {"export", 0, 1, Access::Reads, "export [FILE]", "write the stored policies as a policy file", app::runExport},
    {"history", 0, 1, Access::Reads, "history [POLICY] [--json]",
     "show the audit log (who changed what, when), newest first", app::runHistory},
    {"rollback", 2, 2, Access::WritesUnlessDryRun, "rollback POLICY VERSION [--dry-run]",
     "save an earlier version's definition as the policy's new version (audited)", app::runRollback},
    {"publish", 0, 0, Access::WritesUnlessDryRun,
     "publish [--dry-run] [--allow-empty] [--allow-drop] [--take-over] [--json]",
     "compile the stored policies into the namespace's limiter library and load it on every primary; refuses a "
     "library that serves no policy, drops policies in use or replaces a library it did not publish, unless allowed",
     app::runPublish},
    {"status", 0, 0, Access::Reads, "status [--json]",
     "show each primary's limiter library and drift from the published one", app::runStatus},
    {"acquire", 2, 2, Access::Writes, "acquire POLICY SUBJECT [--cost N] [--json]",
     "take one decision from a policy for a subject, and print it; exit 11 when it is a rejection", app::runAcquire},
    {"watch", 0, 64, Access::Reads, "watch [POLICY...] [--interval MS] [--duration S] [--json]",
     "show each policy's allowed and rejected decisions per second, live (most rejections first); --json: one object "
     "per policy per sample",
     app::runWatch},
    {"keys", 0, 1, Access::Reads,
     "keys [POLICY] [--match GLOB] [--limit N] [--layout scg|counter|ms|interval[:PARAMETERS]] [--json]",
     "list bucket keys and their state (SCAN on every primary, a bounded page at a time); --json: one object per "
     "bucket; --layout: a seed layout's buckets instead, refilled to now when its callers' parameters are given",
     app::runKeys},
    {"reset-key", 2, 2, Access::Writes, "reset-key POLICY SUBJECT",
     "delete one subject's bucket so it is full again (audited)", app::runResetKey},
    {"fire", 1, 2, Access::FiresTraffic,
     "fire TARGET [TARGET2] --rate R [--duration S] [--subject NAME | --subjects N | --random N] [--shape "
     "constant|bursts|ramp|poisson] [--concurrency C] [--cost N] [--real-keys] [--csv FILE] [--json]",
     "fire test traffic at a policy (or a seed script, e.g. scg_token_bucket:10:20), two side by side; compare what "
     "passed with the reference model; latency percentiles",
     app::runFire},
    {"bench", 1, 1, Access::FiresTraffic,
     "bench TARGET [--duration S] [--concurrency C] [--pipeline P] [--subject NAME | --subjects N | --random N] "
     "[--real-keys] [--json]",
     "the most calls a second the server answers (pipelined, several connections), with latency percentiles",
     app::runBench},
    {"profiles", 0, 0, Access::Offline, "profiles [--json]",
     "list the connection profiles saved by the dashboard (for --profile)", app::runProfiles},
    {"acl", 1, 1, Access::Offline, "acl service|dashboard|operator [--namespace NS] [--user NAME] [-n DB]",
     "print the ACL SETUSER line of a least-privilege Redis user for the namespace: a service calling the limiter, "
     "the read-only dashboard, or an operator who applies and publishes (sends nothing)",
     app::runAcl},
};

int usageError(const QString &message)
{
    ctlErr() << "sluicectl: " << message << Qt::endl
             << QCoreApplication::translate("sluicectl", "Try 'sluicectl --help'.") << Qt::endl;
    return app::ExitUsage;
}

QString description()
{
    QString text = QCoreApplication::translate(
        "sluicectl", "Command-line control for Sluice rate limiters in Redis.\n\nCommands:\n");
    for (const Command &command : commands)
        text += QStringLiteral("  %1\n      %2\n").arg(QLatin1String(command.synopsis), QLatin1String(command.summary));
    text += QCoreApplication::translate(
        "sluicectl",
        "\nExit codes: 0 ok, 1 failed, 2 usage error, 3 cannot connect, "
        "4 timeout, 5 invalid input (a file, an unknown policy), 6 conflict (nothing changed), 7 drift (a primary "
        "does not run the published library), 8 refused (a write on a read-only profile, on a production one "
        "without --yes, or a publish that would serve no policy or drop ones in use), 9 outcome unknown (a write "
        "was sent and its answer lost: it may have been applied), 10 changes pending (apply --dry-run), "
        "11 rejected (acquire).");
    return text;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("sluicectl"));
    QCoreApplication::setApplicationVersion(QStringLiteral(SLUICE_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(description());
    // -h is redis-cli's host flag, so help is --help alone.
    const QCommandLineOption helpOption(QStringLiteral("help"),
                                        QCoreApplication::translate("sluicectl", "Show this help."));
    const QCommandLineOption versionOption = parser.addVersionOption();
    const app::CtlConnectionFlags connectionFlags;
    connectionFlags.addTo(parser);
    const app::CtlFireFlags fireFlags;
    fireFlags.addTo(parser);
    const QCommandLineOption timeoutOption(
        QStringLiteral("timeout"),
        QCoreApplication::translate("sluicectl", "Milliseconds to wait for the connection and each reply."),
        QStringLiteral("ms"), QStringLiteral("5000"));
    const QCommandLineOption namespaceOption(
        QStringLiteral("namespace"),
        QCoreApplication::translate("sluicectl",
                                    "Key namespace: 1 to 64 letters, digits, '_', '.' or '-'. Default: sluice."),
        QStringLiteral("name"), QStringLiteral("sluice"));
    const QCommandLineOption dryRunOption(
        QStringLiteral("dry-run"),
        QCoreApplication::translate("sluicectl", "apply, publish: show what would change, change nothing."));
    const QCommandLineOption pruneOption(
        QStringLiteral("prune"),
        QCoreApplication::translate("sluicectl", "apply: also delete stored policies the file lacks."));
    const QCommandLineOption allowEmptyOption(
        QStringLiteral("allow-empty"),
        QCoreApplication::translate("sluicectl", "publish: even a library that serves no policy (every call fails)."));
    const QCommandLineOption allowDropOption(
        QStringLiteral("allow-drop"),
        QCoreApplication::translate("sluicectl",
                                    "publish: even a library without policies that answered calls in the last "
                                    "minute (their callers get errors)."));
    const QCommandLineOption takeOverOption(
        QStringLiteral("take-over"),
        QCoreApplication::translate("sluicectl",
                                    "publish: even over a library this namespace and database did not publish "
                                    "(another owner's or not Sluice's; its callers get errors)."));
    const QCommandLineOption jsonOption(QStringLiteral("json"),
                                        QCoreApplication::translate("sluicectl", "Print JSON."));
    const QCommandLineOption costOption(
        QStringLiteral("cost"),
        QCoreApplication::translate("sluicectl", "acquire, fire, bench: units each call takes. Default: 1."),
        QStringLiteral("n"));
    const QCommandLineOption intervalOption(
        QStringLiteral("interval"),
        QCoreApplication::translate("sluicectl", "watch: ms between samples, 250 to 10000. Default: 1000."),
        QStringLiteral("ms"));
    const QCommandLineOption durationOption(
        QStringLiteral("duration"),
        QCoreApplication::translate("sluicectl",
                                    "watch: seconds to watch, then exit (default: until interrupted); fire, bench: "
                                    "seconds to fire (default: 10)."),
        QStringLiteral("s"));
    const QCommandLineOption matchOption(
        QStringLiteral("match"),
        QCoreApplication::translate("sluicectl", "keys: only subjects matching this Redis glob (* ? [..] \\ escapes)."),
        QStringLiteral("glob"));
    const QCommandLineOption limitOption(
        QStringLiteral("limit"),
        QCoreApplication::translate("sluicectl", "keys: print at most this many buckets. Default: 1000."),
        QStringLiteral("n"));
    const QCommandLineOption layoutOption(
        QStringLiteral("layout"),
        QCoreApplication::translate(
            "sluicectl",
            "keys: list a seed layout's buckets (scg, counter, ms or interval; --match on the id or key), with the "
            "parameters its callers use to refill them to now: scg:RATE_PER_SECOND:CAPACITY, "
            "counter:LIMIT:WINDOW_SECONDS, ms:RATE_PER_SECOND:CAPACITY, interval:CAPACITY:ADD:INTERVAL_SECONDS."),
        QStringLiteral("layout"));
    const QCommandLineOption profileOption(
        QStringLiteral("profile"),
        QCoreApplication::translate("sluicectl",
                                    "Connect as a connection profile saved by the dashboard says (its password from "
                                    "the keychain, else REDISCLI_AUTH); other connection flags refine it."),
        QStringLiteral("name"));
    const QCommandLineOption yesOption(
        QStringLiteral("yes"),
        QCoreApplication::translate("sluicectl", "Confirm a write through a production profile."));
    parser.addOptions({helpOption, timeoutOption, namespaceOption, profileOption, yesOption, dryRunOption, pruneOption,
                       allowEmptyOption, allowDropOption, takeOverOption, jsonOption, costOption, intervalOption,
                       durationOption, matchOption, limitOption, layoutOption});
    parser.addPositionalArgument(QStringLiteral("command"),
                                 QCoreApplication::translate("sluicectl", "What to do (see Commands)."));

    if (!parser.parse(QCoreApplication::arguments()))
        return usageError(parser.errorText());
    if (parser.isSet(helpOption)) {
        ctlOut() << parser.helpText();
        return app::ExitOk;
    }
    if (parser.isSet(versionOption)) {
        ctlOut() << "sluicectl " << QCoreApplication::applicationVersion() << Qt::endl;
        return app::ExitOk;
    }

    QStringList positional = parser.positionalArguments();
    if (positional.isEmpty())
        return usageError(QCoreApplication::translate("sluicectl", "no command given"));
    const QString name = positional.takeFirst();
    const Command *command = nullptr;
    for (const Command &candidate : commands)
        if (name == QLatin1String(candidate.name))
            command = &candidate;
    if (!command)
        return usageError(QCoreApplication::translate("sluicectl", "unknown command \"%1\"").arg(name));
    if (positional.size() < command->minArgs || positional.size() > command->maxArgs)
        return usageError(
            QCoreApplication::translate("sluicectl", "usage: sluicectl %1").arg(QLatin1String(command->synopsis)));

    app::CtlRequest request;
    request.command = name;
    request.args = positional;
    request.json = parser.isSet(jsonOption);
    request.dryRun = parser.isSet(dryRunOption);
    request.prune = parser.isSet(pruneOption);
    request.allowEmpty = parser.isSet(allowEmptyOption);
    request.allowDrop = parser.isSet(allowDropOption);
    request.takeOver = parser.isSet(takeOverOption);
    request.cost = parser.value(costOption);
    request.interval = parser.value(intervalOption);
    request.duration = parser.value(durationOption);
    request.match = parser.value(matchOption);
    request.limit = parser.value(limitOption);
    request.layout = parser.value(layoutOption);
    request.who = model::operatorIdentity(QStringLiteral("sluicectl"));
    if (command->access == Access::FiresTraffic) {
        QString error;
        if (!fireFlags.read(parser, command->run == app::runBench, request.cost, request.duration, &request.fire,
                            &error))
            return usageError(error);
    }

    redis::ConnectionOptions options;
    std::optional<model::ConnectionProfile> profile;
    if (parser.isSet(profileOption)) {
        if (connectionFlags.givesUrl(parser))
            return usageError(
                QCoreApplication::translate("sluicectl", "--profile and -u both say where to connect; give one"));
        const auto settings = model::ProfileSettings::openShared();
        profile = model::ProfileSettings(settings.get()).profile(parser.value(profileOption));
        if (!profile)
            return usageError(QCoreApplication::translate("sluicectl",
                                                          "no usable connection profile named \"%1\" in %2 "
                                                          "(sluicectl profiles lists them)")
                                  .arg(parser.value(profileOption), settings->fileName()));
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
    const int timeoutMs = parser.value(timeoutOption).toInt(&timeoutOk);
    if (!timeoutOk || timeoutMs <= 0)
        return usageError(QCoreApplication::translate("sluicectl", "--timeout must be a positive number of ms"));
    options.connectTimeoutMs = timeoutMs;
    options.commandTimeoutMs = timeoutMs;
    options.clientName = QStringLiteral("sluicectl");
    request.ns = parser.isSet(namespaceOption) || !profile ? parser.value(namespaceOption) : profile->ns;
    if (const auto problem = model::namespaceProblem(request.ns))
        return usageError(QCoreApplication::translate("sluicectl", "bad --namespace: %1").arg(problem->message));
    request.target = options;
    if (command->access == Access::Offline) {
        QMetaObject::invokeMethod(&app, [command, request] { command->run(request); }, Qt::QueuedConnection);
        return QCoreApplication::exec();
    }

    const bool writes = command->access == Access::Writes || command->access == Access::FiresTraffic
        || (command->access == Access::WritesUnlessDryRun && !request.dryRun);
    const bool asksOnProduction = writes && (command->access != Access::FiresTraffic || request.fire.plan.realKeys);
    // Refused before anything is sent, so before the event loop: the code comes straight back.
    if (profile && writes && profile->readOnly) {
        return app::report(request,
                           {model::Failure::Kind::Refused,
                            QCoreApplication::translate("sluicectl", "profile \"%1\" is read-only and %2 writes")
                                .arg(profile->name, QLatin1String(command->name))});
    }
    if (profile && asksOnProduction && profile->writesNeedConfirmation() && !parser.isSet(yesOption)) {
        return app::report(request,
                           {model::Failure::Kind::Refused,
                            QCoreApplication::translate("sluicectl", "profile \"%1\" is production and %2 writes: "
                                                                     "add --yes to confirm")
                                .arg(profile->name, QLatin1String(command->name))});
    }

    std::unique_ptr<redis::RedisClient> client;
    auto start = [&client, command, request,
                  readOnly = profile && profile->readOnly](const redis::ConnectionOptions &resolved) mutable {
        client = std::make_unique<redis::RedisClient>(resolved);
        client->setAutoReconnect(false);
        client->setReadOnly(readOnly);
        client->open();
        request.client = client.get();
        command->run(request);
    };
    model::KeychainSecretStore keychain;
    if (profile && !connectionFlags.givesPassword(parser)) {
        // The profile's own secrets first; REDISCLI_AUTH and SLUICE_TLS_KEY_PASSPHRASE when the keychain has none.
        model::readProfileSecrets(keychain, *profile, &app,
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
        // From inside the event loop, so a command that finishes at once can still exit it.
        QMetaObject::invokeMethod(&app, [start, options]() mutable { start(options); }, Qt::QueuedConnection);
    }
    const int code = QCoreApplication::exec();
    client.reset(); // before the keychain and the application
    return code;
}
