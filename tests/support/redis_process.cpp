#include "support/redis_process.h"

#include <QDeadlineTimer>
#include <QHostAddress>
#include <QTcpServer>
#include <QThread>

#include <algorithm>

#include <csignal>
#include <sched.h>

namespace sluice::test {

RedisProcess::RedisProcess()
{
    m_process.setProcessChannelMode(QProcess::MergedChannels);
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
                    {QStringLiteral("--port"), QString::number(m_port), QStringLiteral("--bind"),
                     QStringLiteral("127.0.0.1"), QStringLiteral("--save"), QString(),
                     QStringLiteral("--appendonly"), QStringLiteral("no"), QStringLiteral("--dir"), m_dir.path()});
    if (!m_process.waitForStarted(5000)) {
        m_error = m_process.errorString();
        return false;
    }
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
    options.connectTimeoutMs = 1000;
    options.commandTimeoutMs = 1000;
    return options;
}

} // namespace sluice::test
