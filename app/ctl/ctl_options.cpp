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
    , cost(option(names("cost"),
                  "Units each call takes. Default: 1. For replay and suggest: the log field that holds each request's "
                  "cost (bytes, tokens); default: every request costs 1.",
                  "n|field"))
    , interval(option(names("interval"), "Milliseconds between samples, 250 to 10000. Default: 1000.", "ms"))
    , duration(option(names("duration"),
                      "Seconds to run, then exit. Default: watch until interrupted; fire and bench 10.", "s"))
    , match(option(names("match"), "Only subjects matching this Redis glob (* ? [..] \\ escapes).", "glob"))
    , limit(option(names("limit"), "Print at most this many buckets. Default: 1000.", "n"))
    , layout(option(names("layout"),
                    "List a seed layout's buckets instead (scg, counter, ms or interval; --match on the id or key), "
                    "with the parameters its callers use to refill them to now: scg:RATE_PER_SECOND:CAPACITY (the rate "
                    "may have three decimals), "
                    "counter:LIMIT:WINDOW_SECONDS, ms:RATE_PER_SECOND:CAPACITY, "
                    "interval:CAPACITY:ADD:INTERVAL_SECONDS.",
                    "layout"))
    , listen(option(names("listen"),
                    "Serve the metrics over HTTP on this address and port (port 0: any free one). "
                    "Default: 127.0.0.1:9786.",
                    "address:port"))
    , webConfig(option(names("web-config"),
                       "Serve over TLS, with basic authentication, or both, as this file says: the web config "
                       "Prometheus's own exporters take (tls_server_config, basic_auth_users with bcrypt hashes).",
                       "file"))
    , top(option(names("top"),
                 "Also expose each policy's N most rejected subjects, 1 to 32 (one series each). Default: none.", "n"))
    , commandNames(option(names("commands"), "Print the command names, one a line (for shell completion)."))
    , optionNames(option(names("options"),
                         "Print the options COMMAND takes, one a line, general ones included (for shell completion)."))
    , format(option(names("format"),
                    "The logs' format: auto (told from the first line), combined (nginx's and Apache's default), "
                    "nginx (its log_format given by --log-format), jsonl (a JSON object a line) or csv (with a "
                    "header line). Default: auto.",
                    "format"))
    , logFormat(option(names("log-format"),
                       "The nginx log_format definition the logs were written with, as in nginx.conf: "
                       "'$remote_addr - $remote_user [$time_local] \"$request\" $status $msec'.",
                       "definition"))
    , time(option(names("time"),
                  "The field that holds the time: nginx's msec, time_iso8601 or time_local (the first the format "
                  "has, by default), a JSON key or a CSV column. Default: time.",
                  "field"))
    , route(option(names("route"),
                   "Replay only requests whose request line (nginx's $request, a JSON or CSV \"path\") matches this "
                   "regular expression, so a policy for one endpoint sees only its traffic.",
                   "regex"))
    , reorderWindow(option(names("reorder-window"),
                           "Seconds by which lines may be out of time order (merged logs) and still be put in "
                           "order; a line later than that is counted as malformed. Default: 60.",
                           "s"))
    , maxSubjects(option(names("max-subjects"),
                         "Stop with an error past this many distinct subjects (each takes about 100 bytes). "
                         "Default: 10000000.",
                         "n"))
    , policy(option(names("policy"), "Replay against this stored policy (repeat for more).", "name"))
    , define(option(names("define"),
                    "Replay against the policies of this policy file (the format apply reads); needs no server.",
                    "file"))
    , algorithm(
          option(names("algorithm"), "The algorithm to choose a limit for (token_bucket, fixed_window, ...).", "name"))
    , window(option(names("window"), "The policy's window: 500ms, 30s, 1m, 1h or 1d.", "duration"))
    , burstFactor(option(names("burst-factor"), "The burst as this many times the limit tried, e.g. 1.5.", "f"))
    , rejectAtMost(
          option(names("reject-at-most"), "The share the suggested limit may reject at most: 1% or 0.01.", "share"))
    , of(option(names("of"), "What --reject-at-most counts: requests or subjects. Default: requests.", "what"))
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
    return {dryRun,    prune,     allowEmpty, allowDrop,     takeOver,     json,
            cost,      interval,  duration,   match,         limit,        layout,
            listen,    webConfig, top,        commandNames,  optionNames,  format,
            logFormat, time,      route,      reorderWindow, maxSubjects,  policy,
            define,    algorithm, window,     burstFactor,   rejectAtMost, of};
}

} // namespace sluice::app
