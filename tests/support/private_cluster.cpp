// SPDX-License-Identifier: GPL-3.0-or-later
#include "support/private_cluster.h"

#include <QDeadlineTimer>
#include <QProcess>
#include <QThread>

namespace sluice::test {

namespace {

QByteArray runCli(const QStringList &args, int waitMs = 30000)
{
    QProcess cli;
    cli.setProcessChannelMode(QProcess::MergedChannels);
    cli.start(QStringLiteral("redis-cli"), args);
    if (!cli.waitForFinished(waitMs))
        cli.kill();
    cli.waitForFinished(1000);
    return cli.readAll();
}

} // namespace

PrivateCluster::PrivateCluster(int primaries, RedisProcess::Patience patience)
{
    for (int i = 0; i < primaries; ++i) {
        m_nodes.push_back(std::make_unique<RedisProcess>(patience));
        m_nodes.back()->setExtraArguments({QStringLiteral("--cluster-enabled"), QStringLiteral("yes"),
                                           QStringLiteral("--cluster-node-timeout"), QStringLiteral("5000"),
                                           QStringLiteral("--cluster-require-full-coverage"), QStringLiteral("no")});
    }
}

bool PrivateCluster::start()
{
    QStringList create{QStringLiteral("--cluster"), QStringLiteral("create")};
    for (auto &node : m_nodes) {
        if (!node->start()) {
            m_error = QStringLiteral("a cluster node did not start: %1").arg(node->errorString());
            return false;
        }
        create << QStringLiteral("127.0.0.1:%1").arg(node->port());
    }
    const QByteArray created = runCli(create << QStringLiteral("--cluster-yes"));
    const QDeadlineTimer deadline(30000);
    for (auto &node : m_nodes) {
        while (!runCli({QStringLiteral("-p"), QString::number(node->port()), QStringLiteral("cluster"),
                        QStringLiteral("info")})
                    .contains("cluster_state:ok")) {
            if (deadline.hasExpired()) {
                m_error
                    = QStringLiteral("the cluster did not come up: %1").arg(QString::fromLocal8Bit(created.right(400)));
                return false;
            }
            QThread::msleep(100);
        }
    }
    return true;
}

redis::ConnectionOptions PrivateCluster::options() const
{
    return m_nodes.front()->options();
}

} // namespace sluice::test
