// SPDX-License-Identifier: GPL-3.0-or-later
// sluicectl help: its table entry; the runner prints the help (app/ctl/ctl_help.cpp).

#include "app/ctl/ctl_commands.h"

namespace sluice::app {

CtlCommand helpCommand()
{
    return {QStringLiteral("help"),
            CommandGroup::Help,
            0,
            1,
            Access::Offline,
            QStringLiteral("[COMMAND]"),
            Ctl::tr("show this help, or a command's"),
            Ctl::tr("Show sluicectl's help, or a command's: its options and examples. --commands and --options COMMAND "
                    "print names one a line, for shell completion."),
            optionNames({"commands", "options"}),
            {{QStringLiteral("help apply"), Ctl::tr("apply's options and examples")},
             {QStringLiteral("help --options fire"), Ctl::tr("the option names fire takes")}}};
}

} // namespace sluice::app
