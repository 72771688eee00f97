// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "app/ctl/ctl_request.h"

#include <QString>
#include <QStringList>

#include <vector>

namespace sluice::app {

// What a command does to Redis decides whether a profile lets it run (read-only, production).
// Test traffic writes (a read-only profile refuses it) but asks for --yes on production only
// when it spends real subjects' buckets. ReadsWhenNamed connects only when --policy names stored policies.
// WritesWhenGivenArguments reads when run bare (showing something) and writes when given arguments.
enum class Access {
    Offline,
    OfflineUnlessChecking, // offline, but its first argument "check" reads the server
    Reads,
    ReadsWhenNamed,
    Writes,
    WritesUnlessDryRun,
    WritesWhenGivenArguments,
    FiresTraffic
};

// The groups of the top-level help, in the order it lists them.
enum class CommandGroup { Policies, Deployment, Live, TestTraffic, Connection, Help };

struct CtlExample {
    QString commandLine; // after "sluicectl "
    QString explanation;
};

// One sluicectl command: the one place its name, arguments, options, help and examples are said.
// `options` are the long names of the options it takes besides the general ones (--timeout,
// --namespace, --profile, --yes, --verbose, --help, --version) and the connection flags.
struct CtlCommand {
    QString name;
    CommandGroup group;
    int minArgs;
    int maxArgs;
    Access access;
    QString arguments; // the synopsis after the name, without options: "FILE", "[POLICY...]"
    QString brief;     // one line for the top-level help
    QString summary;   // what `help COMMAND` says it does
    QStringList options;
    std::vector<CtlExample> examples;
    void (*run)(const CtlRequest &) = nullptr; // none for help, which needs no request
    // For a write: the read-only commands that show whether it took effect when its answer was lost.
    QString checkAfterLostAnswer = {};
};

// Every command, in the order the top-level help lists them; each is defined in app/ctl/commands/ beside its code.
const std::vector<CtlCommand> &ctlCommands();
const CtlCommand *findCtlCommand(const QString &name);
QString groupTitle(CommandGroup group);
// Option long names, for a command's `options`; fireOptionNames() are the ones fire and bench share.
QStringList optionNames(std::initializer_list<const char *> names);
QStringList fireOptionNames();

CtlCommand applyCommand();
CtlCommand replayCommand();
CtlCommand suggestCommand();
CtlCommand policiesCommand();
CtlCommand exportCommand();
CtlCommand historyCommand();
CtlCommand listsCommand();
CtlCommand rollbackCommand();
CtlCommand publishCommand();
CtlCommand statusCommand();
CtlCommand aclCommand();
CtlCommand watchCommand();
CtlCommand metricsCommand();
CtlCommand keysCommand();
CtlCommand resetKeyCommand();
CtlCommand acquireCommand();
CtlCommand fireCommand();
CtlCommand benchCommand();
CtlCommand pingCommand();
CtlCommand profilesCommand();
CtlCommand helpCommand();

} // namespace sluice::app
