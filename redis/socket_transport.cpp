// SPDX-License-Identifier: GPL-3.0-or-later
#include "redis/socket_transport.h"

#include <QFile>
#include <QLocalSocket>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslKey>
#include <QSslSocket>
#include <QStringList>
#include <QTcpSocket>

#include <cerrno>
#include <sys/socket.h>

namespace sluice::redis {

namespace {

QString describeSslErrors(const QList<QSslError> &errors)
{
    QStringList texts;
    for (const QSslError &error : errors)
        texts << error.errorString();
    return QStringLiteral("TLS certificate rejected: %1").arg(texts.join(QStringLiteral("; ")));
}

} // namespace

SocketTransport::SocketTransport(const ConnectionOptions &options, QObject *parent)
    : QObject(parent)
    , m_options(options)
{
}

SocketTransport::~SocketTransport()
{
    if (m_device)
        m_device->disconnect(this);
}

void SocketTransport::open()
{
    if (m_options.transport == ConnectionOptions::Transport::Unix)
        openUnix();
    else
        openTcpOrTls();
}

void SocketTransport::openTcpOrTls()
{
    const bool tls = m_options.transport == ConnectionOptions::Transport::Tls;
    QAbstractSocket *socket = nullptr;
    if (tls) {
        auto *sslSocket = new QSslSocket(this);
        QSslConfiguration config = QSslConfiguration::defaultConfiguration();
        if (!m_options.caFile.isEmpty()) {
            const auto authorities = QSslCertificate::fromPath(m_options.caFile, QSsl::Pem);
            if (authorities.isEmpty()) {
                delete sslSocket;
                return fail(QStringLiteral("cannot read a CA certificate from %1").arg(m_options.caFile));
            }
            config.setCaCertificates(authorities);
        }
        if (!m_options.certFile.isEmpty() || !m_options.keyFile.isEmpty()) {
            const auto certs = QSslCertificate::fromPath(m_options.certFile, QSsl::Pem);
            QFile keyFile(m_options.keyFile);
            const QByteArray keyPem = keyFile.open(QIODevice::ReadOnly) ? keyFile.readAll() : QByteArray();
            const QByteArray passphrase = m_options.keyPassphrase.toUtf8();
            QSslKey key(keyPem, QSsl::Rsa, QSsl::Pem, QSsl::PrivateKey, passphrase);
            if (key.isNull())
                key = QSslKey(keyPem, QSsl::Ec, QSsl::Pem, QSsl::PrivateKey, passphrase);
            if (key.isNull() && keyPem.contains("ENCRYPTED")) {
                delete sslSocket;
                return fail(
                    passphrase.isEmpty()
                        ? QStringLiteral("the client key %1 is encrypted: its passphrase is needed")
                              .arg(m_options.keyFile)
                        : QStringLiteral("cannot decrypt the client key %1: wrong passphrase").arg(m_options.keyFile));
            }
            if (certs.isEmpty() || key.isNull()) {
                delete sslSocket;
                return fail(QStringLiteral("cannot read the client certificate %1 and key %2")
                                .arg(m_options.certFile, m_options.keyFile));
            }
            config.setLocalCertificate(certs.first());
            config.setPrivateKey(key);
        }
        config.setPeerVerifyMode(m_options.verifyPeer ? QSslSocket::VerifyPeer : QSslSocket::VerifyNone);
        sslSocket->setSslConfiguration(config);
        if (!m_options.verifyPeer)
            connect(sslSocket, &QSslSocket::sslErrors, this,
                    [sslSocket](const QList<QSslError> &) { sslSocket->ignoreSslErrors(); });
        else
            connect(sslSocket, &QSslSocket::sslErrors, this,
                    [this](const QList<QSslError> &errors) { fail(describeSslErrors(errors)); });
        connect(sslSocket, &QSslSocket::encrypted, this, &SocketTransport::opened);
        socket = sslSocket;
    } else {
        socket = new QTcpSocket(this);
        connect(socket, &QAbstractSocket::connected, this, &SocketTransport::opened);
    }
    socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    socket->setSocketOption(QAbstractSocket::KeepAliveOption, 1);
    connect(socket, &QAbstractSocket::errorOccurred, this,
            [this, socket](QAbstractSocket::SocketError) { fail(socket->errorString()); });
    connect(socket, &QIODevice::readyRead, this, &SocketTransport::readyRead);
    m_device = socket;

    if (tls) {
        const QString peerName = m_options.serverName.isEmpty() ? m_options.host : m_options.serverName;
        static_cast<QSslSocket *>(socket)->connectToHostEncrypted(m_options.host, m_options.port, peerName);
    } else {
        socket->connectToHost(m_options.host, m_options.port);
    }
}

void SocketTransport::openUnix()
{
    auto *socket = new QLocalSocket(this);
    connect(socket, &QLocalSocket::connected, this, &SocketTransport::opened);
    connect(socket, &QLocalSocket::errorOccurred, this,
            [this, socket](QLocalSocket::LocalSocketError) { fail(socket->errorString()); });
    connect(socket, &QIODevice::readyRead, this, &SocketTransport::readyRead);
    m_device = socket;
    socket->connectToServer(m_options.socketPath);
}

qint64 SocketTransport::sendDirectly(const QByteArray &bytes)
{
    qintptr descriptor = -1;
    if (auto *socket = qobject_cast<QTcpSocket *>(m_device.data())) {
        if (qobject_cast<QSslSocket *>(socket) || socket->state() != QAbstractSocket::ConnectedState
            || socket->bytesToWrite() > 0)
            return 0;
        descriptor = socket->socketDescriptor();
    } else if (auto *local = qobject_cast<QLocalSocket *>(m_device.data())) {
        if (local->state() != QLocalSocket::ConnectedState || local->bytesToWrite() > 0)
            return 0;
        descriptor = local->socketDescriptor();
    }
    if (descriptor < 0)
        return 0;
    ssize_t sent;
    do
        sent = ::send(int(descriptor), bytes.constData(), size_t(bytes.size()), MSG_NOSIGNAL | MSG_DONTWAIT);
    while (sent < 0 && errno == EINTR);
    return sent < 0 ? 0 : qint64(sent);
}

void SocketTransport::write(const QByteArray &bytes)
{
    if (!m_device || m_failed)
        return;
    // Straight to the kernel while the socket's own buffer is empty: handing bytes to Qt turns its
    // write notifier on and off, and each turn wakes the event loop (glib's poll set changes), about
    // two wakeups per pipelined batch. What the kernel does not take, or a send that fails, goes
    // through the socket as before, which keeps the order and reports the error.
    const qint64 sent = sendDirectly(bytes);
    if (sent == bytes.size())
        return;
    m_device->write(sent == 0 ? bytes : bytes.mid(sent));
    // Out now, as far as the kernel takes it without blocking, rather than on a later pass of
    // the event loop: a pipelined reply comes back that much sooner.
    if (auto *socket = qobject_cast<QAbstractSocket *>(m_device.data()))
        socket->flush();
    else if (auto *local = qobject_cast<QLocalSocket *>(m_device.data()))
        local->flush();
}

QByteArray SocketTransport::readAll()
{
    return m_device ? m_device->readAll() : QByteArray();
}

void SocketTransport::fail(const QString &reason)
{
    // Sockets may report one fault several times (an error, then a disconnect); report it once.
    if (m_failed)
        return;
    m_failed = true;
    // Always from the event loop, so a failure found inside open() reaches a caller that has
    // returned from it, like every other failure.
    QMetaObject::invokeMethod(
        this, [this, reason] { Q_EMIT failed(reason); }, Qt::QueuedConnection);
}

} // namespace sluice::redis
