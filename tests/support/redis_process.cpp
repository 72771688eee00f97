// SPDX-License-Identifier: GPL-3.0-or-later
#include "support/redis_process.h"

#include "support/owned_process.h"

#include <QDeadlineTimer>
#include <QHostAddress>
#include <QTcpServer>
#include <QThread>

#include <algorithm>
#include <csignal>
#include <sched.h>

namespace sluice::test {

RedisProcess::RedisProcess(Patience patience)
    : m_patience(patience)
{
    m_process.setProcessChannelMode(QProcess::MergedChannels);
    endWithThisProcess(m_process);
}

RedisProcess::~RedisProcess()
{
    kill();
}

bool RedisProcess::start()
{
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0)) {
        m_error = probe.errorString();
        return false;
    }
    m_port = probe.serverPort();
    probe.close();
    return launch();
}

bool RedisProcess::launch()
{
    m_process.start(QStringLiteral("redis-server"),
                    QStringList{QStringLiteral("--port"), QString::number(m_port), QStringLiteral("--bind"),
                                QStringLiteral("127.0.0.1"), QStringLiteral("--save"), QString(),
                                QStringLiteral("--appendonly"), QStringLiteral("no"), QStringLiteral("--dir"),
                                m_dir.path()}
                        + m_extraArguments);
    if (!m_process.waitForStarted(5000)) {
        m_error = m_process.errorString();
        return false;
    }
    m_pid = m_process.processId();
    QByteArray log;
    const QDeadlineTimer deadline(10000);
    while (!deadline.hasExpired() && m_process.state() == QProcess::Running) {
        m_process.waitForReadyRead(100);
        log += m_process.readAll();
        if (log.contains("Ready to accept connections"))
            return true;
    }
    m_error = QString::fromLocal8Bit(log.right(500));
    return false;
}

bool RedisProcess::restart()
{
    kill();
    return launch();
}

void RedisProcess::freeze()
{
    ::kill(static_cast<pid_t>(m_process.processId()), SIGSTOP);
}

void RedisProcess::thaw()
{
    ::kill(static_cast<pid_t>(m_process.processId()), SIGCONT);
}

void RedisProcess::kill()
{
    if (m_process.state() == QProcess::NotRunning)
        return;
    thaw();
    m_process.kill();
    m_process.waitForFinished(5000);
}

QString RedisProcess::exitReason() const
{
    if (m_pid == 0 || m_process.state() != QProcess::NotRunning)
        return {};
    // For a crash QProcess keeps the signal's number as the exit code.
    return m_process.exitStatus() == QProcess::CrashExit
        ? QStringLiteral("the redis-server (pid %1) was killed by signal %2").arg(m_pid).arg(m_process.exitCode())
        : QStringLiteral("the redis-server (pid %1) exited with code %2").arg(m_pid).arg(m_process.exitCode());
}

bool RedisProcess::waitForExit(int ms)
{
    return m_process.state() == QProcess::NotRunning || m_process.waitForFinished(ms);
}

bool RedisProcess::pinApart()
{
    const int cpus = std::min(QThread::idealThreadCount(), int(CPU_SETSIZE));
    if (cpus < 2)
        return false;
    cpu_set_t server, others;
    CPU_ZERO(&server);
    CPU_ZERO(&others);
    CPU_SET(cpus - 1, &server);
    for (int cpu = 0; cpu < cpus - 1; ++cpu)
        CPU_SET(cpu, &others);
    return sched_setaffinity(static_cast<pid_t>(m_process.processId()), sizeof server, &server) == 0
        && sched_setaffinity(0, sizeof others, &others) == 0;
}

redis::ConnectionOptions RedisProcess::options() const
{
    redis::ConnectionOptions options;
    options.port = m_port;
    const bool quick = m_patience == Patience::Quick;
    options.connectTimeoutMs = quick ? 1000 : 10000;
    options.commandTimeoutMs = quick ? 1000 : 30000;
    return options;
}

} // namespace sluice::test
