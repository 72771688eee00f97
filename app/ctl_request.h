#pragma once

#include "app/ctl_fire_flags.h"
#include "redis/redis_client.h"

#include <QStringList>
#include <QTextStream>

namespace sluice::app {

// What one sluicectl command gets to work with. A command ends the process by calling
// QCoreApplication::exit() with one of app/exit_codes.h.
struct CtlRequest {
    redis::RedisClient *client = nullptr; // null for commands that need no server
    QStringList args;  // the command's own positional arguments
    QString ns;        // admin key namespace
    QString who;       // recorded in audit entries
    bool dryRun = false;
    bool prune = false;
    bool json = false;
    QString cost;      // acquire --cost, passed on as given (the library checks it)
    QString interval;  // watch --interval, checked by the command
    QString duration;  // watch --duration
    QString match;     // keys --match, a subject glob
    QString limit;     // keys --limit
    CtlFireSettings fire; // fire and bench
};

QTextStream &ctlOut();
QTextStream &ctlErr();
// Ends a command: "sluicectl: <command>: <message>" on stderr, then exits with `code`.
void failCommand(const char *command, const QString &message, int code);
// Prints why a request failed and returns the exit code that says what kind of failure it was.
int reportFailure(const CtlRequest &request, const redis::RedisReply &reply);

void runPing(const CtlRequest &request);
void runApply(const CtlRequest &request);
void runPolicies(const CtlRequest &request);
void runExport(const CtlRequest &request);
void runHistory(const CtlRequest &request);
void runRollback(const CtlRequest &request);
void runPublish(const CtlRequest &request);
void runStatus(const CtlRequest &request);
void runAcquire(const CtlRequest &request);
void runWatch(const CtlRequest &request);
void runKeys(const CtlRequest &request);
void runResetKey(const CtlRequest &request);
void runFire(const CtlRequest &request);
void runBench(const CtlRequest &request);
void runProfiles(const CtlRequest &request); // needs no client

} // namespace sluice::app
