// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "redis/connection_options.h"

#include <QObject>
#include <QPointer>

class QIODevice;

namespace sluice::redis {

// One byte stream to a Redis node over TCP, TLS or a unix socket, with one set of signals for all
// three. Name lookup and the TLS handshake run on the event loop; nothing here blocks.
class SocketTransport : public QObject {
    Q_OBJECT
public:
    explicit SocketTransport(const ConnectionOptions &options, QObject *parent = nullptr);
    ~SocketTransport() override;

    void open();
    void write(const QByteArray &bytes);
    QByteArray readAll();

Q_SIGNALS:
    void opened();                      // connected, and for TLS the handshake verified
    void failed(const QString &reason); // could not open, or broke while open
    void readyRead();

private:
    void fail(const QString &reason);
    void openTcpOrTls();
    void openUnix();
    qint64 sendDirectly(const QByteArray &bytes); // bytes the kernel took, 0 when Qt must send them

    ConnectionOptions m_options;
    QPointer<QIODevice> m_device;
    bool m_failed = false;
};

} // namespace sluice::redis
