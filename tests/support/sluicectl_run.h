// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QProcessEnvironment>
#include <QStringList>

#include <functional>

namespace sluice::test {

// One run of the sluicectl binary, as a script would see it.
struct CtlRun {
    int exitCode = -1; // -1: it crashed or was killed after 60 s
    QString out;
    QString err;
    qint64 elapsedMs = 0;
};

// Runs sluicectl with `args` and no standard input, waiting up to 60 s. `inChild` runs in the
// child before sluicectl starts (to set a resource limit, say).
CtlRun sluicectl(const QStringList &args, const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment(),
                 const std::function<void()> &inChild = {});

// Writes a whole file for a test; false when it could not.
bool writeFile(const QString &path, const QByteArray &content);

} // namespace sluice::test
