// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/deploy/library_watch.h"

#include <algorithm>

namespace sluice::model {

using redis::RedisClient;

namespace {

// Long enough for a failover's burst of topology changes to settle into one check.
constexpr int settleMs = 250;

} // namespace

bool LibraryWatch::Report::drift() const
{
    return !lost.isEmpty() || (status.published.version > 0 && status.drift());
}

QStringList LibraryWatch::Report::problems() const
{
    QStringList lines;
    for (const Lost &node : lost)
        lines << tr("%1 ran limiter library version %2 and now has none (deleted, or the server restarted "
                    "without its data). Publish again.")
                     .arg(node.node)
                     .arg(node.version);
    if (status.published.version == 0)
        return lines;
    for (const NodeLibrary &node : status.nodes) {
        if (node.state == NodeLibrary::State::Current)
            continue;
        if (std::any_of(lost.cbegin(), lost.cend(), [&](const Lost &gone) { return gone.node == node.node; }))
            continue; // already said above
        QString line = tr("%1: library %2 (published: version %3)")
                           .arg(node.node, NodeLibrary::stateName(node.state))
                           .arg(status.published.version);
        if (!node.detail.isEmpty())
            line += QStringLiteral(" \u2014 ") + node.detail;
        if (node.persistence == NodeLibrary::Persistence::None)
            line += tr("; it keeps no data across restarts");
        lines << line;
    }
    return lines;
}

LibraryWatch::LibraryWatch(RedisClient *client, const LibraryOwner &owner, int intervalMs, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_publisher(client, owner)
{
    m_interval.setInterval(intervalMs);
    connect(&m_interval, &QTimer::timeout, this, &LibraryWatch::checkNow);
    m_soon.setSingleShot(true);
    m_soon.setInterval(settleMs);
    connect(&m_soon, &QTimer::timeout, this, &LibraryWatch::checkNow);
    connect(client, &RedisClient::stateChanged, this, &LibraryWatch::onConnectionState);
    connect(client, &RedisClient::topologyChanged, &m_soon, qOverload<>(&QTimer::start));
}

void LibraryWatch::start()
{
    m_interval.start();
    m_lastState = m_client->state();
    if (m_lastState == RedisClient::State::Ready)
        checkNow();
}

void LibraryWatch::onConnectionState(RedisClient::State state)
{
    // Back after a loss (or ready for the first time): whatever ran there may be gone.
    if (state == RedisClient::State::Ready && m_lastState != RedisClient::State::Ready)
        m_soon.start();
    const bool lost = state != RedisClient::State::Ready && m_lastState == RedisClient::State::Ready;
    m_lastState = state;
    if (lost && !m_checking)
        reportNotConnected();
}

// Nothing is known of the deployment while the server does not answer: said at once on a loss and at each
// interval after, so no view keeps the last reading (or "reading...") as the present.
void LibraryWatch::reportNotConnected()
{
    DeploymentStatus status;
    status.failure = Failure{Failure::Kind::Unreachable, tr("not connected to the server")};
    m_checking = true;
    takeStatus(status);
}

void LibraryWatch::checkNow()
{
    if (m_client->state() != RedisClient::State::Ready) {
        if (!m_checking && m_lastState != RedisClient::State::Connecting)
            reportNotConnected();
        return;
    }
    if (m_checking) {
        m_checkAgain = true;
        return;
    }
    m_checking = true;
    m_publisher.status(this, [this](const DeploymentStatus &status) { takeStatus(status); });
}

void LibraryWatch::takeStatus(const DeploymentStatus &status)
{
    m_checking = false;
    ++m_checks;
    if (!status.failure) {
        QHash<QString, qint64> ran;
        QVector<Lost> lost;
        for (const NodeLibrary &node : status.nodes) {
            if (node.state == NodeLibrary::State::Current || node.state == NodeLibrary::State::Stale) {
                ran.insert(node.node, node.version);
            } else if (node.state == NodeLibrary::State::Missing && m_ranVersion.contains(node.node)) {
                lost << Lost{node.node, m_ranVersion.value(node.node)};
                ran.insert(node.node, m_ranVersion.value(node.node)); // reported until it is back
            }
        }
        m_ranVersion = ran; // a node that is no longer a primary is forgotten
        m_report.lost = lost;
    }
    m_report.status = status;
    Q_EMIT checked(m_report);
    if (m_checkAgain) {
        m_checkAgain = false;
        checkNow();
    }
}

} // namespace sluice::model
