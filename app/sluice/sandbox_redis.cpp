// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/sluice/sandbox_redis.h"

#include "model/files/own_files.h"

#include <QCoreApplication>
#include <QDir>
#include <QHostAddress>
#include <QStandardPaths>
#include <QTcpServer>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <sys/prctl.h>
#include <unistd.h>

namespace sluice::app {

namespace {

constexpr int maxLaunchAttempts = 5;
const char ownerFileName[] = "owner.pid";

quint16 pickFreeLoopbackPort()
{
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0))
        return 0;
    return probe.serverPort();
}

bool processAlive(qint64 pid)
{
    return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM);
}

} // namespace

SandboxRedis::SandboxRedis(QObject *parent)
    : QObject(parent)
{
}

SandboxRedis::~SandboxRedis()
{
    stop();
}

QString SandboxRedis::directory() const
{
    if (!m_dataDirectory.isEmpty())
        return m_dataDirectory;
    return m_tempDir ? m_tempDir->path() : QString();
}

void SandboxRedis::sweepAbandonedFolders()
{
    // A sandbox whose owner was killed leaves its folder behind; its server died with the owner. Only this
    // user's own folders are swept (not a link another user planted under the name, nor their folder): in the
    // shared temporary folder nobody else can move or replace them (its sticky bit), and removeRecursively()
    // removes the links inside them, never what they point to.
    const QDir temp(QDir::tempPath());
    const auto folders = temp.entryList({QStringLiteral("sluice-sandbox-*")}, QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString &name : folders) {
        QDir folder(temp.filePath(name));
        if (!model::isOwnFolder(folder.path()))
            continue;
        const model::OwnFileRead owner = model::readOwnFile(folder.filePath(QLatin1String(ownerFileName)), 32);
        if (owner.missing || owner.failure)
            continue;
        const qint64 pid = owner.content.trimmed().toLongLong();
        if (pid != QCoreApplication::applicationPid() && !processAlive(pid))
            folder.removeRecursively();
    }
}

void SandboxRedis::start()
{
    const QString binary = qEnvironmentVariableIsSet("SLUICE_REDIS_SERVER")
        ? qEnvironmentVariable("SLUICE_REDIS_SERVER")
        : QStandardPaths::findExecutable(QStringLiteral("redis-server"));
    if (binary.isEmpty()) {
        Q_EMIT failed(tr("redis-server is not installed, so the sandbox cannot start. "
                         "Install it (apt-get install redis-server) or connect with --url."));
        return;
    }
    sweepAbandonedFolders();
    if (m_dataDirectory.isEmpty()) {
        m_tempDir = std::make_unique<QTemporaryDir>(QDir::tempPath() + QStringLiteral("/sluice-sandbox-XXXXXX"));
        if (!m_tempDir->isValid()) {
            Q_EMIT failed(tr("cannot create a folder for the sandbox: %1").arg(m_tempDir->errorString()));
            return;
        }
        // QTemporaryDir made it private (0700) under a name nobody could guess. Without its owner's pid a
        // folder left behind is never swept, which costs a few bytes: no reason to refuse the sandbox.
        model::writeWholeFile(m_tempDir->filePath(QLatin1String(ownerFileName)),
                              QByteArray::number(QCoreApplication::applicationPid()));
    } else if (const auto refused = model::ensurePrivateFolder(m_dataDirectory)) {
        Q_EMIT failed(refused->message);
        return;
    }
    m_process = new QProcess(this);
    m_process->setProgram(binary);
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    const pid_t ownerPid = ::getpid();
    m_process->setChildProcessModifier([ownerPid] {
        // Runs in the child between fork and exec: die with the owner, even if it is SIGKILLed.
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != ownerPid)
            ::_exit(1); // the owner died before the line above took effect
    });
    connect(m_process, &QProcess::readyReadStandardOutput, this, &SandboxRedis::onOutput);
    connect(m_process, &QProcess::finished, this, &SandboxRedis::onFinished);
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            Q_EMIT failed(tr("cannot start redis-server: %1").arg(m_process->errorString()));
    });
    launch();
}

void SandboxRedis::launch()
{
    ++m_attempts;
    m_log.clear();
    m_port = pickFreeLoopbackPort();
    const bool persist = !m_dataDirectory.isEmpty();
    QStringList args{QStringLiteral("--port"),
                     QString::number(m_port),
                     QStringLiteral("--bind"),
                     QStringLiteral("127.0.0.1"),
                     QStringLiteral("--protected-mode"),
                     QStringLiteral("yes"),
                     QStringLiteral("--daemonize"),
                     QStringLiteral("no"),
                     QStringLiteral("--dir"),
                     directory(),
                     QStringLiteral("--logfile"),
                     QString(),
                     QStringLiteral("--appendonly"),
                     persist ? QStringLiteral("yes") : QStringLiteral("no")};
    if (!persist)
        args << QStringLiteral("--save") << QString();
    m_process->setArguments(args);
    m_process->start();
}

void SandboxRedis::onOutput()
{
    m_log += m_process->readAllStandardOutput();
    if (m_log.size() > 64 * 1024)
        m_log = m_log.right(16 * 1024);
    if (!m_ready && m_log.contains("Ready to accept connections")) {
        m_ready = true;
        Q_EMIT ready(m_port);
    }
}

void SandboxRedis::onFinished(int exitCode, QProcess::ExitStatus status)
{
    if (m_ready || !m_process)
        return;
    // Another program may have taken the port between probing and binding: try a new one.
    if (m_log.contains("Address already in use") && m_attempts < maxLaunchAttempts) {
        launch();
        return;
    }
    const QByteArrayList lines = m_log.trimmed().split('\n');
    const QString lastLines = QString::fromLocal8Bit(lines.mid(std::max<qsizetype>(0, lines.size() - 3)).join('\n'));
    Q_EMIT failed(status == QProcess::CrashExit
                      ? tr("the sandbox redis-server crashed: %1").arg(lastLines)
                      : tr("the sandbox redis-server exited with code %1: %2").arg(exitCode).arg(lastLines));
}

void SandboxRedis::stop()
{
    if (!m_process)
        return;
    QProcess *process = m_process;
    m_process = nullptr;
    process->disconnect(this);
    if (process->state() != QProcess::NotRunning) {
        // A local child, not the network: a short wait at shutdown lets it exit cleanly.
        process->terminate();
        if (!process->waitForFinished(2000)) {
            process->kill();
            process->waitForFinished(1000);
        }
    }
    delete process;
    m_tempDir.reset();
}

} // namespace sluice::app
