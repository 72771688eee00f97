// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "app/ctl/exporter/web_config.h"

#include <QAbstractHttpServer>
#include <QHostAddress>
#include <QHttpServerResponder>
#include <QPointer>
#include <QTcpSocket>

#include <functional>
#include <memory>

class QTcpServer;

namespace sluice::app {

// The exporter's HTTP endpoint: GET /metrics and nothing else, on Qt HTTP Server's event loop (one thread,
// no worker to run out of), over TLS and behind basic authentication when the web config asks.
//
// Slow and idle clients cost a socket each and nothing more: a connection that has not sent a whole
// request within `requestTimeoutMs` of its opening (or of its last answer), TLS handshake included, is
// closed, and at most `maxConnections` are open at once (more are closed at once, so the process never
// runs out of file descriptors). A scrape itself answers whenever `collect` calls back.
class MetricsHttpServer : public QAbstractHttpServer {
    Q_OBJECT

public:
    static constexpr int requestTimeoutMs = 3000;
    static constexpr int maxConnections = 512;

    using Answer = std::function<void(const QByteArray &exposition)>;
    // Asked once per authorised scrape; calls `answer` once, now or later, on this thread.
    using Collect = std::function<void(Answer answer)>;

    MetricsHttpServer(WebConfig config, Collect collect, QObject *parent = nullptr);
    ~MetricsHttpServer() override;

    // The port listened on (the one asked, or the one the system chose for 0), or why it cannot listen.
    std::optional<model::Failure> listen(const QHostAddress &address, quint16 port);
    quint16 port() const;
    bool usesTls() const { return m_config.tls.has_value(); }

protected:
    bool handleRequest(const QHttpServerRequest &request, QTcpSocket *socket) override;
    void missingHandler(const QHttpServerRequest &request, QTcpSocket *socket) override;

private:
    void answerScrape(std::shared_ptr<QHttpServerResponder> responder, QPointer<QTcpSocket> alive);
    // Whether the request's basic credentials are a configured user's; a check that needs bcrypt runs on a
    // worker thread and calls back here.
    void checkCredentials(const QHttpServerRequest &request, std::function<void(bool)> done);

    WebConfig m_config;
    Collect m_collect;
    QTcpServer *m_listener = nullptr;
    // user -> SHA-256 of a password bcrypt accepted, so a scrape every 15 s costs one hash, not one bcrypt.
    QHash<QString, QByteArray> m_verified;
};

} // namespace sluice::app
