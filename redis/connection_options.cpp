// SPDX-License-Identifier: GPL-3.0-or-later
#include "redis/connection_options.h"

#include <QRegularExpression>
#include <QUrl>
#include <QUrlQuery>

namespace sluice::redis {

namespace {

bool parseDatabase(const QString &text, int *database, QString *error)
{
    bool ok = false;
    const int value = text.toInt(&ok);
    if (!ok || value < 0) {
        // The text is not quoted: in a mistyped URL it may be part of a password.
        *error = QStringLiteral("the database must be a non-negative number");
        return false;
    }
    *database = value;
    return true;
}

constexpr quint16 defaultSentinelPort = 26379;

QString joinedAddresses(const QVector<HostPort> &nodes)
{
    QStringList addresses;
    for (const HostPort &node : nodes)
        addresses << node.toString();
    return addresses.join(QLatin1Char(','));
}

// A URL as typed, its userinfo taken off before anything else reads it: everything between "://" and
// the last '@', so a password holding ':' '/' '?' '#' or '@' comes off whole, and no message about the
// rest of the URL can quote any part of it.
struct UrlParts {
    QString scheme;  // lower case; empty when the text has no "://"
    QString address; // what follows the scheme and the userinfo
    QString user;
    QString password;
};

UrlParts splitUrl(const QString &text)
{
    UrlParts parts;
    const qsizetype schemeEnd = text.indexOf(QLatin1String("://"));
    if (schemeEnd >= 0)
        parts.scheme = text.left(schemeEnd).toLower();
    parts.address = schemeEnd < 0 ? text : text.mid(schemeEnd + 3);
    // unix:///path has no authority: an '@' in the path is part of the path.
    const qsizetype at = parts.address.startsWith(QLatin1Char('/')) ? -1 : parts.address.lastIndexOf(QLatin1Char('@'));
    if (at >= 0) {
        const QString userInfo = parts.address.left(at);
        const qsizetype colon = userInfo.indexOf(QLatin1Char(':'));
        parts.user = QUrl::fromPercentEncoding(userInfo.left(colon).toUtf8());
        parts.password = colon < 0 ? QString() : QUrl::fromPercentEncoding(userInfo.mid(colon + 1).toUtf8());
        parts.address = parts.address.mid(at + 1);
    }
    return parts;
}

// host:port[,host:port...][/db]#service, the address of a redis-sentinel:// URL. QUrl takes one host only.
bool parseSentinelAddress(QString address, ConnectionOptions *parsed, QString *error)
{
    const qsizetype hash = address.indexOf(QLatin1Char('#'));
    parsed->sentinelService = hash < 0 ? QString() : QUrl::fromPercentEncoding(address.mid(hash + 1).toUtf8());
    if (parsed->sentinelService.isEmpty()) {
        *error
            = QStringLiteral("a Sentinel URL names its service after '#', as in redis-sentinel://host:26379#mymaster");
        return false;
    }
    address.truncate(hash);
    const qsizetype slash = address.indexOf(QLatin1Char('/'));
    if (slash >= 0) {
        const QString path = address.mid(slash + 1);
        if (!path.isEmpty() && !parseDatabase(path, &parsed->database, error))
            return false;
        address.truncate(slash);
    }
    parsed->sentinels.clear();
    const QStringList items = address.split(QLatin1Char(','));
    for (int i = 0; i < items.size(); ++i) {
        const QString &item = items.at(i);
        // A bracketed IPv6 host has a port after "]:", a bare name or IPv4 after its one ':'.
        const bool hasPort = item.startsWith(QLatin1Char('[')) ? item.contains(QLatin1String("]:"))
                                                               : item.count(QLatin1Char(':')) == 1;
        HostPort sentinel;
        QString itemError;
        if (!HostPort::parse(hasPort ? item : QStringLiteral("%1:%2").arg(item).arg(defaultSentinelPort), &sentinel,
                             &itemError)) {
            *error = QStringLiteral("sentinel %1 of %2: %3").arg(i + 1).arg(items.size()).arg(itemError);
            return false;
        }
        parsed->sentinels.append(sentinel);
    }
    parsed->host.clear();
    parsed->port = 0;
    return true;
}

// The address of a redis://, rediss:// or unix:// URL, its userinfo already taken off.
bool parseServerAddress(const QString &scheme, const QString &address, ConnectionOptions *parsed, QString *error)
{
    using Transport = ConnectionOptions::Transport;
    const QUrl url(scheme + QLatin1String("://") + address, QUrl::StrictMode);
    if (!url.isValid()) {
        // Only QUrl's sentence: the rest of its message quotes the URL.
        *error = QStringLiteral("not a valid URL: %1").arg(url.errorString().section(QLatin1Char(';'), 0, 0));
        return false;
    }
    parsed->sentinels.clear();
    parsed->sentinelService.clear();
    if (scheme == QLatin1String("unix")) {
        parsed->transport = Transport::Unix;
        parsed->socketPath = url.path();
        if (parsed->socketPath.isEmpty()) {
            *error = QStringLiteral("a unix:// URL needs a socket path, as in unix:///run/redis.sock");
            return false;
        }
        const QUrlQuery query(url);
        return !query.hasQueryItem(QStringLiteral("db"))
            || parseDatabase(query.queryItemValue(QStringLiteral("db")), &parsed->database, error);
    }
    parsed->transport = scheme == QLatin1String("rediss") ? Transport::Tls : Transport::Tcp;
    parsed->host = url.host();
    if (parsed->host.isEmpty()) {
        *error = QStringLiteral("the URL names no host");
        return false;
    }
    const int port = url.port(6379);
    if (port <= 0 || port > 65535) {
        *error = QStringLiteral("the port must be between 1 and 65535");
        return false;
    }
    parsed->port = static_cast<quint16>(port);
    const QString path = url.path();
    return path.isEmpty() || path == QLatin1String("/") || parseDatabase(path.mid(1), &parsed->database, error);
}

QString unsupportedScheme(const QString &scheme)
{
    static const QRegularExpression schemeSyntax(
        QRegularExpression::anchoredPattern(QStringLiteral("[a-z][a-z0-9+.-]{0,31}")));
    const QString known = QStringLiteral("use redis://, rediss://, unix://, redis-sentinel:// or rediss-sentinel://");
    if (scheme.isEmpty())
        return QStringLiteral("the URL has no scheme: %1").arg(known);
    // Anything else before "://" may be a mistyped password: it is not quoted.
    return schemeSyntax.match(scheme).hasMatch() ? QStringLiteral("unsupported scheme \"%1\": %2").arg(scheme, known)
                                                 : QStringLiteral("unsupported scheme: %1").arg(known);
}

} // namespace

QString HostPort::toString() const
{
    return host.contains(QLatin1Char(':')) ? QStringLiteral("[%1]:%2").arg(host).arg(port)
                                           : QStringLiteral("%1:%2").arg(host).arg(port);
}

bool HostPort::isValidHost(const QString &host)
{
    static const QRegularExpression notInAHost(QStringLiteral("[\\s\\x00-\\x1f\\x7f/@#?,\\[\\]]"));
    return !host.isEmpty() && !host.contains(notInAHost);
}

bool HostPort::parse(const QString &text, HostPort *address, QString *error)
{
    const QString trimmed = text.trimmed();
    const qsizetype colon = trimmed.lastIndexOf(QLatin1Char(':'));
    QString host = trimmed.left(colon);
    if (host.startsWith(QLatin1Char('[')) && host.endsWith(QLatin1Char(']')))
        host = host.mid(1, host.size() - 2);
    bool ok = false;
    const uint port = trimmed.mid(colon + 1).toUInt(&ok);
    // The text is not quoted: typed in the wrong place, it may hold a password.
    if (colon <= 0 || !isValidHost(host)) {
        *error = QStringLiteral("not host:port (an IPv6 host in brackets)");
        return false;
    }
    if (!ok || port == 0 || port > 65535) {
        *error = QStringLiteral("the port must be between 1 and 65535");
        return false;
    }
    *address = {host, static_cast<quint16>(port)};
    return true;
}

bool ConnectionOptions::fromUrl(const QString &text, ConnectionOptions *options, QString *error)
{
    const QString trimmed = text.trimmed();
    if (trimmed.isEmpty()) {
        *error = QStringLiteral("the URL is empty");
        return false;
    }
    const UrlParts parts = splitUrl(trimmed);
    ConnectionOptions parsed = *options;
    if (parts.scheme == QLatin1String("redis-sentinel") || parts.scheme == QLatin1String("rediss-sentinel")) {
        if (!parseSentinelAddress(parts.address, &parsed, error))
            return false;
        parsed.transport = parts.scheme.startsWith(QLatin1String("rediss")) ? Transport::Tls : Transport::Tcp;
    } else if (parts.scheme == QLatin1String("redis") || parts.scheme == QLatin1String("rediss")
               || parts.scheme == QLatin1String("unix")) {
        if (!parseServerAddress(parts.scheme, parts.address, &parsed, error))
            return false;
    } else {
        *error = unsupportedScheme(parts.scheme);
        return false;
    }
    // A URL with only a password (redis://:secret@host) uses the legacy AUTH form.
    if (!parts.user.isEmpty() || !parts.password.isEmpty()) {
        parsed.user = parts.user;
        parsed.password = parts.password;
    }
    *options = parsed;
    return true;
}

QString ConnectionOptions::address() const
{
    if (transport == Transport::Unix)
        return socketPath;
    if (usesSentinel())
        return joinedAddresses(sentinels) + QLatin1Char('#') + sentinelService;
    return HostPort{host, port}.toString();
}

ConnectionOptions ConnectionOptions::forNode(const HostPort &node) const
{
    ConnectionOptions options = *this;
    if (options.transport == Transport::Unix)
        options.transport = Transport::Tcp;
    options.socketPath.clear();
    options.sentinels.clear();
    options.sentinelService.clear();
    options.host = node.host;
    options.port = node.port;
    return options;
}

QString ConnectionOptions::redactedUrl() const
{
    if (transport == Transport::Unix)
        return QStringLiteral("unix://") + socketPath + (database ? QStringLiteral("?db=%1").arg(database) : QString());
    QString scheme = transport == Transport::Tls ? QStringLiteral("rediss") : QStringLiteral("redis");
    if (usesSentinel())
        scheme += QLatin1String("-sentinel");
    const QString userPart = user.isEmpty() ? QString() : user + QLatin1Char('@');
    const QString dbPart = database ? QStringLiteral("/%1").arg(database) : QString();
    if (usesSentinel())
        return QStringLiteral("%1://%2%3%4#%5")
            .arg(scheme, userPart, joinedAddresses(sentinels), dbPart, sentinelService);
    return QStringLiteral("%1://%2%3%4").arg(scheme, userPart, address(), dbPart);
}

} // namespace sluice::redis
