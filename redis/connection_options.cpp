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
        *error = QStringLiteral("the database must be a non-negative number, not \"%1\"").arg(text);
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

// redis-sentinel://[user:pass@]host:port[,host:port...][/db]#service. QUrl takes one host only.
bool parseSentinelUrl(const QString &text, bool tls, ConnectionOptions *parsed, QString *error)
{
    QString rest = text.mid(text.indexOf(QLatin1String("://")) + 3);
    const qsizetype hash = rest.indexOf(QLatin1Char('#'));
    parsed->sentinelService = hash < 0 ? QString() : QUrl::fromPercentEncoding(rest.mid(hash + 1).toUtf8());
    if (parsed->sentinelService.isEmpty()) {
        *error
            = QStringLiteral("a Sentinel URL names its service after '#', as in redis-sentinel://host:26379#mymaster");
        return false;
    }
    rest.truncate(hash);
    const qsizetype slash = rest.indexOf(QLatin1Char('/'));
    if (slash >= 0) {
        const QString path = rest.mid(slash + 1);
        if (!path.isEmpty() && !parseDatabase(path, &parsed->database, error))
            return false;
        rest.truncate(slash);
    }
    const qsizetype at = rest.lastIndexOf(QLatin1Char('@'));
    if (at >= 0) {
        const QString userInfo = rest.left(at);
        const qsizetype colon = userInfo.indexOf(QLatin1Char(':'));
        parsed->user = QUrl::fromPercentEncoding(userInfo.left(colon).toUtf8());
        parsed->password = colon < 0 ? QString() : QUrl::fromPercentEncoding(userInfo.mid(colon + 1).toUtf8());
        rest = rest.mid(at + 1);
    }
    parsed->sentinels.clear();
    for (const QString &item : rest.split(QLatin1Char(','))) {
        HostPort sentinel;
        // A bracketed IPv6 host has a port after "]:", a bare name or IPv4 after its one ':'.
        const bool hasPort = item.startsWith(QLatin1Char('[')) ? item.contains(QLatin1String("]:"))
                                                               : item.count(QLatin1Char(':')) == 1;
        if (!HostPort::parse(hasPort ? item : QStringLiteral("%1:%2").arg(item).arg(defaultSentinelPort), &sentinel,
                             error))
            return false;
        parsed->sentinels.append(sentinel);
    }
    parsed->transport = tls ? ConnectionOptions::Transport::Tls : ConnectionOptions::Transport::Tcp;
    parsed->host.clear();
    parsed->port = 0;
    return true;
}

} // namespace

QString HostPort::toString() const
{
    return host.contains(QLatin1Char(':')) ? QStringLiteral("[%1]:%2").arg(host).arg(port)
                                           : QStringLiteral("%1:%2").arg(host).arg(port);
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
    if (colon <= 0 || host.isEmpty() || host.contains(QRegularExpression(QStringLiteral("[\\s/@#,\\[\\]]")))) {
        *error = QStringLiteral("\"%1\" is not host:port").arg(trimmed);
        return false;
    }
    if (!ok || port == 0 || port > 65535) {
        *error = QStringLiteral("the port of \"%1\" must be between 1 and 65535").arg(trimmed);
        return false;
    }
    *address = {host, static_cast<quint16>(port)};
    return true;
}

bool ConnectionOptions::fromUrl(const QString &text, ConnectionOptions *options, QString *error)
{
    const QString scheme = text.trimmed().section(QLatin1String("://"), 0, 0).toLower();
    if (scheme == QLatin1String("redis-sentinel") || scheme == QLatin1String("rediss-sentinel")) {
        ConnectionOptions parsed = *options;
        if (!parseSentinelUrl(text.trimmed(), scheme.startsWith(QLatin1String("rediss")), &parsed, error))
            return false;
        *options = parsed;
        return true;
    }

    const QUrl url(text.trimmed(), QUrl::StrictMode);
    if (text.trimmed().isEmpty()) {
        *error = QStringLiteral("the URL is empty");
        return false;
    }
    if (!url.isValid()) {
        *error = QStringLiteral("not a valid URL: %1").arg(url.errorString());
        return false;
    }

    ConnectionOptions parsed = *options;
    parsed.sentinels.clear();
    parsed.sentinelService.clear();
    if (scheme == QLatin1String("unix")) {
        parsed.transport = Transport::Unix;
        parsed.socketPath = url.path();
        if (parsed.socketPath.isEmpty()) {
            *error = QStringLiteral("a unix:// URL needs a socket path, as in unix:///run/redis.sock");
            return false;
        }
        const QUrlQuery query(url);
        if (query.hasQueryItem(QStringLiteral("db"))
            && !parseDatabase(query.queryItemValue(QStringLiteral("db")), &parsed.database, error))
            return false;
    } else if (scheme == QLatin1String("redis") || scheme == QLatin1String("rediss")) {
        parsed.transport = scheme == QLatin1String("rediss") ? Transport::Tls : Transport::Tcp;
        parsed.host = url.host();
        if (parsed.host.isEmpty()) {
            *error = QStringLiteral("the URL names no host");
            return false;
        }
        const int port = url.port(6379);
        if (port <= 0 || port > 65535) {
            *error = QStringLiteral("the port must be between 1 and 65535");
            return false;
        }
        parsed.port = static_cast<quint16>(port);
        const QString path = url.path();
        if (!path.isEmpty() && path != QLatin1String("/")
            && !parseDatabase(path.mid(1), &parsed.database, error))
            return false;
    } else {
        *error = QStringLiteral("unsupported scheme \"%1\": use redis://, rediss://, unix:// or redis-sentinel://")
                     .arg(url.scheme());
        return false;
    }

    // A URL with only a password (redis://:secret@host) uses the legacy AUTH form.
    if (!url.userName().isEmpty() || !url.password().isEmpty()) {
        parsed.user = url.userName();
        parsed.password = url.password();
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
