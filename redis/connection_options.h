#pragma once

#include <QString>

namespace sluice::redis {

// Everything needed to open one connection to one Redis node.
struct ConnectionOptions {
    enum class Transport { Tcp, Tls, Unix };

    Transport transport = Transport::Tcp;
    QString host = QStringLiteral("127.0.0.1");
    quint16 port = 6379;
    QString socketPath; // Unix transport only
    QString user;       // ACL user; empty means the legacy single password
    QString password;   // never logged, never written to settings
    int database = 0;

    // TLS
    QString caFile;
    QString certFile;
    QString keyFile;
    QString serverName; // SNI and verification name; defaults to host
    bool verifyPeer = true;

    QString clientName = QStringLiteral("sluice");
    int connectTimeoutMs = 5000;
    int commandTimeoutMs = 5000;

    // Parses redis://[user:pass@]host:port[/db], rediss://... and unix:///path[?db=N].
    // On failure returns false and sets *error to a sentence naming the problem.
    static bool fromUrl(const QString &url, ConnectionOptions *options, QString *error);

    // host:port or the socket path, for messages; never contains the password.
    QString address() const;
    // The URL without its password, for titles and logs.
    QString redactedUrl() const;
};

} // namespace sluice::redis
