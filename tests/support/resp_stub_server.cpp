// SPDX-License-Identifier: GPL-3.0-or-later
#include "support/resp_stub_server.h"

#include "redis/resp_codec.h"

#include <QElapsedTimer>
#include <QMutexLocker>
#include <QTcpServer>
#include <QTcpSocket>

#include <memory>

namespace sluice::test {

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

int RespStubServer::received(const QByteArray &command) const
{
    QMutexLocker lock(&m_countMutex);
    return m_counts.value(command);
}

QByteArray RespStubServer::infoReply(const QByteArrayList &lines)
{
    const QByteArray text = "# Server\r\n" + lines.join("\r\n") + "\r\n";
    return '$' + QByteArray::number(text.size()) + "\r\n" + text + "\r\n";
}

void RespStubServer::run()
{
    QTcpServer server;
    QObject::connect(&server, &QTcpServer::newConnection, &server, [this, &server] {
        while (QTcpSocket *socket = server.nextPendingConnection()) {
            auto parser = std::make_shared<redis::RespParser>();
            QObject::connect(socket, &QTcpSocket::readyRead, socket, [this, socket, parser] {
                parser->feed(socket->readAll());
                while (const auto command = parser->next()) {
                    const QByteArray name
                        = command->elements.isEmpty() ? QByteArray() : command->elements.first().bytes.toUpper();
                    {
                        QMutexLocker lock(&m_countMutex);
                        ++m_counts[name];
                    }
                    socket->write(m_replies.value(
                        name, "-ERR unknown command '" + name.toLower() + "', with args beginning with: \r\n"));
                }
            });
            QObject::connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
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
