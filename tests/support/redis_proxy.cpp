// SPDX-License-Identifier: GPL-3.0-or-later
#include "support/redis_proxy.h"

#include <QElapsedTimer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

#include <algorithm>
#include <memory>
#include <vector>

namespace sluice::test {

// One client's connection and its way to the server; lives on the proxy's thread.
class ProxyConnection : public QObject {
public:
    ProxyConnection(RedisProxy *proxy, QTcpSocket *client, std::shared_ptr<std::vector<ProxyConnection *>> held,
                    QObject *owner)
        : QObject(owner)
        , m_proxy(proxy)
        , m_client(client)
        , m_held(std::move(held))
    {
        m_client->setParent(this);
        m_server.setParent(this);
        connect(m_client, &QTcpSocket::readyRead, this, &ProxyConnection::fromClient);
        connect(&m_server, &QTcpSocket::readyRead, this, &ProxyConnection::fromServer);
        connect(&m_server, &QTcpSocket::connected, this, [this] { flushToServer(); });
        connect(m_client, &QTcpSocket::disconnected, this, &QObject::deleteLater);
        connect(&m_server, &QTcpSocket::disconnected, m_client, &QTcpSocket::disconnectFromHost);
        m_server.connectToHost(QHostAddress::LocalHost, proxy->m_serverPort);
    }

    void release()
    {
        m_holding = false;
        flushToServer();
    }

private:
    bool sawMarker(const QByteArray &marker, const QByteArray &chunk) const
    {
        return !marker.isEmpty() && (m_tail + chunk).contains(marker);
    }

    void fromClient()
    {
        const QByteArray chunk = m_client->readAll();
        const RedisProxy::Rules rules = m_proxy->rules();
        if (!m_holdDone && sawMarker(rules.holdMarker, chunk)) {
            m_holdDone = true;
            m_holding = true;
            ++m_proxy->m_marked;
            m_held->push_back(this);
            if (static_cast<int>(m_held->size()) >= rules.holdConnections)
                releaseAll();
            else // never forever: a client that died before its commit must not stall the others
                QTimer::singleShot(10000, parent(), [held = m_held] {
                    const std::vector<ProxyConnection *> late = *held;
                    held->clear();
                    for (ProxyConnection *connection : late)
                        connection->release();
                });
        }
        if (!m_dropping && sawMarker(rules.dropMarker, chunk)) {
            m_dropping = true;
            ++m_proxy->m_marked;
        }
        m_tail = (m_tail + chunk).right(256);
        m_toServer += chunk;
        flushToServer();
    }

    void releaseAll()
    {
        const std::vector<ProxyConnection *> held = *m_held;
        m_held->clear();
        for (ProxyConnection *connection : held)
            connection->release();
    }

    void flushToServer()
    {
        if (m_holding || m_server.state() != QAbstractSocket::ConnectedState || m_toServer.isEmpty())
            return;
        m_server.write(m_toServer);
        m_toServer.clear();
    }

    void fromServer()
    {
        const QByteArray chunk = m_server.readAll();
        if (!m_dropping)
            m_client->write(chunk);
    }

    RedisProxy *m_proxy;
    QTcpSocket *m_client;
    QTcpSocket m_server;
    std::shared_ptr<std::vector<ProxyConnection *>> m_held;
    QByteArray m_toServer;
    QByteArray m_tail; // the end of what came before, for a marker split between two reads
    bool m_holding = false;
    bool m_holdDone = false;
    bool m_dropping = false;
};

RedisProxy::RedisProxy(quint16 serverPort)
    : m_serverPort(serverPort)
{
}

RedisProxy::~RedisProxy()
{
    quit();
    wait();
}

bool RedisProxy::open()
{
    start();
    QElapsedTimer clock;
    clock.start();
    while (!m_listening && !m_failed && clock.elapsed() < 10000)
        QThread::msleep(5);
    return m_listening;
}

void RedisProxy::holdUntil(const QByteArray &marker, int connections)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    m_rules = {marker, connections, {}};
    m_marked = 0;
}

void RedisProxy::dropRepliesAfter(const QByteArray &marker)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    m_rules = {{}, 0, marker};
    m_marked = 0;
}

void RedisProxy::behave()
{
    std::lock_guard<std::mutex> lock(m_mutex);
    m_rules = {};
}

RedisProxy::Rules RedisProxy::rules() const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_rules;
}

void RedisProxy::run()
{
    QTcpServer server;
    QObject connections; // declared after the server, so they close first
    auto held = std::make_shared<std::vector<ProxyConnection *>>();
    QObject::connect(&server, &QTcpServer::newConnection, &server, [this, &server, &connections, held] {
        while (QTcpSocket *client = server.nextPendingConnection()) {
            client->setParent(nullptr);
            auto *connection = new ProxyConnection(this, client, held, &connections);
            // A connection that ends while held must not be released later.
            QObject::connect(connection, &QObject::destroyed, &server, [held, connection] {
                held->erase(std::remove(held->begin(), held->end(), connection), held->end());
            });
        }
    });
    if (!server.listen(QHostAddress::LocalHost, 0)) {
        m_failed = true;
        return;
    }
    m_port = server.serverPort();
    m_listening = true;
    exec();
}

} // namespace sluice::test
