// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "app/ctl/ctl_fire_flags.h"
#include "app/ctl/ctl_tr.h"
#include "model/failure.h"
#include "model/limiter/library_owner.h"
#include "model/policy/policy_diff.h"
#include "redis/redis_client.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QStringList>
#include <QTextStream>

#include <functional>
#include <optional>

namespace sluice::app {

// What one sluicectl command gets to work with. A command ends by calling finish() once with one of
// app/common/exit_codes.h: runSluicectl() returns that code (the command never ends the process).
struct CtlRequest {
    QString command; // its name, for messages
    std::function<void(int exitCode)> finish;
    redis::RedisClient *client = nullptr; // null for commands that need no server
    redis::ConnectionOptions target;      // where the flags and profile point (acl reads its user and database)
    QStringList args;                     // the command's own positional arguments
    QString ns;                           // admin key namespace
    QString who;                          // recorded in audit entries
    // The options of the command's own (its table's `options`) that were given, by long name; a flag's value is
    // empty. The general and connection options are read before the command runs.
    QHash<QString, QStringList> options; // every value of an option given more than once, in order
    // fire and bench: their settings, read before they run because test traffic on real keys asks for --yes
    // on a production profile.
    CtlFireSettings fire;

    model::LibraryOwner owner() const { return {ns, target.database}; }
    bool isSet(const char *option) const { return options.contains(QLatin1String(option)); }
    QString option(const char *name) const // the last value given
    {
        const QStringList values = optionValues(name);
        return values.isEmpty() ? QString() : values.last();
    }
    QStringList optionValues(const char *name) const { return options.value(QLatin1String(name)); }
};

// Where the running command writes: standard output and error, or the streams runSluicectl() was given.
QTextStream &ctlOut();
QTextStream &ctlErr();
// Clears the terminal for watch's next table: sluicectl's own command to it, the one text written past the
// escaping of terminal controls (app/ctl/terminal_stream.h).
void ctlClearScreen();
// Points ctlOut() and ctlErr() at other streams while it lives (flushed, then the previous ones back);
// `terminal` is where ctlClearScreen() writes (`out` when none).
class CtlStreams {
public:
    CtlStreams(QTextStream &out, QTextStream &err, QTextStream *terminal = nullptr);
    ~CtlStreams();
    CtlStreams(const CtlStreams &) = delete;
    CtlStreams &operator=(const CtlStreams &) = delete;

    static QTextStream *out() { return current().out; }
    static QTextStream *err() { return current().err; }

private:
    struct Streams {
        QTextStream *out;
        QTextStream *err;
        QTextStream *terminal;
    };
    static Streams &current();
    friend void ctlClearScreen();
    Streams m_previous;
};
// The one table from a failure's kind to sluicectl's exit code (app/common/exit_codes.h).
int exitCodeFor(model::Failure::Kind kind);
// Ends a command that failed, the one way: "sluicectl: COMMAND: MESSAGE" on stderr (naming the
// server when the connection failed), then the kind's exit code. For a write, `unchanged` ("nothing
// was applied") follows when the kind guarantees it; when the answer was lost it says the outcome
// is unknown instead.
void fail(const CtlRequest &request, const model::Failure &failure, const QString &unchanged = {});
// The same lines, returning the exit code instead (for failures found before the event loop runs).
int report(const CtlRequest &request, const model::Failure &failure, const QString &unchanged = {});
// Ends a command whose arguments are wrong: the message, then exit 2.
void failUsage(const CtlRequest &request, const QString &message);
// One bucket as a line of JSON: the fields that name it, then its state's, or "error" and why it could
// not be read.
void printBucketJson(QJsonObject bucket, const std::optional<QJsonObject> &state, const QString &problem);
// Runs `then` once the client is ready (scanning needs the primaries), or fails the command.
void whenReady(const CtlRequest &request, std::function<void()> then);

} // namespace sluice::app
