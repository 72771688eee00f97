// SPDX-License-Identifier: GPL-3.0-or-later
#include "support/test_services.h"

#include <QUuid>

namespace sluice::test {

redis::ConnectionOptions optionsFor(const QString &url)
{
    redis::ConnectionOptions options;
    QString error;
    if (!redis::ConnectionOptions::fromUrl(url, &options, &error))
        qFatal("bad service URL %s: %s", qPrintable(url), qPrintable(error));
    options.connectTimeoutMs = 3000;
    options.commandTimeoutMs = 3000;
    return options;
}

QString uniqueNamespace(const char *prefix)
{
    return QLatin1String(prefix) + QUuid::createUuid().toString(QUuid::Id128).left(8);
}

QByteArray js(const char *text)
{
    return QByteArray(text).replace('\'', '"');
}

} // namespace sluice::test
