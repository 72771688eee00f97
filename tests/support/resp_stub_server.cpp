// SPDX-License-Identifier: GPL-3.0-or-later
#include "support/resp_stub_server.h"

#include "redis/resp_codec.h"

#include <QElapsedTimer>
#include <QMutexLocker>
#include <QTcpServer>
#include <QTcpSocket>

#include <chrono>
#include <memory>

namespace sluice::test {

const QByteArray RespStubServer::noAnswer = QByteArrayLiteral("\0no answer");
const QByteArray RespStubServer::closeConnection = QByteArrayLiteral("\0close the connection");

RespStubServer::RespStubServer(QHash<QByteArray, QByteArray> replies)
    : m_replies(std::move(replies))
{
}

RespStubServer::~RespStubServer()
{
    quit();
    wait();
}

bool RespStubServer::open()
{
    start();
    QElapsedTimer clock;
    clock.start();
    while (!m_listening && !m_failed && clock.elapsed() < 10000)
        QThread::msleep(5);
    return m_listening;
}

QString RespStubServer::address() const
{
    return QStringLiteral("127.0.0.1:%1").arg(m_port);
}

void RespStubServer::setReply(const QByteArray &command, const QByteArray &reply)
{
    QMutexLocker lock(&m_mutex);
    m_replies.insert(command, reply);
}

void RespStubServer::queue(const QByteArray &command, const QByteArray &reply, int times)
{
    QMutexLocker lock(&m_mutex);
    for (int i = 0; i < times; ++i)
        m_queued[command].push_back(reply);
}

void RespStubServer::dropConnections()
{
    onServerThread([this] {
        const auto sockets = m_server->findChildren<QTcpSocket *>();
        for (QTcpSocket *socket : sockets) {
            socket->abort();
            socket->deleteLater();
        }
    });
}

void RespStubServer::stopListening()
{
    onServerThread([this] { m_server->close(); });
    dropConnections();
}

bool RespStubServer::listenAgain()
{
    bool listening = false;
    onServerThread([this, &listening] { listening = m_server->listen(QHostAddress::LocalHost, m_port); });
    return listening;
}

int RespStubServer::received(const QByteArray &command) const
{
    return static_cast<int>(receivedCommands(command).size());
}

QVector<RespStubServer::Received> RespStubServer::receivedCommands(const QByteArray &command) const
{
    QMutexLocker lock(&m_mutex);
    if (command.isEmpty())
        return m_received;
    QVector<Received> named;
    for (const Received &received : m_received)
        if (received.args.value(0).toUpper() == command)
            named << received;
    return named;
}

QVector<qint64> RespStubServer::acceptedAt() const
{
    QMutexLocker lock(&m_mutex);
    return m_acceptedAt;
}

qint64 RespStubServer::nowMs()
{
    using namespace std::chrono;
    return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

QHash<QByteArray, QByteArray> RespStubServer::redis7()
{
    return {{"PING", status("PONG")},
            {"CLIENT", status("OK")},
            {"CLUSTER", error("ERR This instance has cluster support disabled")},
            {"INFO", infoReply({"redis_version:7.0.15", "redis_mode:standalone"})}};
}

QByteArray RespStubServer::infoReply(const QByteArrayList &lines)
{
    return bulk("# Server\r\n" + lines.join("\r\n") + "\r\n");
}

QByteArray RespStubServer::bulk(const QByteArray &text)
{
    return '$' + QByteArray::number(text.size()) + "\r\n" + text + "\r\n";
}

QByteArray RespStubServer::array(const QByteArrayList &encodedItems)
{
    return '*' + QByteArray::number(encodedItems.size()) + "\r\n" + encodedItems.join();
}

QByteArray RespStubServer::primaryAddressReply() const
{
    return array({bulk("127.0.0.1"), bulk(QByteArray::number(m_port))});
}

QByteArray RespStubServer::clusterShards(const QVector<ShardRange> &shards)
{
    QByteArrayList encoded;
    for (const ShardRange &shard : shards) {
        const QByteArray port = QByteArray::number(shard.server->port());
        const QByteArray node = array({bulk("id"), bulk("node-" + port), bulk("port"), integer(shard.server->port()),
                                       bulk("ip"), bulk("127.0.0.1"), bulk("endpoint"), bulk("127.0.0.1"), bulk("role"),
                                       bulk("master"), bulk("health"), bulk("online")});
        encoded << array(
            {bulk("slots"), array({integer(shard.firstSlot), integer(shard.lastSlot)}), bulk("nodes"), array({node})});
    }
    return array(encoded);
}

QByteArray RespStubServer::replyTo(const QByteArray &name)
{
    QMutexLocker lock(&m_mutex);
    auto queued = m_queued.find(name);
    if (queued != m_queued.end() && !queued->empty()) {
        const QByteArray reply = queued->front();
        queued->pop_front();
        return reply;
    }
    return m_replies.value(name, "-ERR unknown command '" + name.toLower() + "', with args beginning with: \r\n");
}

void RespStubServer::onCommand(const QByteArrayList &args, int connection)
{
    QMutexLocker lock(&m_mutex);
    m_received.append({args, nowMs(), connection});
}

void RespStubServer::onServerThread(const std::function<void()> &work)
{
    QMetaObject::invokeMethod(m_home, work, Qt::BlockingQueuedConnection);
}

void RespStubServer::run()
{
    QObject home;
    QTcpServer server;
    int connections = 0;
    QObject::connect(&server, &QTcpServer::newConnection, &server, [this, &server, &connections] {
        while (QTcpSocket *socket = server.nextPendingConnection()) {
            const int connection = ++connections;
            {
                QMutexLocker lock(&m_mutex);
                m_acceptedAt << nowMs();
            }
            auto parser = std::make_shared<redis::RespParser>();
            QObject::connect(socket, &QTcpSocket::readyRead, socket, [this, socket, parser, connection] {
                parser->feed(socket->readAll());
                while (const auto command = parser->next()) {
                    QByteArrayList args;
                    for (const redis::RespValue &word : command->elements)
                        args << word.bytes;
                    onCommand(args, connection);
                    const QByteArray reply = replyTo(args.value(0).toUpper());
                    if (reply == closeConnection) {
                        socket->disconnectFromHost();
                        return;
                    }
                    if (reply != noAnswer)
                        socket->write(reply);
                }
            });
            QObject::connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
        }
    });
    if (!server.listen(QHostAddress::LocalHost, 0)) {
        m_failed = true;
        return;
    }
    m_home = &home;
    m_server = &server;
    m_port = server.serverPort();
    m_listening = true;
    exec();
}

} // namespace sluice::test
