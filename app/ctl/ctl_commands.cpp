// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/ctl/ctl_commands.h"

#include <QCoreApplication>

namespace sluice::app {

QStringList optionNames(std::initializer_list<const char *> names)
{
    QStringList result;
    for (const char *name : names)
        result << QLatin1String(name);
    return result;
}

QStringList fireOptionNames()
{
    return optionNames(
        {"subject", "subjects", "random", "real-keys", "seed", "csv", "concurrency", "duration", "cost", "json"});
}

const std::vector<CtlCommand> &ctlCommands()
{
    // In the order the top-level help lists them.
    static const std::vector<CtlCommand> commands{
        applyCommand(),   policiesCommand(), exportCommand(),   historyCommand(), rollbackCommand(), listsCommand(),
        replayCommand(),  suggestCommand(),  publishCommand(),  statusCommand(),  aclCommand(),      watchCommand(),
        metricsCommand(), keysCommand(),     resetKeyCommand(), acquireCommand(), fireCommand(),     benchCommand(),
        pingCommand(),    profilesCommand(), helpCommand()};
    return commands;
}

const CtlCommand *findCtlCommand(const QString &name)
{
    for (const CtlCommand &command : ctlCommands())
        if (command.name == name)
            return &command;
    return nullptr;
}

QString groupTitle(CommandGroup group)
{
    switch (group) {
    case CommandGroup::Policies: return Ctl::tr("Policies");
    case CommandGroup::Deployment: return Ctl::tr("Deployment");
    case CommandGroup::Live: return Ctl::tr("Live");
    case CommandGroup::TestTraffic: return Ctl::tr("Test traffic");
    case CommandGroup::Connection: return Ctl::tr("Connection");
    case CommandGroup::Help: break;
    }
    return Ctl::tr("Help");
}

} // namespace sluice::app
