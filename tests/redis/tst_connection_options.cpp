// Connection URLs: every accepted form, and a clear error for each malformed one.

#include "redis/connection_options.h"

#include <QTest>

using sluice::redis::ConnectionOptions;

class TestConnectionOptions : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void parsesPlainUrl()
    {
        ConnectionOptions options;
        QString error;
        QVERIFY2(ConnectionOptions::fromUrl(QStringLiteral("redis://cache.internal:7000/3"), &options, &error),
                 qPrintable(error));
        QCOMPARE(options.transport, ConnectionOptions::Transport::Tcp);
        QCOMPARE(options.host, QStringLiteral("cache.internal"));
        QCOMPARE(options.port, quint16(7000));
        QCOMPARE(options.database, 3);
        QVERIFY(options.user.isEmpty());
        QVERIFY(options.password.isEmpty());
    }

    void parsesCredentialsAndTls()
    {
        ConnectionOptions options;
        QString error;
        QVERIFY(ConnectionOptions::fromUrl(QStringLiteral("rediss://ops:s%40cret@10.0.0.5"), &options, &error));
        QCOMPARE(options.transport, ConnectionOptions::Transport::Tls);
        QCOMPARE(options.port, quint16(6379));
        QCOMPARE(options.user, QStringLiteral("ops"));
        QCOMPARE(options.password, QStringLiteral("s@cret"));
        QVERIFY(options.verifyPeer);
        QVERIFY(!options.redactedUrl().contains(QLatin1String("cret")));
        QCOMPARE(options.redactedUrl(), QStringLiteral("rediss://ops@10.0.0.5:6379"));
    }

    void legacyPasswordHasNoUser()
    {
        ConnectionOptions options;
        QString error;
        QVERIFY(ConnectionOptions::fromUrl(QStringLiteral("redis://:only-password@localhost"), &options, &error));
        QVERIFY(options.user.isEmpty());
        QCOMPARE(options.password, QStringLiteral("only-password"));
    }

    void parsesUnixSocket()
    {
        ConnectionOptions options;
        QString error;
        QVERIFY(ConnectionOptions::fromUrl(QStringLiteral("unix:///run/redis/redis.sock?db=2"), &options, &error));
        QCOMPARE(options.transport, ConnectionOptions::Transport::Unix);
        QCOMPARE(options.socketPath, QStringLiteral("/run/redis/redis.sock"));
        QCOMPARE(options.database, 2);
    }

    void parsesIpv6()
    {
        ConnectionOptions options;
        QString error;
        QVERIFY(ConnectionOptions::fromUrl(QStringLiteral("redis://[::1]:6380"), &options, &error));
        QCOMPARE(options.host, QStringLiteral("::1"));
        QCOMPARE(options.address(), QStringLiteral("[::1]:6380"));
    }

    void rejectsMalformed_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QString>("expected");
        QTest::newRow("empty") << QString() << QStringLiteral("empty");
        QTest::newRow("scheme") << QStringLiteral("http://localhost") << QStringLiteral("unsupported scheme");
        QTest::newRow("no host") << QStringLiteral("redis://:6379") << QStringLiteral("no host");
        QTest::newRow("bad port") << QStringLiteral("redis://localhost:99999") << QStringLiteral("port");
        QTest::newRow("port text") << QStringLiteral("redis://localhost:abc") << QStringLiteral("not a valid URL");
        QTest::newRow("db text") << QStringLiteral("redis://localhost/abc") << QStringLiteral("database");
        QTest::newRow("db negative") << QStringLiteral("redis://localhost/-1") << QStringLiteral("database");
        QTest::newRow("unix no path") << QStringLiteral("unix://") << QStringLiteral("socket path");
        QTest::newRow("bare word") << QStringLiteral("localhost") << QStringLiteral("unsupported scheme");
    }

    void rejectsMalformed()
    {
        QFETCH(QString, url);
        QFETCH(QString, expected);
        ConnectionOptions options;
        options.host = QStringLiteral("unchanged");
        QString error;
        QVERIFY(!ConnectionOptions::fromUrl(url, &options, &error));
        QVERIFY2(error.contains(expected), qPrintable(error));
        QCOMPARE(options.host, QStringLiteral("unchanged"));
    }
};

QTEST_GUILESS_MAIN(TestConnectionOptions)
#include "tst_connection_options.moc"
