// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/ctl/exporter/metrics_http_server.h"

#include "app/ctl/ctl_tr.h"

#include <QCryptographicHash>
#include <QFutureWatcher>
#include <QHttpServerRequest>
#include <QHttpServerResponder>
#include <QSslSocket>
#include <QTcpServer>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

#include <crypt.h>
#include <cstring>
#include <unistd.h>

namespace sluice::app {

namespace {

const QString deadlineName = QStringLiteral("sluice-request-deadline");
const QByteArray expositionType = QByteArrayLiteral("text/plain; version=0.0.4; charset=utf-8");

// Closes the connection unless a request comes within the timeout; stopped while a request is answered.
void armDeadline(QTcpSocket *socket)
{
    auto *deadline = socket->findChild<QTimer *>(deadlineName, Qt::FindDirectChildrenOnly);
    if (!deadline) {
        deadline = new QTimer(socket);
        deadline->setObjectName(deadlineName);
        deadline->setSingleShot(true);
        QObject::connect(deadline, &QTimer::timeout, socket, &QTcpSocket::abort);
    }
    deadline->start(MetricsHttpServer::requestTimeoutMs);
}

void disarmDeadline(QTcpSocket *socket)
{
    if (auto *deadline = socket->findChild<QTimer *>(deadlineName, Qt::FindDirectChildrenOnly))
        deadline->stop();
}

// Accepts connections for the HTTP server, plain or TLS (a TLS one is handed on once its handshake is
// done), each under the request deadline, and no more than the server's maximum at once.
class Listener : public QTcpServer {
public:
    Listener(std::optional<QSslConfiguration> tls, QObject *parent)
        : QTcpServer(parent)
        , m_tls(std::move(tls))
    {
    }

protected:
    void incomingConnection(qintptr descriptor) override
    {
        if (m_open >= MetricsHttpServer::maxConnections) {
            ::close(int(descriptor));
            return;
        }
        QTcpSocket *socket = m_tls ? new QSslSocket(this) : new QTcpSocket(this);
        if (!socket->setSocketDescriptor(descriptor)) {
            delete socket;
            ::close(int(descriptor));
            return;
        }
        ++m_open;
        connect(socket, &QObject::destroyed, this, [this] { --m_open; });
        connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
        armDeadline(socket);
        if (!m_tls) {
            addPendingConnection(socket);
            return;
        }
        auto *tlsSocket = static_cast<QSslSocket *>(socket);
        tlsSocket->setSslConfiguration(*m_tls);
        connect(tlsSocket, &QSslSocket::encrypted, this, [this, tlsSocket] { addPendingConnection(tlsSocket); });
        // A failed handshake (a plain HTTP client, an unknown client certificate) just closes.
        connect(tlsSocket, &QSslSocket::sslErrors, tlsSocket, &QSslSocket::abort);
        tlsSocket->startServerEncryption();
    }

private:
    std::optional<QSslConfiguration> m_tls;
    int m_open = 0;
};

QByteArray passwordDigest(const QByteArray &password)
{
    return QCryptographicHash::hash(password, QCryptographicHash::Sha256);
}

bool bcryptAccepts(const QByteArray &password, const QByteArray &hash)
{
    crypt_data scratch;
    std::memset(&scratch, 0, sizeof scratch);
    const char *computed = crypt_r(password.constData(), hash.constData(), &scratch);
    return computed && hash == computed;
}

} // namespace

MetricsHttpServer::MetricsHttpServer(WebConfig config, Collect collect, QObject *parent)
    : QAbstractHttpServer(parent)
    , m_config(std::move(config))
    , m_collect(std::move(collect))
{
}

MetricsHttpServer::~MetricsHttpServer() = default;

std::optional<model::Failure> MetricsHttpServer::listen(const QHostAddress &address, quint16 port)
{
    auto *listener = new Listener(m_config.tls, this);
    if (!listener->listen(address, port)) {
        const QString reason = listener->errorString();
        delete listener;
        return model::Failure::serverError(reason);
    }
    m_listener = listener;
    bind(listener);
    return std::nullopt;
}

quint16 MetricsHttpServer::port() const
{
    return m_listener ? m_listener->serverPort() : 0;
}

bool MetricsHttpServer::handleRequest(const QHttpServerRequest &request, QTcpSocket *socket)
{
    disarmDeadline(socket);
    if (request.url().path() != QLatin1String("/metrics")) {
        makeResponder(request, socket)
            .write(QByteArrayLiteral("not found: this exporter serves /metrics\n"), "text/plain",
                   QHttpServerResponder::StatusCode::NotFound);
        armDeadline(socket);
        return true;
    }
    if (request.method() != QHttpServerRequest::Method::Get) {
        makeResponder(request, socket)
            .write(QByteArrayLiteral("only GET is served\n"), "text/plain",
                   QHttpServerResponder::StatusCode::MethodNotAllowed);
        armDeadline(socket);
        return true;
    }
    // The responder only writes to its socket; it is kept until the answer is known, and used only if the
    // client is still there by then.
    auto responder = std::make_shared<QHttpServerResponder>(makeResponder(request, socket));
    QPointer<QTcpSocket> alive(socket);
    if (m_config.bcryptByUser.isEmpty()) {
        answerScrape(responder, alive);
        return true;
    }
    checkCredentials(request, [this, responder, alive](bool authorised) {
        if (!alive)
            return;
        if (authorised)
            return answerScrape(responder, alive);
        responder->write(
            QByteArrayLiteral("unauthorised\n"),
            {{"Content-Type", "text/plain"}, {"WWW-Authenticate", "Basic realm=\"sluice\", charset=\"UTF-8\""}},
            QHttpServerResponder::StatusCode::Unauthorized);
        armDeadline(alive);
    });
    return true;
}

void MetricsHttpServer::missingHandler(const QHttpServerRequest &request, QTcpSocket *socket)
{
    makeResponder(request, socket).write(QHttpServerResponder::StatusCode::NotFound);
}

void MetricsHttpServer::answerScrape(std::shared_ptr<QHttpServerResponder> responder, QPointer<QTcpSocket> alive)
{
    m_collect([responder, alive](const QByteArray &exposition) {
        if (!alive)
            return;
        responder->write(exposition, expositionType);
        armDeadline(alive);
    });
}

void MetricsHttpServer::checkCredentials(const QHttpServerRequest &request, std::function<void(bool)> done)
{
    const QByteArray header = request.value(QByteArrayLiteral("authorization"));
    const QByteArray decoded
        = header.startsWith("Basic ") ? QByteArray::fromBase64(header.mid(6).trimmed()) : QByteArray();
    const qsizetype colon = decoded.indexOf(':');
    const QString user = colon > 0 ? QString::fromUtf8(decoded.left(colon)) : QString();
    const QByteArray password = colon > 0 ? decoded.mid(colon + 1) : QByteArray();
    const auto hash = m_config.bcryptByUser.constFind(user);
    if (hash == m_config.bcryptByUser.cend())
        return done(false);
    if (m_verified.value(user) == passwordDigest(password))
        return done(true);
    // bcrypt takes tens of milliseconds by design: off this thread, so wrong guesses never stall scrapes.
    auto *watcher = new QFutureWatcher<bool>(this);
    connect(watcher, &QFutureWatcher<bool>::finished, this, [this, watcher, user, password, done] {
        const bool accepted = watcher->result();
        watcher->deleteLater();
        if (accepted)
            m_verified.insert(user, passwordDigest(password));
        done(accepted);
    });
    watcher->setFuture(QtConcurrent::run(bcryptAccepts, password, *hash));
}

} // namespace sluice::app
