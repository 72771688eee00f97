// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QList>

namespace sluice::app {

// sluicectl's options besides the connection and fire flags. `general` ones are taken by every
// command; the others belong to the commands that list them in the catalogue (app/ctl/ctl_commands.h),
// which names them by their long name.
struct CtlOptions {
    CtlOptions();
    void addTo(QCommandLineParser &parser) const;
    QList<QCommandLineOption> general() const;
    QList<QCommandLineOption> commandOptions() const;

    // General
    QCommandLineOption help, version, verbose, timeout, ns, profile, yes;
    // Taken by some commands
    QCommandLineOption dryRun, prune, allowEmpty, allowDrop, takeOver, json, cost, interval, duration, match, limit,
        layout, listen, webConfig, top, commandNames, optionNames;
    // Reading access logs (replay, suggest)
    QCommandLineOption format, logFormat, time, route, reorderWindow, maxSubjects, policy, define, algorithm, window,
        burstFactor, rejectAtMost, of;
};

} // namespace sluice::app
