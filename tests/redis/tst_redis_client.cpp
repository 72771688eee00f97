// SPDX-License-Identifier: GPL-3.0-or-later
// The deployment client against the test command's real services: standalone, Cluster (keys on
// every primary, a CLUSTER FAILOVER and a one-slot resharding in the middle of traffic) and
// Sentinel (a failover in the middle of traffic), plus a frozen and a restarted server.

#include "redis/cluster_topology.h"
#include "redis/redis_client.h"
#include "support/event_loop_watchdog.h"
#include "support/redis_process.h"
#include "support/sync_command.h"
#include "support/test_services.h"
#include "support/timing_bounds.h"

#include <QElapsedTimer>
#include <QTest>
#include <QUuid>

using namespace sluice;
using redis::RedisClient;
using redis::RedisConnection;
using redis::RedisReply;
using test::openAndWait;
using test::spinUntil;
using test::syncCommand;

namespace {

// Keeps `depth` INCRs in flight over `keys`, and counts what each key was acknowledged.
class Traffic : public QObject {
public:
    Traffic(RedisClient &client, QByteArrayList keys, int depth)
        : m_client(client)
        , m_keys(std::move(keys))
        , m_depth(depth)
    {
    }

    void start()
    {
        m_running = true;
        for (int i = 0; i < m_depth; ++i)
            next();
    }
    void stop() { m_running = false; }
    bool drained() const { return m_inFlight == 0; }

    QHash<QByteArray, qint64> acknowledged; // successful INCRs per key
    qint64 succeeded = 0;
    QStringList failures;  // outcome known to be "not done"
    QStringList uncertain; // lost with its connection: may have run

private:
    void next()
    {
        if (!m_running)
            return;
        const QByteArray key = m_keys.at(static_cast<int>(m_sent++ % m_keys.size()));
        ++m_inFlight;
        m_client.send({"INCR", key}, this, [this, key](const RedisReply &reply) {
            --m_inFlight;
            if (reply.ok()) {
                ++acknowledged[key];
                ++succeeded;
            } else if (reply.failure == RedisReply::Failure::Disconnected
                       || reply.failure == RedisReply::Failure::NoReply) {
                uncertain << reply.errorText();
            } else {
                failures << reply.errorText();
            }
            next();
        });
    }

    RedisClient &m_client;
    QByteArrayList m_keys;
    int m_depth;
    bool m_running = false;
    qint64 m_sent = 0;
    int m_inFlight = 0;
};

QByteArrayList uniqueKeys(int count, const QByteArray &tag = {})
{
    const QByteArray run = QUuid::createUuid().toByteArray(QUuid::Id128).left(8);
    QByteArrayList keys;
    for (int i = 0; i < count; ++i)
        keys << "client-test:" + run + ':'
                + (tag.isEmpty() ? QByteArray::number(i) : '{' + tag + '}' + QByteArray::number(i));
    return keys;
}

redis::ConnectionOptions clusterSeed()
{
    const QString seeds = qEnvironmentVariable("SLUICE_TEST_CLUSTER_SEEDS");
    return test::optionsFor(QStringLiteral("redis://") + seeds.section(QLatin1Char(','), 0, 0));
}

// Every node's id, address and role, read from one node.
struct NodeInfo {
    QByteArray id;
    QString address;
    bool primary = false;
};

QVector<NodeInfo> clusterNodes(RedisConnection &any)
{
    QVector<NodeInfo> nodes;
    const RedisReply reply = syncCommand(any, {"CLUSTER", "NODES"});
    for (const QByteArray &line : reply.value.bytes.split('\n')) {
        const QList<QByteArray> fields = line.split(' ');
        if (fields.size() < 8)
            continue;
        NodeInfo node;
        node.id = fields.at(0);
        node.address = QString::fromUtf8(fields.at(1).split('@').first());
        node.primary = fields.at(2).contains("master");
        nodes << node;
    }
    return nodes;
}

// Runs traffic until `condition` holds, then one more second, then drains it.
bool runTrafficThrough(Traffic &traffic, const std::function<bool()> &condition, int waitMs)
{
    traffic.start();
    const bool reached = spinUntil(condition, waitMs);
    const qint64 before = traffic.succeeded;
    spinUntil([&] { return traffic.succeeded > before + 200; }, 10000);
    QTest::qWait(1000);
    traffic.stop();
    spinUntil([&] { return traffic.drained(); }, 15000);
    return reached;
}

// The values the keys hold now, read through the client.
QHash<QByteArray, qint64> readValues(RedisClient &client, const QByteArrayList &keys)
{
    QHash<QByteArray, qint64> values;
    for (const QByteArray &key : keys)
        values[key] = syncCommand(client, {"GET", key}).value.bytes.toLongLong();
    return values;
}

} // namespace

class TestRedisClient : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void standaloneIsRecognised()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_REDIS_URL", "Redis standalone");
        RedisClient client(test::optionsFor(url));
        QVERIFY2(openAndWait(client), qPrintable(client.lastError()));
        QCOMPARE(client.kind(), RedisClient::Kind::Standalone);
        QCOMPARE(client.primaries(), QStringList{client.options().address()});
        QCOMPARE(client.nodeStates().size(), 1);
        const QByteArray key = uniqueKeys(1).first();
        QVERIFY(syncCommand(client, {"SET", key, "1", "PX", "60000"}).ok());
        QCOMPARE(syncCommand(client, {"GET", key}).value.bytes, QByteArray("1"));
    }

    void clusterIsRecognisedFromAnySeedAndSpreadsKeys()
    {
        SLUICE_REQUIRE_SERVICE(seeds, "SLUICE_TEST_CLUSTER_SEEDS", "Redis Cluster");
        // A replica as the seed works as well as a primary.
        for (const QString &seed : seeds.split(QLatin1Char(','))) {
            RedisClient client(test::optionsFor(QStringLiteral("redis://") + seed));
            QVERIFY2(openAndWait(client), qPrintable(seed + QStringLiteral(": ") + client.lastError()));
            QCOMPARE(client.kind(), RedisClient::Kind::Cluster);
            QCOMPARE(client.primaries().size(), 3);
        }
        RedisClient client(clusterSeed());
        QVERIFY(openAndWait(client));
        // One connection per primary, each with its own state.
        QVERIFY(spinUntil([&] {
            int readyPrimaries = 0;
            for (const RedisClient::NodeState &node : client.nodeStates())
                readyPrimaries += node.primary && node.state == RedisClient::State::Ready;
            return readyPrimaries == 3;
        }));
        const QByteArrayList keys = uniqueKeys(60);
        for (const QByteArray &key : keys) {
            const RedisReply reply = syncCommand(client, {"SET", key, key, "PX", "60000"});
            QVERIFY2(reply.ok(), qPrintable(reply.errorText()));
        }
        // Each primary holds exactly the keys of its own slots, and every primary holds some.
        int found = 0;
        for (const QString &primary : client.primaries()) {
            RedisConnection direct(test::optionsFor(QStringLiteral("redis://") + primary));
            QVERIFY(openAndWait(direct));
            int here = 0;
            for (const QByteArray &key : keys) {
                const RedisReply reply = syncCommand(direct, {"GET", key});
                if (reply.ok() && reply.value.bytes == key)
                    ++here;
                else
                    QVERIFY2(reply.errorText().startsWith(QLatin1String("MOVED")), qPrintable(reply.errorText()));
            }
            QVERIFY2(here > 0, qPrintable(primary + QStringLiteral(" holds none of the keys")));
            found += here;
        }
        QCOMPARE(found, keys.size());
        // Fan-out reaches every primary.
        QVector<RedisClient::NodeReply> pings;
        client.sendToPrimaries({"PING"}, this,
                               [&pings](const QVector<RedisClient::NodeReply> &replies) { pings = replies; });
        QVERIFY(spinUntil([&] { return !pings.isEmpty(); }));
        QCOMPARE(pings.size(), 3);
        for (const auto &ping : pings)
            QVERIFY2(ping.reply.ok(), qPrintable(ping.node + QStringLiteral(": ") + ping.reply.errorText()));
    }

    void clusterFailoverInTrafficFailsNoCall()
    {
        SLUICE_REQUIRE_SERVICE(seeds, "SLUICE_TEST_CLUSTER_SEEDS", "Redis Cluster");
        RedisClient client(clusterSeed());
        QVERIFY(openAndWait(client));
        RedisConnection seed(clusterSeed());
        QVERIFY(openAndWait(seed));
        const QVector<NodeInfo> nodes = clusterNodes(seed);
        auto replica = std::find_if(nodes.begin(), nodes.end(), [](const NodeInfo &n) { return !n.primary; });
        QVERIFY(replica != nodes.end());
        const QString promoted = replica->address;

        const QByteArrayList keys = uniqueKeys(300);
        Traffic traffic(client, keys, 64);
        RedisConnection replicaConnection(test::optionsFor(QStringLiteral("redis://") + promoted));
        QVERIFY(openAndWait(replicaConnection));
        bool failoverSent = false;
        QTimer::singleShot(500, this, [&] {
            replicaConnection.send({"CLUSTER", "FAILOVER"}, this, [&](const RedisReply &reply) {
                QVERIFY2(reply.ok(), qPrintable(reply.errorText()));
                failoverSent = true;
            });
        });
        const bool followed = runTrafficThrough(
            traffic, [&] { return failoverSent && client.primaries().contains(promoted); }, 30000);
        QVERIFY2(followed, qPrintable(QStringLiteral("the client never saw %1 become a primary").arg(promoted)));
        QVERIFY2(traffic.failures.isEmpty() && traffic.uncertain.isEmpty(),
                 qPrintable((traffic.failures + traffic.uncertain).mid(0, 5).join(QLatin1String("; "))));
        QVERIFY(traffic.succeeded > 1000);
        // Nothing lost and nothing counted twice: each key holds what was acknowledged.
        QCOMPARE(readValues(client, keys), traffic.acknowledged);
    }

    void clusterReshardingInTrafficFailsNoCall()
    {
        SLUICE_REQUIRE_SERVICE(seeds, "SLUICE_TEST_CLUSTER_SEEDS", "Redis Cluster");
        RedisClient client(clusterSeed());
        QVERIFY(openAndWait(client));
        const QByteArrayList keys = uniqueKeys(40, "reshard");
        const int slot = redis::keySlot(keys.first());

        // Who owns the slot now, and one other primary to move it to.
        RedisConnection seed(clusterSeed());
        QVERIFY(openAndWait(seed));
        QString error;
        const auto topology
            = redis::ClusterTopology::fromShards(syncCommand(seed, {"CLUSTER", "SHARDS"}).value, false, &error);
        QVERIFY2(topology, qPrintable(error));
        const redis::ClusterNode *from = topology->ownerOf(slot);
        QVERIFY(from);
        const auto primaries = topology->primaries();
        auto to = std::find_if(primaries.begin(), primaries.end(),
                               [from](const redis::ClusterNode &n) { return n.id != from->id; });
        QVERIFY(to != primaries.end());

        RedisConnection source(test::optionsFor(QStringLiteral("redis://%1:%2").arg(from->host).arg(from->port)));
        RedisConnection target(test::optionsFor(QStringLiteral("redis://%1:%2").arg(to->host).arg(to->port)));
        QVERIFY(openAndWait(source));
        QVERIFY(openAndWait(target));
        for (const QByteArray &key : keys)
            QVERIFY(syncCommand(client, {"SET", key, "0", "PX", "120000"}).ok());

        Traffic traffic(client, keys, 32);
        traffic.start();
        QVERIFY(spinUntil([&] { return traffic.succeeded > 500; }));
        // The documented migration, step by step, with traffic on the slot all along.
        const QByteArray slotText = QByteArray::number(slot);
        QVERIFY(syncCommand(target, {"CLUSTER", "SETSLOT", slotText, "IMPORTING", from->id.toUtf8()}).ok());
        QVERIFY(syncCommand(source, {"CLUSTER", "SETSLOT", slotText, "MIGRATING", to->id.toUtf8()}).ok());
        for (;;) {
            const RedisReply batch = syncCommand(source, {"CLUSTER", "GETKEYSINSLOT", slotText, "5"});
            QVERIFY2(batch.ok(), qPrintable(batch.errorText()));
            if (batch.value.elements.isEmpty())
                break;
            QByteArrayList migrate{"MIGRATE", to->host.toUtf8(), QByteArray::number(to->port), "", "0", "5000", "KEYS"};
            for (const auto &key : batch.value.elements)
                migrate << key.bytes;
            const RedisReply moved = syncCommand(source, migrate);
            QVERIFY2(moved.ok(), qPrintable(moved.errorText()));
            QTest::qWait(50); // let traffic meet the half-moved slot
        }
        // The target learns first, then the source, then everyone else.
        QStringList order{QStringLiteral("%1:%2").arg(to->host).arg(to->port),
                          QStringLiteral("%1:%2").arg(from->host).arg(from->port)};
        for (const QString &node : seeds.split(QLatin1Char(',')))
            if (!order.contains(node))
                order << node;
        for (const QString &node : order) {
            RedisConnection each(test::optionsFor(QStringLiteral("redis://") + node));
            QVERIFY(openAndWait(each));
            const auto done = syncCommand(each, {"CLUSTER", "SETSLOT", slotText, "NODE", to->id.toUtf8()});
            // Replicas refuse SETSLOT; they learn the change from their primary.
            QVERIFY2(done.ok() || done.errorText().contains(QLatin1String("only with masters")),
                     qPrintable(done.errorText()));
        }
        const qint64 before = traffic.succeeded;
        QVERIFY(spinUntil([&] { return traffic.succeeded > before + 500; }));
        traffic.stop();
        QVERIFY(spinUntil([&] { return traffic.drained(); }, 15000));

        QVERIFY2(traffic.failures.isEmpty() && traffic.uncertain.isEmpty(),
                 qPrintable((traffic.failures + traffic.uncertain).mid(0, 5).join(QLatin1String("; "))));
        QCOMPARE(readValues(client, keys), traffic.acknowledged);
        QVERIFY(spinUntil([&] { return client.primaries().size() == 3; }));
        QVERIFY(syncCommand(target, {"GET", keys.first()}).ok()); // the slot is the target's now
    }

    void sentinelFailoverInTrafficIsFollowed()
    {
        SLUICE_REQUIRE_SERVICE(sentinel, "SLUICE_TEST_SENTINEL", "Redis Sentinel");
        SLUICE_REQUIRE_SERVICE(service, "SLUICE_TEST_SENTINEL_SERVICE", "the Sentinel service name");
        redis::ConnectionOptions options;
        QString error;
        QVERIFY2(redis::ConnectionOptions::fromUrl(QStringLiteral("redis-sentinel://%1#%2").arg(sentinel, service),
                                                   &options, &error),
                 qPrintable(error));
        RedisClient client(options);
        QVERIFY2(openAndWait(client), qPrintable(client.lastError()));
        QCOMPARE(client.kind(), RedisClient::Kind::Sentinel);
        const QString before = client.primaries().value(0);

        RedisConnection sentinelConnection(test::optionsFor(QStringLiteral("redis://") + sentinel));
        QVERIFY(openAndWait(sentinelConnection));
        const QByteArrayList keys = uniqueKeys(50);
        Traffic traffic(client, keys, 16);
        QTimer::singleShot(500, this, [&] {
            sentinelConnection.send({"SENTINEL", "FAILOVER", service.toUtf8()}, this, [](const RedisReply &reply) {
                QVERIFY2(reply.ok(), qPrintable(reply.errorText()));
            });
        });
        QHash<QByteArray, qint64> acknowledgedAtSwitch;
        QElapsedTimer sinceFailover;
        qint64 switchedAfterMs = -1;
        connect(&client, &RedisClient::topologyChanged, this, [&] {
            acknowledgedAtSwitch = traffic.acknowledged;
            switchedAfterMs = sinceFailover.elapsed();
        });
        QTimer::singleShot(500, this, [&] { sinceFailover.start(); });
        // When the Sentinel itself starts naming the new primary, asked every 10 ms: the client's part
        // of the delay is from there.
        qint64 sentinelNamedItAfterMs = -1;
        QTimer askSentinel;
        askSentinel.setTimerType(Qt::PreciseTimer);
        connect(&askSentinel, &QTimer::timeout, this, [&] {
            sentinelConnection.send({"SENTINEL", "GET-MASTER-ADDR-BY-NAME", service.toUtf8()}, this,
                                    [&](const RedisReply &reply) {
                const auto &named = reply.value.elements;
                const QString primary = named.size() == 2
                    ? named.at(0).toString() + QLatin1Char(':') + named.at(1).toString()
                    : QString();
                if (sentinelNamedItAfterMs < 0 && !primary.isEmpty() && primary != before && sinceFailover.isValid())
                    sentinelNamedItAfterMs = sinceFailover.elapsed();
            });
        });
        askSentinel.start(10);
        const bool followed = runTrafficThrough(
            traffic,
            [&] { return client.primaries().value(0) != before && client.state() == RedisClient::State::Ready; },
            60000);
        QVERIFY2(followed, qPrintable(QStringLiteral("still on %1: %2").arg(before, client.lastError())));
        askSentinel.stop();
        // The client follows within one poll (500 ms) of the Sentinel's new answer, sooner when the old
        // primary's READONLY tells it first.
        QVERIFY2(sentinelNamedItAfterMs >= 0, "the Sentinel was never seen naming the new primary");
        QVERIFY2(switchedAfterMs - sentinelNamedItAfterMs <= 500 + test::timeoutSlackMs,
                 qPrintable(QStringLiteral("followed %1 ms after the Sentinel named the new primary")
                                .arg(switchedAfterMs - sentinelNamedItAfterMs)));
        // Calls cut off with the old primary's connections may or may not have run; every other
        // call succeeded.
        QVERIFY2(traffic.failures.isEmpty(), qPrintable(traffic.failures.mid(0, 5).join(QLatin1String("; "))));
        // Every increment acknowledged after the client moved is on the new primary. Those the old
        // primary acknowledged after the promotion are lost with it: Redis replication is
        // asynchronous, and how many depends on how soon the client asks the Sentinel.
        qint64 afterSwitch = 0, lost = 0;
        const auto values = readValues(client, keys);
        for (const QByteArray &key : keys) {
            const qint64 late = traffic.acknowledged.value(key) - acknowledgedAtSwitch.value(key);
            afterSwitch += late;
            lost += std::max<qint64>(0, traffic.acknowledged.value(key) - values.value(key));
            QVERIFY2(values.value(key) >= late,
                     qPrintable(QStringLiteral("%1: %2 stored, %3 acknowledged after the switch")
                                    .arg(QString::fromUtf8(key))
                                    .arg(values.value(key))
                                    .arg(late)));
        }
        QVERIFY(afterSwitch > 200);
        RedisConnection old(test::optionsFor(QStringLiteral("redis://") + before));
        QVERIFY(openAndWait(old));
        QVERIFY(spinUntil([&] { return syncCommand(old, {"ROLE"}).value.elements.value(0).bytes == "slave"; }, 30000));
        qInfo("sentinel failover followed %lld ms after SENTINEL FAILOVER (%lld ms after the Sentinel named the new "
              "primary): %lld calls acknowledged (%lld after the switch), %lld cut off in flight, %lld acknowledged "
              "by the old primary and lost with it",
              switchedAfterMs, switchedAfterMs - sentinelNamedItAfterMs, traffic.succeeded, afterSwitch,
              qint64(traffic.uncertain.size()), lost);
    }

    void readOnlyClientRefusesWritesAndChangesNothing()
    {
        SLUICE_REQUIRE_SERVICE(seeds, "SLUICE_TEST_CLUSTER_SEEDS", "Redis Cluster");
        RedisClient writer(clusterSeed());
        RedisClient reader(clusterSeed());
        reader.setReadOnly(true);
        QVERIFY(openAndWait(writer));
        QVERIFY(openAndWait(reader));
        const QByteArray key = uniqueKeys(1).first();
        QVERIFY(syncCommand(writer, {"SET", key, "before", "PX", "60000"}).ok());

        const QList<QByteArrayList> writes = {{"SET", key, "after"},
                                              {"set", key, "after"},
                                              {"DEL", key},
                                              {"FCALL", "sluice_acquire", "1", key, "p"},
                                              {"EVAL", "return redis.call('SET', KEYS[1], 'after')", "1", key},
                                              {"FLUSHALL"},
                                              {"CONFIG", "SET", "maxmemory", "1"},
                                              {"FUNCTION", "DELETE", "sluice"},
                                              {"NOT-A-COMMAND", key},
                                              {}};
        for (const QByteArrayList &command : writes) {
            const RedisReply reply = syncCommand(reader, command);
            QCOMPARE(reply.failure, RedisReply::Failure::Refused);
            QVERIFY2(reply.errorText().contains(QLatin1String("read-only")), qPrintable(reply.errorText()));
        }
        QVERIFY(syncCommand(reader, {"SET", key, "x"}).errorText().contains(QLatin1String("SET")));
        QVector<RedisClient::NodeReply> fanOut;
        reader.sendToPrimaries({"FLUSHALL"}, this,
                               [&](const QVector<RedisClient::NodeReply> &replies) { fanOut = replies; });
        QVERIFY(spinUntil([&] { return !fanOut.isEmpty(); }));
        QCOMPARE(fanOut.first().reply.failure, RedisReply::Failure::Refused);

        // Reads pass, on every route, and nothing above changed anything.
        QCOMPARE(syncCommand(reader, {"GET", key}).value.bytes, QByteArray("before"));
        QVERIFY(syncCommand(reader, {"PTTL", key}).value.integer > 0);
        fanOut.clear();
        reader.sendToPrimaries({"DBSIZE"}, this,
                               [&](const QVector<RedisClient::NodeReply> &replies) { fanOut = replies; });
        QVERIFY(spinUntil([&] { return !fanOut.isEmpty(); }));
        QCOMPARE(fanOut.size(), 3);
        for (const RedisClient::NodeReply &node : fanOut)
            QVERIFY2(node.reply.ok(), qPrintable(node.reply.errorText()));
        QCOMPARE(syncCommand(writer, {"GET", key}).value.bytes, QByteArray("before"));
    }

    void frozenServerTimesOutWithoutStallingTheLoop()
    {
        test::RedisProcess server(test::RedisProcess::Patience::Quick);
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        RedisClient client(server.options());
        QVERIFY(openAndWait(client));
        test::EventLoopWatchdog watchdog;
        watchdog.start();
        server.freeze();
        QElapsedTimer clock;
        clock.start();
        const RedisReply frozen = syncCommand(client, {"PING"});
        QVERIFY(!frozen.ok());
        // The command timeout fires, and not before it.
        SLUICE_VERIFY_TIMEOUT(clock.elapsed(), server.options().commandTimeoutMs);
        QVERIFY(spinUntil([&] { return client.state() == RedisClient::State::Reconnecting; }));
        server.thaw();
        QVERIFY(spinUntil([&] { return client.state() == RedisClient::State::Ready; }, 15000));
        QVERIFY(syncCommand(client, {"PING"}).ok());
        QVERIFY2(watchdog.longestStallMs() <= 50,
                 qPrintable(QStringLiteral("the event loop stalled %1 ms").arg(watchdog.longestStallMs())));
    }

    void restartedServerIsReconnected()
    {
        test::RedisProcess server(test::RedisProcess::Patience::Quick);
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        RedisClient client(server.options());
        QVERIFY(openAndWait(client));
        // Each node's state is visible, with the reason while it is not ready.
        const auto nodeState = [&] { return client.nodeStates().value(0); };
        QCOMPARE(client.nodeStates().size(), 1);
        QCOMPARE(nodeState().state, RedisClient::State::Ready);
        QVERIFY(nodeState().primary);
        server.kill();
        QVERIFY(spinUntil([&] { return nodeState().state == RedisClient::State::Reconnecting; }));
        QVERIFY2(nodeState().lastError.contains(QLatin1String("refused"))
                     || nodeState().lastError.contains(QLatin1String("closed")),
                 qPrintable(nodeState().lastError));
        QVERIFY(server.restart());
        QVERIFY(spinUntil([&] { return syncCommand(client, {"PING"}, 2000).ok(); }, 15000));
        QCOMPARE(client.state(), RedisClient::State::Ready);
    }

    void unreachableSentinelsFailClearly()
    {
        redis::ConnectionOptions options;
        QString error;
        QVERIFY(redis::ConnectionOptions::fromUrl(QStringLiteral("redis-sentinel://127.0.0.1:1,127.0.0.1:2#svc"),
                                                  &options, &error));
        RedisClient client(options);
        client.setAutoReconnect(false);
        QVERIFY(!openAndWait(client));
        QCOMPARE(client.state(), RedisClient::State::Failed);
        QVERIFY2(client.lastError().contains(QLatin1String("127.0.0.1:2")), qPrintable(client.lastError()));
        const RedisReply reply = syncCommand(client, {"PING"});
        QCOMPARE(reply.failure, RedisReply::Failure::NotConnected);
    }

    void unknownSentinelServiceFailsClearly()
    {
        SLUICE_REQUIRE_SERVICE(sentinel, "SLUICE_TEST_SENTINEL", "Redis Sentinel");
        redis::ConnectionOptions options;
        QString error;
        QVERIFY(redis::ConnectionOptions::fromUrl(QStringLiteral("redis-sentinel://%1#no-such-service").arg(sentinel),
                                                  &options, &error));
        RedisClient client(options);
        client.setAutoReconnect(false);
        QVERIFY(!openAndWait(client));
        QVERIFY2(client.lastError().contains(QLatin1String("no-such-service")), qPrintable(client.lastError()));
    }
};

QTEST_GUILESS_MAIN(TestRedisClient)
#include "tst_redis_client.moc"
