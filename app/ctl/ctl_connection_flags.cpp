// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/ctl/ctl_connection_flags.h"

#include "app/ctl/ctl_tr.h"

#include <QCoreApplication>

namespace sluice::app {

CtlConnectionFlags::CtlConnectionFlags()
    : m_url(
        {QStringLiteral("u"), QStringLiteral("url")},
        Ctl::tr("Redis URL: redis://[user:pass@]host:port[/db], rediss://..., unix:///path, or "
                "redis-sentinel://host:port[,host:port]#service. A Cluster is recognised from any node. Default: %1.")
            .arg(redis::ConnectionOptions().redactedUrl()),
        QStringLiteral("url"))
    , m_host(QStringLiteral("h"), Ctl::tr("Server host name."), QStringLiteral("host"))
    , m_port(QStringLiteral("p"), Ctl::tr("Server port."), QStringLiteral("port"))
    , m_socket(QStringLiteral("s"), Ctl::tr("Server unix socket."), QStringLiteral("socket"))
    , m_database(QStringLiteral("n"), Ctl::tr("Database number."), QStringLiteral("db"))
    , m_user(QStringLiteral("user"), Ctl::tr("ACL user name (use with --pass)."), QStringLiteral("username"))
    , m_password({QStringLiteral("a"), QStringLiteral("pass")},
                 Ctl::tr("Password. Safer: the REDISCLI_AUTH environment variable."), QStringLiteral("password"))
    , m_tls(QStringLiteral("tls"), Ctl::tr("Connect with TLS."))
    , m_caFile(QStringLiteral("cacert"), Ctl::tr("CA certificate file that signs the server's certificate."),
               QStringLiteral("file"))
    , m_certFile(QStringLiteral("cert"), Ctl::tr("Client certificate file."), QStringLiteral("file"))
    , m_keyFile(QStringLiteral("key"),
                Ctl::tr("Client private key file (its passphrase, if any, in SLUICE_TLS_KEY_PASSPHRASE)."),
                QStringLiteral("file"))
    , m_serverName(QStringLiteral("sni"), Ctl::tr("Server name for SNI and certificate verification."),
                   QStringLiteral("host"))
    , m_insecure(QStringLiteral("insecure"),
                 Ctl::tr("Do not verify the server's certificate (you will be told each time)."))
{
}

QList<QCommandLineOption> CtlConnectionFlags::options() const
{
    return {m_url, m_host,   m_port,     m_socket,  m_database,   m_user,    m_password,
            m_tls, m_caFile, m_certFile, m_keyFile, m_serverName, m_insecure};
}

bool CtlConnectionFlags::read(const QCommandLineParser &parser, redis::ConnectionOptions *options, QString *error,
                              QString *warning) const
{
    using Transport = redis::ConnectionOptions::Transport;
    redis::ConnectionOptions result = *options;
    QString urlError;
    if (parser.isSet(m_url) && !redis::ConnectionOptions::fromUrl(parser.value(m_url), &result, &urlError)) {
        *error = Ctl::tr("bad --url: %1").arg(urlError);
        return false;
    }
    // The options given never hold a password (a profile's is in the keychain): any now came in the URL.
    const bool urlGavePassword = !result.password.isEmpty();
    if (parser.isSet(m_socket) && (parser.isSet(m_host) || parser.isSet(m_port))) {
        *error = Ctl::tr("-s names a unix socket; it cannot go with -h or -p");
        return false;
    }
    if ((parser.isSet(m_host) || parser.isSet(m_port) || parser.isSet(m_socket)) && result.usesSentinel()) {
        *error = Ctl::tr("-h, -p and -s name one server; a redis-sentinel:// URL names the sentinels instead");
        return false;
    }
    if (parser.isSet(m_host)) {
        result.host = parser.value(m_host).trimmed();
        if (result.host.isEmpty()) {
            *error = Ctl::tr("-h needs a host name");
            return false;
        }
        // Not quoted: a host with '@' in it may be user:password@host.
        if (!redis::HostPort::isValidHost(result.host)) {
            *error = Ctl::tr("-h takes a host name or address alone (no user, password, brackets or spaces)");
            return false;
        }
        if (result.transport == Transport::Unix)
            result.transport = Transport::Tcp;
    }
    if (parser.isSet(m_port)) {
        bool ok = false;
        const uint port = parser.value(m_port).toUInt(&ok);
        if (!ok || port == 0 || port > 65535) {
            *error = Ctl::tr("-p must be a port between 1 and 65535, not \"%1\"").arg(parser.value(m_port));
            return false;
        }
        result.port = static_cast<quint16>(port);
        if (result.transport == Transport::Unix)
            result.transport = Transport::Tcp;
    }
    if (parser.isSet(m_socket)) {
        result.transport = Transport::Unix;
        result.socketPath = parser.value(m_socket);
    }
    if (parser.isSet(m_database)) {
        bool ok = false;
        const int database = parser.value(m_database).toInt(&ok);
        if (!ok || database < 0) {
            *error = Ctl::tr("-n must be a database number, not \"%1\"").arg(parser.value(m_database));
            return false;
        }
        result.database = database;
    }
    if (parser.isSet(m_user))
        result.user = parser.value(m_user);
    QStringList visiblePasswordFlags;
    if (urlGavePassword)
        visiblePasswordFlags << Ctl::tr("-u or --url");
    if (parser.isSet(m_password)) {
        result.password = parser.value(m_password);
        visiblePasswordFlags << Ctl::tr("-a or --pass");
    } else if (result.password.isEmpty() && qEnvironmentVariableIsSet("REDISCLI_AUTH")) {
        result.password = qEnvironmentVariable("REDISCLI_AUTH");
    }
    if (!visiblePasswordFlags.isEmpty())
        *warning = Ctl::tr("warning: a password given with %1 may be seen by other users; use REDISCLI_AUTH")
                       .arg(visiblePasswordFlags.join(Ctl::tr(" and ")));
    const bool tlsFlags = parser.isSet(m_caFile) || parser.isSet(m_certFile) || parser.isSet(m_keyFile)
        || parser.isSet(m_serverName) || parser.isSet(m_insecure);
    if (parser.isSet(m_tls) || tlsFlags) {
        if (result.transport == Transport::Unix) {
            *error = Ctl::tr("TLS flags cannot go with a unix socket");
            return false;
        }
        if (!parser.isSet(m_tls) && result.transport != Transport::Tls) {
            *error = Ctl::tr("--cacert, --cert, --key, --sni and --insecure need --tls or a rediss:// URL");
            return false;
        }
        result.transport = Transport::Tls;
    }
    if (parser.isSet(m_caFile))
        result.caFile = parser.value(m_caFile);
    if (parser.isSet(m_certFile))
        result.certFile = parser.value(m_certFile);
    if (parser.isSet(m_keyFile))
        result.keyFile = parser.value(m_keyFile);
    if (result.certFile.isEmpty() != result.keyFile.isEmpty()) {
        *error = Ctl::tr("--cert and --key go together");
        return false;
    }
    if (result.keyPassphrase.isEmpty())
        result.keyPassphrase = qEnvironmentVariable("SLUICE_TLS_KEY_PASSPHRASE");
    if (parser.isSet(m_serverName))
        result.serverName = parser.value(m_serverName);
    if (parser.isSet(m_insecure))
        result.verifyPeer = false;
    *options = result;
    return true;
}

} // namespace sluice::app
