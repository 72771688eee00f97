// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStringList>
#include <QTextStream>

namespace sluice::app {

// Runs one sluicectl command line (arguments[0] is the program's name) to its end and returns its exit code
// (app/common/exit_codes.h), writing to `out` and `err`. Needs a QCoreApplication and runs an event loop of its
// own; the process goes on (sluicectl's main() returns the code, tests call it in-process).
int runSluicectl(const QStringList &arguments, QTextStream &out, QTextStream &err);

} // namespace sluice::app
