// SPDX-License-Identifier: GPL-3.0-or-later
#include "support/sluicectl_run.h"

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>

namespace sluice::test {

CtlRun sluicectl(const QStringList &args, const QProcessEnvironment &env, const std::function<void()> &inChild)
{
    QProcess process;
    process.setProcessEnvironment(env);
    if (inChild)
        process.setChildProcessModifier(inChild);
    QElapsedTimer clock;
    clock.start();
    process.start(QStringLiteral(SLUICECTL_BINARY), args);
    process.closeWriteChannel();
    if (!process.waitForFinished(60000))
        process.kill();
    process.waitForFinished(5000);
    CtlRun run;
    run.elapsedMs = clock.elapsed();
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = QString::fromUtf8(process.readAllStandardOutput());
    run.err = QString::fromUtf8(process.readAllStandardError());
    return run;
}

bool writeFile(const QString &path, const QByteArray &content)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(content) == content.size();
}

} // namespace sluice::test
