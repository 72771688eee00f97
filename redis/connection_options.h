// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QVector>

namespace sluice::redis {

// A node's network address.
struct HostPort {
    QString host;
    quint16 port = 0;
    // host:port, with an IPv6 host in brackets.
    QString toString() const;
    // Reads host:port or [v6]:port; false and *error on anything else (the error never quotes the text).
    static bool parse(const QString &text, HostPort *address, QString *error);
    // A name or an address without brackets: nothing a URL would read as a user, password, path or list.
    static bool isValidHost(const QString &host);
    bool operator==(const HostPort &other) const { return host == other.host && port == other.port; }
};

// Everything needed to reach one Redis deployment: one node, or the primary that Sentinels name.
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
    QString keyPassphrase; // for an encrypted keyFile; a secret like the password
    QString serverName;    // SNI and verification name; defaults to host
    bool verifyPeer = true;

    // Sentinel: when sentinels is not empty, host and port are whatever primary they name for
    // sentinelService. The sentinels take the same TLS settings and no password.
    QVector<HostPort> sentinels;
    QString sentinelService;

    QString clientName = QStringLiteral("sluice");
    int connectTimeoutMs = 5000;
    int commandTimeoutMs = 5000;

    // Parses redis://[user:pass@]host:port[/db], rediss://..., unix:///path[?db=N] and
    // redis-sentinel://[user:pass@]host:port[,host:port...][/db]#service (rediss-sentinel:// for TLS).
    // The user and password run to the last '@' (percent-encoding optional), so a password may hold any
    // character. On failure returns false and sets *error to a sentence naming the problem, which never
    // quotes the password, however malformed the URL.
    static bool fromUrl(const QString &url, ConnectionOptions *options, QString *error);

    bool usesSentinel() const { return !sentinels.isEmpty(); }
    // host:port or the socket path, for messages; never contains the password.
    QString address() const;
    // The same settings aimed at another node (a Cluster node, the primary a Sentinel named).
    ConnectionOptions forNode(const HostPort &node) const;
    // The URL without its password, for titles and logs.
    QString redactedUrl() const;
};

} // namespace sluice::redis
