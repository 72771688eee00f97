// SPDX-License-Identifier: GPL-3.0-or-later
// The test command's Cluster (3 primaries, 3 replicas), reached node by node: each seed answers,
// reports cluster mode, and the slot map covers every slot with a primary and a replica.

#include "redis/info_reply.h"
#include "redis/redis_connection.h"
#include "support/sync_command.h"
#include "support/test_services.h"

#include <QTest>

using namespace sluice;
using redis::RedisConnection;
using redis::RespValue;
using test::openAndWait;
using test::syncCommand;

class TestClusterNodes : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everySeedIsAClusterNode()
    {
        SLUICE_REQUIRE_SERVICE(seeds, "SLUICE_TEST_CLUSTER_SEEDS", "Redis Cluster");
        const QStringList nodes = seeds.split(QLatin1Char(','));
        QCOMPARE(nodes.size(), 6);
        for (const QString &node : nodes) {
            RedisConnection connection(test::optionsFor(QStringLiteral("redis://") + node));
            QVERIFY2(openAndWait(connection), qPrintable(node + QStringLiteral(": ") + connection.lastError()));
            const auto info = redis::parseInfo(syncCommand(connection, {"INFO", "server"}).value.bytes);
            QCOMPARE(info.value(QStringLiteral("redis_mode")), QStringLiteral("cluster"));
            const auto state = redis::parseInfo(syncCommand(connection, {"CLUSTER", "INFO"}).value.bytes);
            QCOMPARE(state.value(QStringLiteral("cluster_state")), QStringLiteral("ok"));
            QCOMPARE(state.value(QStringLiteral("cluster_size")), QStringLiteral("3"));
        }
    }

    void shardsCoverEverySlotWithAReplica()
    {
        SLUICE_REQUIRE_SERVICE(seeds, "SLUICE_TEST_CLUSTER_SEEDS", "Redis Cluster");
        RedisConnection connection(
            test::optionsFor(QStringLiteral("redis://") + seeds.section(QLatin1Char(','), 0, 0)));
        QVERIFY(openAndWait(connection));
        const auto shards = syncCommand(connection, {"CLUSTER", "SHARDS"});
        QVERIFY2(shards.ok(), qPrintable(shards.errorText()));
        QCOMPARE(shards.value.elements.size(), 3);
        qint64 slotsCovered = 0;
        for (const RespValue &shard : shards.value.elements) {
            const RespValue *slots = shard.field("slots");
            QVERIFY(slots);
            for (qsizetype i = 0; i + 1 < slots->elements.size(); i += 2)
                slotsCovered += slots->elements.at(i + 1).integer - slots->elements.at(i).integer + 1;
            const RespValue *nodes = shard.field("nodes");
            QVERIFY(nodes);
            QStringList roles;
            for (const RespValue &node : nodes->elements)
                roles << node.field("role")->toString();
            roles.sort();
            QCOMPARE(roles, QStringList({QStringLiteral("master"), QStringLiteral("replica")}));
        }
        QCOMPARE(slotsCovered, qint64(16384));
    }

    void wrongNodeAnswersMoved()
    {
        // A plain connection sees the redirect as an error reply (the Cluster client follows it).
        SLUICE_REQUIRE_SERVICE(seeds, "SLUICE_TEST_CLUSTER_SEEDS", "Redis Cluster");
        int moved = 0;
        for (const QString &node : seeds.split(QLatin1Char(','))) {
            RedisConnection connection(test::optionsFor(QStringLiteral("redis://") + node));
            QVERIFY(openAndWait(connection));
            const auto reply = syncCommand(connection, {"GET", "sluice:cluster-probe"});
            if (!reply.ok()) {
                QVERIFY2(reply.errorText().startsWith(QLatin1String("MOVED ")), qPrintable(reply.errorText()));
                ++moved;
            }
        }
        QCOMPARE(moved, 5); // only the key's primary answers it directly
    }
};

QTEST_GUILESS_MAIN(TestClusterNodes)
#include "tst_cluster_nodes.moc"
