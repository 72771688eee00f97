// SPDX-License-Identifier: GPL-3.0-or-later
// The server monitor against real servers: what it reports for a standalone server, a Cluster node
// and a sentinel, for a user that may not run INFO, and for a server that cannot be reached.

#include "model/monitor/server_monitor.h"
#include "support/test_services.h"

#include <QSignalSpy>
#include <QTest>

using namespace sluice;
using model::ServerMonitor;
using redis::RedisClient;

class TestServerMonitor : public QObject {
    Q_OBJECT

    // Starts a monitor on the URL and waits for its first status.
    static model::ServerStatus firstStatus(RedisClient *connection)
    {
        ServerMonitor monitor(connection, QStringLiteral("test"), 200);
        QSignalSpy statuses(&monitor, &ServerMonitor::statusChanged);
        monitor.start();
        if (!statuses.wait(5000))
            return {};
        return statuses.first().first().value<model::ServerStatus>();
    }

private Q_SLOTS:
    void initTestCase() { qRegisterMetaType<model::ServerStatus>(); }

    void reportsStandaloneServer()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_REDIS_URL", "Redis standalone");
        RedisClient connection(test::optionsFor(url));
        const model::ServerStatus status = firstStatus(&connection);
        QVERIFY2(status.server.displayName().startsWith(QLatin1String("Redis 7.")),
                 qPrintable(status.server.displayName()));
        QCOMPARE(status.server.mode, QStringLiteral("standalone"));
        QCOMPARE(status.role, QStringLiteral("master"));
        QVERIFY(status.connectedClients >= 1);
        QVERIFY(status.usedMemoryBytes > 0);
        QVERIFY(status.rdbKnown);
        QVERIFY(!status.rdbEnabled); // the test servers run with save ""
        QVERIFY(!status.aofEnabled);
    }

    void countsKeysAcrossDatabases()
    {
        QHash<QString, QString> info;
        info.insert(QStringLiteral("db0"), QStringLiteral("keys=12,expires=3,avg_ttl=0"));
        info.insert(QStringLiteral("db7"), QStringLiteral("keys=30,expires=0,avg_ttl=0"));
        info.insert(QStringLiteral("dbsize_note"), QStringLiteral("keys=999"));
        QCOMPARE(model::ServerStatus::fromInfo(info).keys, qint64(42));
    }

    void reportsClusterMode()
    {
        SLUICE_REQUIRE_SERVICE(seeds, "SLUICE_TEST_CLUSTER_SEEDS", "Redis Cluster");
        RedisClient connection(test::optionsFor(QStringLiteral("redis://") + seeds.section(QLatin1Char(','), 0, 0)));
        QCOMPARE(firstStatus(&connection).server.mode, QStringLiteral("cluster"));
    }

    void reportsSentinelMode()
    {
        SLUICE_REQUIRE_SERVICE(sentinel, "SLUICE_TEST_SENTINEL", "Redis Sentinel");
        RedisClient connection(test::optionsFor(QStringLiteral("redis://") + sentinel));
        const model::ServerStatus status = firstStatus(&connection);
        QCOMPARE(status.server.mode, QStringLiteral("sentinel"));
        QVERIFY(!status.rdbKnown); // sentinels have no CONFIG GET
    }

    void saysWhenInfoIsForbidden()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_ACL_URL", "Redis with ACL users");
        SLUICE_REQUIRE_SERVICE(user, "SLUICE_TEST_ACL_RESTRICTED", "the restricted ACL user");
        auto options = test::optionsFor(url);
        options.user = user.section(QLatin1Char(':'), 0, 0);
        options.password = user.section(QLatin1Char(':'), 1);
        RedisClient connection(options);
        ServerMonitor monitor(&connection, QStringLiteral("restricted"), 200);
        monitor.start();
        QTRY_VERIFY(monitor.problem().contains(QLatin1String("NOPERM")));
        QCOMPARE(monitor.health(), ServerMonitor::Health::Ready);
        QVERIFY(!monitor.hasStatus());
    }

    void reportsUnreachableServer()
    {
        redis::ConnectionOptions options;
        options.port = 1;
        RedisClient connection(options);
        ServerMonitor monitor(&connection, QStringLiteral("nowhere"), 200);
        monitor.start();
        QTRY_COMPARE(monitor.health(), ServerMonitor::Health::Unreachable);
        QVERIFY2(monitor.problem().contains(QLatin1String("refused")), qPrintable(monitor.problem()));
    }
};

QTEST_GUILESS_MAIN(TestServerMonitor)
#include "tst_server_monitor.moc"
