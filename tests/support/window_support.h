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

// Waits for two round trips on the window's own connection (two policy lists, one after the other): a
// write the window had begun when it was called, even a read and then its write, has reached the server
// by then. What a check that something did not happen waits for, instead of a fixed time.
inline bool settle(const ui::MainWindow &window)
{
    for (int trip = 0; trip < 2; ++trip) {
        bool answered = false;
        QObject context;
        window.session()->policyStore().list(&context, [&answered](const auto &) { answered = true; });
        if (!spinUntil([&] { return answered; }))
            return false;
    }
    return true;
}

} // namespace sluice::test
