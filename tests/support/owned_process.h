// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QProcess>

namespace sluice::test {

// Makes the kernel kill `process` when this test process ends, even by SIGKILL (which runs no
// destructor). Call before start().
void endWithThisProcess(QProcess &process);

} // namespace sluice::test
