// SPDX-License-Identifier: GPL-3.0-or-later
// The test command's Sentinel set: the sentinel names the primary of service "sluice-primary",
// which answers as a primary with one replica attached.

#include "redis/info_reply.h"
#include "redis/redis_connection.h"
#include "support/sync_command.h"
#include "support/test_services.h"

#include <QTest>

using namespace sluice;
using redis::RedisConnection;
using test::openAndWait;
using test::syncCommand;

class TestSentinelNodes : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sentinelNamesAWorkingPrimary()
    {
        SLUICE_REQUIRE_SERVICE(sentinel, "SLUICE_TEST_SENTINEL", "Redis Sentinel");
        SLUICE_REQUIRE_SERVICE(service, "SLUICE_TEST_SENTINEL_SERVICE", "the Sentinel service name");
        RedisConnection sentinelConnection(test::optionsFor(QStringLiteral("redis://") + sentinel));
        QVERIFY2(openAndWait(sentinelConnection), qPrintable(sentinelConnection.lastError()));
        const auto info = redis::parseInfo(syncCommand(sentinelConnection, {"INFO", "server"}).value.bytes);
        QCOMPARE(info.value(QStringLiteral("redis_mode")), QStringLiteral("sentinel"));

        const auto address = syncCommand(sentinelConnection, {"SENTINEL", "GET-MASTER-ADDR-BY-NAME", service.toUtf8()});
        QVERIFY2(address.ok(), qPrintable(address.errorText()));
        QCOMPARE(address.value.elements.size(), 2);
        const QString primaryUrl
            = QStringLiteral("redis://%1:%2")
                  .arg(address.value.elements.at(0).toString(), address.value.elements.at(1).toString());

        RedisConnection primary(test::optionsFor(primaryUrl));
        QVERIFY2(openAndWait(primary), qPrintable(primary.lastError()));
        const auto replication = redis::parseInfo(syncCommand(primary, {"INFO", "replication"}).value.bytes);
        QCOMPARE(replication.value(QStringLiteral("role")), QStringLiteral("master"));
        QCOMPARE(replication.value(QStringLiteral("connected_slaves")), QStringLiteral("1"));
    }

    void unknownServiceIsNil()
    {
        SLUICE_REQUIRE_SERVICE(sentinel, "SLUICE_TEST_SENTINEL", "Redis Sentinel");
        RedisConnection connection(test::optionsFor(QStringLiteral("redis://") + sentinel));
        QVERIFY(openAndWait(connection));
        const auto reply = syncCommand(connection, {"SENTINEL", "GET-MASTER-ADDR-BY-NAME", "no-such-service"});
        QVERIFY(reply.ok());
        QVERIFY(reply.value.isNil());
    }
};

QTEST_GUILESS_MAIN(TestSentinelNodes)
#include "tst_sentinel_nodes.moc"
