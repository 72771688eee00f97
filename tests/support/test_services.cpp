#include "support/test_services.h"

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

QByteArray js(const char *text)
{
    return QByteArray(text).replace('\'', '"');
}

} // namespace sluice::test
