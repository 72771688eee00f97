#include "redis/connection_options.h"

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

} // namespace

bool ConnectionOptions::fromUrl(const QString &text, ConnectionOptions *options, QString *error)
{
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
    const QString scheme = url.scheme().toLower();
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
        *error = QStringLiteral("unsupported scheme \"%1\": use redis://, rediss:// or unix://")
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
    const QString shownHost = host.contains(QLatin1Char(':')) ? QStringLiteral("[%1]").arg(host) : host;
    return QStringLiteral("%1:%2").arg(shownHost).arg(port);
}

QString ConnectionOptions::redactedUrl() const
{
    if (transport == Transport::Unix)
        return QStringLiteral("unix://") + socketPath + (database ? QStringLiteral("?db=%1").arg(database) : QString());
    const QString scheme = transport == Transport::Tls ? QStringLiteral("rediss") : QStringLiteral("redis");
    const QString userPart = user.isEmpty() ? QString() : user + QLatin1Char('@');
    const QString dbPart = database ? QStringLiteral("/%1").arg(database) : QString();
    return QStringLiteral("%1://%2%3%4").arg(scheme, userPart, address(), dbPart);
}

} // namespace sluice::redis
