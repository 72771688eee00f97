// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The dashboard as GUI tests and benchmarks open it: the real main window on a session.

#include "model/connection/connection_session.h"
#include "support/sync_command.h"
#include "ui/window/main_window.h"

#include <memory>

namespace sluice::test {

// Shows the main window on a session for `profile` and waits up to 10 s for it to connect (a
// session that does not is warned about; the caller's checks then fail with what they expected).
inline std::unique_ptr<ui::MainWindow> openMainWindow(const model::ConnectionProfile &profile)
{
    auto window = std::make_unique<ui::MainWindow>();
    window->show();
    window->setSession(std::make_unique<model::ConnectionSession>(profile, profile.options));
    if (!spinUntil([&] { return window->session()->isReady(); }))
        qWarning("the session did not connect");
    return window;
}

} // namespace sluice::test
