// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

class QCoreApplication;

namespace sluice::app {

// SIGINT and SIGTERM end the event loop normally, so destructors run and the sandbox is stopped
// and its folder removed (a self-pipe carries the signal to the event loop safely).
void quitOnTerminationSignals(QCoreApplication *app);

} // namespace sluice::app
