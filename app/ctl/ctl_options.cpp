// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/ctl/ctl_options.h"

#include <QCoreApplication>

namespace sluice::app {

namespace {

QCommandLineOption option(const QStringList &names, const char *help, const char *value = nullptr,
                          const char *defaultValue = nullptr)
{
    const QString description = QCoreApplication::translate("sluicectl", help);
    if (!value)
        return QCommandLineOption(names, description);
    return QCommandLineOption(names, description, QLatin1String(value),
                              defaultValue ? QLatin1String(defaultValue) : QString());
}

QStringList names(const char *name)
{
    return {QLatin1String(name)};
}

} // namespace

// -h is redis-cli's host flag, so help is --help alone; -v is --verbose as in most tools, so the
// version is --version alone (QCommandLineParser's own version option would take -v).
CtlOptions::CtlOptions()
    : help(option(names("help"), "Show this help, or with a command, that command's help."))
    , version(option(names("version"), "Print sluicectl's version."))
    , verbose(option({QStringLiteral("v"), QStringLiteral("verbose")},
                     "Say on stderr what is done: connecting, routing, publishing, firing (never a secret). "
                     "QT_LOGGING_RULES=\"sluice.*.debug=true\" does the same."))
    , timeout(option(names("timeout"), "Milliseconds to wait for the connection and each reply.", "ms", "5000"))
    , ns(option(names("namespace"), "Key namespace: 1 to 64 letters, digits, '_', '.' or '-'. Default: sluice.", "name",
                "sluice"))
    , profile(option(names("profile"),
                     "Connect as a connection profile saved by the dashboard says (its password from the keychain, "
                     "else REDISCLI_AUTH); other connection flags refine it.",
                     "name"))
    , yes(option(names("yes"), "Confirm a write through a production profile."))
    , dryRun(option(names("dry-run"), "Show what would change, change nothing."))
    , prune(option(names("prune"), "Also delete stored policies the file lacks."))
    , allowEmpty(option(names("allow-empty"), "Publish even a library that serves no policy (every call fails)."))
    , allowDrop(option(names("allow-drop"),
                       "Publish even a library without policies that answered calls in the last minute (their "
                       "callers get errors)."))
    , takeOver(option(names("take-over"),
                      "Publish even over a library this namespace and database did not publish (another owner's or "
                      "not Sluice's; its callers get errors)."))
    , json(option(names("json"), "Print JSON."))
    , cost(option(names("cost"), "Units each call takes. Default: 1.", "n"))
    , interval(option(names("interval"), "Milliseconds between samples, 250 to 10000. Default: 1000.", "ms"))
    , duration(option(names("duration"),
                      "Seconds to run, then exit. Default: watch until interrupted; fire and bench 10.", "s"))
    , match(option(names("match"), "Only subjects matching this Redis glob (* ? [..] \\ escapes).", "glob"))
    , limit(option(names("limit"), "Print at most this many buckets. Default: 1000.", "n"))
    , layout(option(names("layout"),
                    "List a seed layout's buckets instead (scg, counter, ms or interval; --match on the id or key), "
                    "with the parameters its callers use to refill them to now: scg:RATE_PER_SECOND:CAPACITY, "
                    "counter:LIMIT:WINDOW_SECONDS, ms:RATE_PER_SECOND:CAPACITY, "
                    "interval:CAPACITY:ADD:INTERVAL_SECONDS.",
                    "layout"))
    , listen(option(names("listen"),
                    "Serve the metrics over HTTP on this address and port (port 0: any free one). "
                    "Default: 127.0.0.1:9786.",
                    "address:port"))
    , top(option(names("top"),
                 "Also expose each policy's N most rejected subjects, 1 to 32 (one series each). Default: none.", "n"))
    , commandNames(option(names("commands"), "Print the command names, one a line (for shell completion)."))
    , optionNames(option(names("options"),
                         "Print the options COMMAND takes, one a line, general ones included (for shell completion)."))
{
}

void CtlOptions::addTo(QCommandLineParser &parser) const
{
    parser.addOptions(general() + commandOptions());
}

QList<QCommandLineOption> CtlOptions::general() const
{
    return {timeout, ns, profile, yes, verbose, help, version};
}

QList<QCommandLineOption> CtlOptions::commandOptions() const
{
    return {dryRun,   prune, allowEmpty, allowDrop, takeOver, json, cost,         interval,
            duration, match, limit,      layout,    listen,   top,  commandNames, optionNames};
}

} // namespace sluice::app
