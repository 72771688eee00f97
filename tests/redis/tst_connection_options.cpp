// SPDX-License-Identifier: GPL-3.0-or-later
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

    void parsesSentinelUrl()
    {
        ConnectionOptions options;
        QString error;
        QVERIFY2(
            ConnectionOptions::fromUrl(
                QStringLiteral("redis-sentinel://app:s%40cret@10.0.0.1:26380,[::1],sentinel-3:5000/2#my%20primary"),
                &options, &error),
            qPrintable(error));
        QVERIFY(options.usesSentinel());
        QCOMPARE(options.sentinels.size(), 3);
        QCOMPARE(options.sentinels.at(0).toString(), QStringLiteral("10.0.0.1:26380"));
        QCOMPARE(options.sentinels.at(1).toString(), QStringLiteral("[::1]:26379"));
        QCOMPARE(options.sentinels.at(2).toString(), QStringLiteral("sentinel-3:5000"));
        QCOMPARE(options.sentinelService, QStringLiteral("my primary"));
        QCOMPARE(options.user, QStringLiteral("app"));
        QCOMPARE(options.password, QStringLiteral("s@cret"));
        QCOMPARE(options.database, 2);
        QCOMPARE(options.transport, ConnectionOptions::Transport::Tcp);
        QCOMPARE(options.redactedUrl(),
                 QStringLiteral("redis-sentinel://app@10.0.0.1:26380,[::1]:26379,sentinel-3:5000/2#my primary"));
        QVERIFY(ConnectionOptions::fromUrl(QStringLiteral("rediss-sentinel://h:1#s"), &options, &error));
        QCOMPARE(options.transport, ConnectionOptions::Transport::Tls);
        // A plain URL afterwards is no longer a Sentinel one.
        QVERIFY(ConnectionOptions::fromUrl(QStringLiteral("redis://h:1"), &options, &error));
        QVERIFY(!options.usesSentinel());
    }

    // The userinfo runs to the last '@': a password may hold any character, percent-encoded or not.
    void passwordMayHoldAnyCharacter()
    {
        ConnectionOptions options;
        QString error;
        QVERIFY2(
            ConnectionOptions::fromUrl(QStringLiteral("redis://ops:p@ss:w/rd?#x y@cache:6380/2"), &options, &error),
            qPrintable(error));
        QCOMPARE(options.user, QStringLiteral("ops"));
        QCOMPARE(options.password, QStringLiteral("p@ss:w/rd?#x y"));
        QCOMPARE(options.host, QStringLiteral("cache"));
        QCOMPARE(options.port, quint16(6380));
        QCOMPARE(options.database, 2);
        QCOMPARE(options.redactedUrl(), QStringLiteral("redis://ops@cache:6380/2"));
        QVERIFY(
            ConnectionOptions::fromUrl(QStringLiteral("redis-sentinel://ops:a#b@c,d@h1:1,h2:2#svc"), &options, &error));
        QCOMPARE(options.password, QStringLiteral("a#b@c,d"));
        QCOMPARE(options.sentinels.size(), 2);
        QCOMPARE(options.sentinelService, QStringLiteral("svc"));
        // unix:///path has no userinfo: an '@' there is part of the path.
        QVERIFY(ConnectionOptions::fromUrl(QStringLiteral("unix:///run/a@b.sock"), &options, &error));
        QCOMPARE(options.socketPath, QStringLiteral("/run/a@b.sock"));
    }

    // Whatever is wrong with a URL, its error names the problem without quoting the password, even where a
    // mistyped URL leaves the password where a port, a database or a sentinel would be.
    void errorsNeverQuoteThePassword_data()
    {
        QTest::addColumn<QString>("url");
        QTest::newRow("bad host") << QStringLiteral("redis://u:Secret1@ho^st:1");
        QTest::newRow("password as port") << QStringLiteral("redis://u:Secret1");
        QTest::newRow("password as database") << QStringLiteral("redis://h:1/Secret1");
        QTest::newRow("password as sentinel port") << QStringLiteral("redis-sentinel://u:Secret1#svc");
        QTest::newRow("password as sentinel host") << QStringLiteral("redis-sentinel://h:1,:Secret1#svc");
        QTest::newRow("no scheme") << QStringLiteral("u:Secret1@h:1");
        QTest::newRow("scheme-like password") << QStringLiteral("u:Secret1://h");
        QTest::newRow("query") << QStringLiteral("redis://h^:1/?password=Secret1");
        QTest::newRow("unix database") << QStringLiteral("unix:///s.sock?db=Secret1");
    }

    void errorsNeverQuoteThePassword()
    {
        QFETCH(QString, url);
        ConnectionOptions options;
        QString error;
        QVERIFY(!ConnectionOptions::fromUrl(url, &options, &error));
        QVERIFY2(!error.contains(QLatin1String("Secret1"), Qt::CaseInsensitive), qPrintable(error));
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
        QTest::newRow("bare word") << QStringLiteral("localhost") << QStringLiteral("no scheme");
        QTest::newRow("sentinel no service")
            << QStringLiteral("redis-sentinel://h:26379") << QStringLiteral("names its service");
        QTest::newRow("sentinel empty service")
            << QStringLiteral("redis-sentinel://h:26379#") << QStringLiteral("names its service");
        QTest::newRow("sentinel no host")
            << QStringLiteral("redis-sentinel://:26379#s") << QStringLiteral("not host:port");
        QTest::newRow("sentinel empty item")
            << QStringLiteral("redis-sentinel://h:1,,h:2#s") << QStringLiteral("not host:port");
        QTest::newRow("sentinel bad port")
            << QStringLiteral("redis-sentinel://h:70000#s") << QStringLiteral("between 1 and 65535");
        QTest::newRow("sentinel port text")
            << QStringLiteral("redis-sentinel://h:x#s") << QStringLiteral("between 1 and 65535");
        QTest::newRow("sentinel db text") << QStringLiteral("redis-sentinel://h:1/x#s") << QStringLiteral("database");
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
