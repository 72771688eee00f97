// SPDX-License-Identifier: GPL-3.0-or-later
// TLS against the test command's two TLS servers: one that needs no client certificate and one
// that requires it. Verification is on by default and failures say why.

#include "redis/redis_connection.h"
#include "support/sync_command.h"
#include "support/test_services.h"

#include <QTest>

using namespace sluice;
using redis::RedisConnection;
using test::openAndWait;
using test::syncCommand;

class TestTlsConnection : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void connectsWithTrustedCa()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_TLS_URL", "Redis with TLS");
        SLUICE_REQUIRE_SERVICE(ca, "SLUICE_TEST_TLS_CA", "the test CA certificate");
        auto options = test::optionsFor(url);
        options.caFile = ca;
        RedisConnection connection(options);
        QVERIFY2(openAndWait(connection), qPrintable(connection.lastError()));
        QVERIFY(syncCommand(connection, {"PING"}).ok());
    }

    void rejectsUntrustedServer()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_TLS_URL", "Redis with TLS");
        SLUICE_REQUIRE_SERVICE(otherCa, "SLUICE_TEST_TLS_OTHER_CA", "an unrelated CA certificate");
        auto options = test::optionsFor(url);
        options.caFile = otherCa;
        RedisConnection connection(options);
        connection.setAutoReconnect(false);
        QVERIFY(!openAndWait(connection));
        QVERIFY2(connection.lastError().startsWith(QLatin1String("TLS certificate rejected")),
                 qPrintable(connection.lastError()));
    }

    void rejectsWrongServerName()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_TLS_URL", "Redis with TLS");
        SLUICE_REQUIRE_SERVICE(ca, "SLUICE_TEST_TLS_CA", "the test CA certificate");
        auto options = test::optionsFor(url);
        options.caFile = ca;
        options.serverName = QStringLiteral("redis.example.com");
        RedisConnection connection(options);
        connection.setAutoReconnect(false);
        QVERIFY(!openAndWait(connection));
        QVERIFY2(connection.lastError().contains(QLatin1String("host name"), Qt::CaseInsensitive),
                 qPrintable(connection.lastError()));
    }

    void verificationOffIsExplicit()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_TLS_URL", "Redis with TLS");
        auto options = test::optionsFor(url);
        QVERIFY(options.verifyPeer); // on unless someone turns it off
        options.verifyPeer = false;
        RedisConnection connection(options);
        QVERIFY2(openAndWait(connection), qPrintable(connection.lastError()));
        QVERIFY(syncCommand(connection, {"PING"}).ok());
    }

    void mutualTlsNeedsClientCertificate()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_TLS_MUTUAL_URL", "Redis with TLS client certificates");
        SLUICE_REQUIRE_SERVICE(ca, "SLUICE_TEST_TLS_CA", "the test CA certificate");
        auto options = test::optionsFor(url);
        options.caFile = ca;
        RedisConnection anonymous(options);
        anonymous.setAutoReconnect(false);
        QVERIFY(!openAndWait(anonymous));
        QVERIFY(!anonymous.lastError().isEmpty());
    }

    void mutualTlsWithClientCertificate()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_TLS_MUTUAL_URL", "Redis with TLS client certificates");
        SLUICE_REQUIRE_SERVICE(ca, "SLUICE_TEST_TLS_CA", "the test CA certificate");
        SLUICE_REQUIRE_SERVICE(cert, "SLUICE_TEST_TLS_CLIENT_CERT", "the test client certificate");
        SLUICE_REQUIRE_SERVICE(key, "SLUICE_TEST_TLS_CLIENT_KEY", "the test client key");
        auto options = test::optionsFor(url);
        options.caFile = ca;
        options.certFile = cert;
        options.keyFile = key;
        RedisConnection connection(options);
        QVERIFY2(openAndWait(connection), qPrintable(connection.lastError()));
        QCOMPARE(syncCommand(connection, {"ECHO", "mutual"}).value.bytes, QByteArray("mutual"));
    }

    void encryptedClientKeyNeedsItsPassphrase()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_TLS_MUTUAL_URL", "Redis with TLS client certificates");
        SLUICE_REQUIRE_SERVICE(ca, "SLUICE_TEST_TLS_CA", "the test CA certificate");
        SLUICE_REQUIRE_SERVICE(cert, "SLUICE_TEST_TLS_CLIENT_CERT", "the test client certificate");
        SLUICE_REQUIRE_SERVICE(key, "SLUICE_TEST_TLS_CLIENT_ENCRYPTED_KEY", "the encrypted test client key");
        SLUICE_REQUIRE_SERVICE(passphrase, "SLUICE_TEST_TLS_CLIENT_KEY_PASSPHRASE", "the test key's passphrase");
        auto options = test::optionsFor(url);
        options.caFile = ca;
        options.certFile = cert;
        options.keyFile = key;

        const auto failureWith = [&](const QString &given) {
            auto attempt = options;
            attempt.keyPassphrase = given;
            RedisConnection connection(attempt);
            connection.setAutoReconnect(false);
            return openAndWait(connection) ? QString() : connection.lastError();
        };
        const QString missing = failureWith({});
        QVERIFY2(missing.contains(QLatin1String("encrypted")) && missing.contains(key), qPrintable(missing));
        const QString wrong = failureWith(QStringLiteral("not-the-passphrase"));
        QVERIFY2(wrong.contains(QLatin1String("wrong passphrase")), qPrintable(wrong));
        QVERIFY(!wrong.contains(QLatin1String("not-the-passphrase")));

        options.keyPassphrase = passphrase;
        RedisConnection connection(options);
        QVERIFY2(openAndWait(connection), qPrintable(connection.lastError()));
        QCOMPARE(syncCommand(connection, {"ECHO", "encrypted key"}).value.bytes, QByteArray("encrypted key"));
    }

    void missingCertificateFileIsClear()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_TLS_URL", "Redis with TLS");
        auto options = test::optionsFor(url);
        options.caFile = QStringLiteral("/nonexistent/ca.pem");
        RedisConnection connection(options);
        connection.setAutoReconnect(false);
        QVERIFY(!openAndWait(connection));
        QVERIFY2(connection.lastError().contains(QLatin1String("/nonexistent/ca.pem")),
                 qPrintable(connection.lastError()));
    }
};

QTEST_GUILESS_MAIN(TestTlsConnection)
#include "tst_tls_connection.moc"
