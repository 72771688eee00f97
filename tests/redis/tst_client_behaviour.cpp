// SPDX-License-Identifier: GPL-3.0-or-later
// The deployment client against scripted servers, one test per point of docs/user-guide.md's "How the
// client behaves": what it sent where (never twice when the command may have run), when (the
// pauses' bounds, measured where the server receives), and what the caller was told. Scripted
// servers give the moments a real one cannot be made to have on cue: TRYAGAIN, LOADING, a READONLY
// from a demoted primary, a MOVED loop, a reply that never comes, a Sentinel changing its answer.

#include "redis/cluster_topology.h"
#include "redis/reconnect_backoff.h"
#include "redis/redis_client.h"
#include "support/resp_stub_server.h"
#include "support/sync_command.h"
#include "support/test_services.h"
#include "support/timing_bounds.h"

#include <QSignalSpy>
#include <QTest>

#include <optional>

using namespace sluice;
using redis::RedisClient;
using redis::RedisReply;
using Stub = test::RespStubServer;
using test::openAndWait;
using test::spinUntil;

namespace {

constexpr int halfOfTheSlots = redis::clusterSlotCount / 2;

redis::ConnectionOptions optionsAt(const QString &url, int commandTimeoutMs = 3000)
{
    redis::ConnectionOptions options = test::optionsFor(url);
    options.commandTimeoutMs = commandTimeoutMs;
    return options;
}

QString urlOf(const Stub &server)
{
    return QStringLiteral("redis://") + server.address();
}

// A reply with the time it reached the caller, on the stub servers' clock.
struct Answer {
    RedisReply reply;
    qint64 atMs = -1;
};

Answer ask(RedisClient &client, const QByteArrayList &args, int waitMs = 15000)
{
    Answer none;
    none.reply.failure = RedisReply::Failure::Timeout;
    none.reply.failureMessage = QStringLiteral("the test gave up waiting");
    return test::awaitCallback<Answer>(
        [&](QObject *context, auto done) {
        client.send(args, context, [done](const RedisReply &reply) { done(Answer{reply, Stub::nowMs()}); });
        },
        none, waitMs);
}

// A key whose slot lies in [first, last].
QByteArray keyInSlots(int first, int last)
{
    for (int i = 0;; ++i) {
        const QByteArray key = "behaviour:" + QByteArray::number(i);
        const int slot = redis::keySlot(key);
        if (slot >= first && slot <= last)
            return key;
    }
}

QByteArray movedTo(const QByteArray &key, const Stub &node, const char *kind = "MOVED")
{
    return Stub::error(QByteArray(kind) + ' ' + QByteArray::number(redis::keySlot(key)) + ' '
                       + node.address().toUtf8());
}

QByteArrayList argsOf(const QVector<Stub::Received> &received)
{
    QByteArrayList words;
    for (const Stub::Received &command : received)
        words << command.args.join(' ');
    return words;
}

QString describe(const QVector<qint64> &gaps)
{
    QStringList text;
    for (qint64 gap : gaps)
        text << QString::number(gap);
    return text.join(QStringLiteral(", ")) + QStringLiteral(" ms");
}

// Both scripted nodes serve every command and CLUSTER SHARDS says they split the slots in halves.
void splitSlots(Stub &a, Stub &b)
{
    const QByteArray shards = Stub::clusterShards({{&a, 0, halfOfTheSlots - 1}, {&b, halfOfTheSlots, 16383}});
    a.setReply("CLUSTER", shards);
    b.setReply("CLUSTER", shards);
}

void giveAllSlotsTo(Stub &owner, Stub &other)
{
    const QByteArray shards = Stub::clusterShards({{&owner, 0, 16383}});
    owner.setReply("CLUSTER", shards);
    other.setReply("CLUSTER", shards);
}

bool bothNodesReady(const RedisClient &client)
{
    int ready = 0;
    for (const RedisClient::NodeState &node : client.nodeStates())
        ready += node.state == RedisClient::State::Ready;
    return ready == 2;
}

redis::ConnectionOptions sentinelOptions(const Stub &first, const Stub &second)
{
    redis::ConnectionOptions options;
    QString error;
    const bool parsed = redis::ConnectionOptions::fromUrl(
        QStringLiteral("redis-sentinel://%1,%2#svc").arg(first.address(), second.address()), &options, &error);
    if (!parsed)
        qFatal("%s", qPrintable(error));
    return options;
}

// A Sentinel service on scripted servers: `sentinel` names `oldPrimary` until promote(); `spare` is a
// second sentinel the client knows of.
struct SentinelService {
    Stub sentinel, spare, oldPrimary, newPrimary;

    bool open()
    {
        if (!sentinel.open() || !spare.open() || !oldPrimary.open() || !newPrimary.open())
            return false;
        sentinel.setReply("SENTINEL", oldPrimary.primaryAddressReply());
        return true;
    }
    redis::ConnectionOptions options() const { return sentinelOptions(sentinel, spare); }
    void promote() { sentinel.setReply("SENTINEL", newPrimary.primaryAddressReply()); }
    bool followedBy(const RedisClient &client) const { return client.primaries() == QStringList{newPrimary.address()}; }
};

// Waits until the sentinel has been asked once more than now: the next poll is then 500 ms away.
bool waitForAPoll(const Stub &sentinel)
{
    const int asked = sentinel.received("SENTINEL");
    return spinUntil([&] { return sentinel.received("SENTINEL") > asked; }, 3000);
}

} // namespace

class TestClientBehaviour : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // --- Recognising the deployment ---

    void clusterSupportDisabledMeansStandalone()
    {
        Stub server;
        QVERIFY(server.open());
        RedisClient client(optionsAt(urlOf(server)));
        QVERIFY2(openAndWait(client), qPrintable(client.lastError()));
        QCOMPARE(client.kind(), RedisClient::Kind::Standalone);
        QCOMPARE(client.primaries(), QStringList{server.address()});
        QCOMPARE(server.received("CLUSTER"), 1);
    }

    void shardsMakeAClusterClientThatRoutesBySlot()
    {
        Stub a, b;
        QVERIFY(a.open() && b.open());
        splitSlots(a, b);
        a.setReply("GET", Stub::bulk("a"));
        b.setReply("GET", Stub::bulk("b"));
        a.setReply("DBSIZE", Stub::integer(1));
        b.setReply("DBSIZE", Stub::integer(2));
        RedisClient client(optionsAt(urlOf(b))); // seeded from the node that serves the upper half
        QVERIFY2(openAndWait(client), qPrintable(client.lastError()));
        QCOMPARE(client.kind(), RedisClient::Kind::Cluster);
        QCOMPARE(client.primaries(), (QStringList{a.address(), b.address()}));

        // Each key goes to the node of its slot (or its {hash tag}'s), and only there.
        int toA = 0;
        for (int i = 0; i < 40; ++i) {
            const QByteArray key
                = (i % 4 == 0 ? "{tag" + QByteArray::number(i) + "}:x" : "route:") + QByteArray::number(i);
            const QByteArray expected = redis::keySlot(key) < halfOfTheSlots ? "a" : "b";
            toA += expected == "a";
            QCOMPARE(ask(client, {"GET", key}).reply.value.bytes, expected);
        }
        QCOMPARE(a.received("GET"), toA);
        QCOMPARE(b.received("GET"), 40 - toA);

        // Fan-out reaches every primary once; sendToNode the one named, whatever the key.
        QVector<RedisClient::NodeReply> sizes;
        client.sendToPrimaries({"DBSIZE"}, this,
                               [&sizes](const QVector<RedisClient::NodeReply> &replies) { sizes = replies; });
        QVERIFY(spinUntil([&] { return !sizes.isEmpty(); }));
        QCOMPARE(sizes.size(), 2);
        QCOMPARE(sizes.at(0).node, a.address());
        QCOMPARE(sizes.at(0).reply.value.integer, 1);
        QCOMPARE(sizes.at(1).reply.value.integer, 2);
        const QByteArray keyOfA = keyInSlots(0, halfOfTheSlots - 1);
        const RedisReply pinned = test::awaitCallback<RedisReply>(
            [&](QObject *context, auto done) {
            client.sendToNode(b.address(), {"GET", keyOfA}, context, done);
            },
            RedisReply{});
        QCOMPARE(pinned.value.bytes, QByteArray("b"));
    }

    void movedTurnsAStandaloneClientIntoAClusterClient()
    {
        Stub a, b;
        QVERIFY(a.open() && b.open());
        RedisClient client(optionsAt(urlOf(a)));
        QVERIFY(openAndWait(client));
        QCOMPARE(client.kind(), RedisClient::Kind::Standalone);
        // A user not allowed CLUSTER SHARDS at first sight; the node answers it once asked again.
        const QByteArray key = "moved-key";
        a.setReply("GET", movedTo(key, b));
        giveAllSlotsTo(b, a);
        b.setReply("GET", Stub::bulk("from b"));
        const Answer answer = ask(client, {"GET", key});
        QCOMPARE(answer.reply.value.bytes, QByteArray("from b"));
        QCOMPARE(client.kind(), RedisClient::Kind::Cluster);
        QCOMPARE(a.received("GET"), 1);
        QCOMPARE(b.received("GET"), 1);
        QVERIFY(spinUntil([&] { return client.primaries() == QStringList{b.address()}; }, 3000));
    }

    // --- Following the Cluster ---

    void askGoesToTheImportingNodeForOneAttempt()
    {
        Stub a, b;
        QVERIFY(a.open() && b.open());
        giveAllSlotsTo(a, b);
        RedisClient client(optionsAt(urlOf(a)));
        QVERIFY(openAndWait(client));
        const int topologyReads = a.received("CLUSTER") + b.received("CLUSTER");
        const QByteArray key = "asked-key";
        a.queue("GET", movedTo(key, b, "ASK"));
        a.setReply("GET", Stub::bulk("a"));
        b.setReply("ASKING", Stub::status("OK"));
        b.setReply("GET", Stub::bulk("b"));

        QCOMPARE(ask(client, {"GET", key}).reply.value.bytes, QByteArray("b"));
        // ASKING and the command, back to back on one connection.
        const QVector<Stub::Received> atB = b.receivedCommands();
        const qsizetype asking = argsOf(atB).indexOf("ASKING");
        QVERIFY2(asking >= 0 && asking + 1 < atB.size(), argsOf(atB).join(" | ").constData());
        QCOMPARE(atB.at(asking + 1).args, (QByteArrayList{"GET", key}));
        QCOMPARE(atB.at(asking + 1).connection, atB.at(asking).connection);
        // The slot stays where it was: the next call goes to the old node, and the map was not re-read.
        QCOMPARE(ask(client, {"GET", key}).reply.value.bytes, QByteArray("a"));
        QCOMPARE(a.received("GET"), 2);
        QCOMPARE(b.received("GET"), 1);
        QCOMPARE(b.received("ASKING"), 1);
        QCOMPARE(a.received("CLUSTER") + b.received("CLUSTER"), topologyReads);
    }

    void movedRedirectsAndRereadsTheMapOnceAtATime()
    {
        Stub a, b;
        QVERIFY(a.open() && b.open());
        giveAllSlotsTo(a, b);
        RedisClient client(optionsAt(urlOf(a)));
        QVERIFY(openAndWait(client));
        QVERIFY(spinUntil([&] { return bothNodesReady(client) || client.nodeStates().size() == 1; }));
        const int topologyReads = a.received("CLUSTER") + b.received("CLUSTER");
        // The slot moved to b; twenty calls in flight each hear MOVED.
        giveAllSlotsTo(b, a);
        a.setReply("GET", movedTo("{moved}", b));
        b.setReply("GET", Stub::bulk("b"));
        int answered = 0;
        QStringList wrong;
        QObject context;
        for (int i = 0; i < 20; ++i)
            client.send({"GET", "{moved}:" + QByteArray::number(i)}, &context, [&](const RedisReply &reply) {
                ++answered;
                if (reply.value.bytes != "b")
                    wrong << reply.errorText();
            });
        QVERIFY(spinUntil([&] { return answered == 20; }));
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong.join(QStringLiteral("; "))));
        QCOMPARE(a.received("GET"), 20);
        QCOMPARE(b.received("GET"), 20);
        // Twenty MOVED replies, one re-read of the map (and one more for those heard while it ran).
        const int rereads = a.received("CLUSTER") + b.received("CLUSTER") - topologyReads;
        QVERIFY2(rereads >= 1 && rereads <= 2, qPrintable(QStringLiteral("%1 map reads").arg(rereads)));
        QVERIFY(spinUntil([&] { return client.primaries() == QStringList{b.address()}; }, 3000));
    }

    void busyRepliesAreRetriedWithGrowingPauses_data()
    {
        QTest::addColumn<QByteArray>("error");
        QTest::newRow("TRYAGAIN") << QByteArray("TRYAGAIN Multiple keys request during rehashing of slot");
        QTest::newRow("CLUSTERDOWN") << QByteArray("CLUSTERDOWN The cluster is down");
        QTest::newRow("LOADING") << QByteArray("LOADING Redis is loading the dataset in memory");
        QTest::newRow("MASTERDOWN") << QByteArray("MASTERDOWN Link with MASTER is down and replica-serve-stale-data "
                                                  "is set to 'no'.");
    }

    void busyRepliesAreRetriedWithGrowingPauses()
    {
        QFETCH(QByteArray, error);
        Stub server;
        QVERIFY(server.open());
        RedisClient client(optionsAt(urlOf(server), 5000));
        QVERIFY(openAndWait(client));
        constexpr int busyReplies = 8;
        server.queue("INCR", Stub::error(error), busyReplies);
        server.setReply("INCR", Stub::integer(1));
        const Answer answer = ask(client, {"INCR", "busy"});
        QVERIFY2(answer.reply.ok(), qPrintable(answer.reply.errorText()));
        QCOMPARE(answer.reply.value.integer, 1);
        const QVector<Stub::Received> arrivals = server.receivedCommands("INCR");
        QCOMPARE(arrivals.size(), busyReplies + 1);
        // Pauses of 10 ms doubling to at most 500 ms, measured where the server receives: never
        // sooner (no hammering a loading server), never much later.
        QVector<qint64> gaps;
        for (int i = 0; i + 1 < arrivals.size(); ++i)
            gaps << arrivals.at(i + 1).atMs - arrivals.at(i).atMs;
        for (int i = 0; i < gaps.size(); ++i) {
            const int pause = std::min(500, 10 << i);
            QVERIFY2(gaps.at(i) >= pause - 1 && gaps.at(i) <= pause + test::timeoutSlackMs,
                     qPrintable(QStringLiteral("retry %1 came %2 ms after the last, not %3 ms (all: %4)")
                                    .arg(i + 1)
                                    .arg(gaps.at(i))
                                    .arg(pause)
                                    .arg(describe(gaps))));
        }
    }

    void busyRepliesEndAtTheCommandsDeadline()
    {
        Stub server;
        QVERIFY(server.open());
        constexpr int timeoutMs = 400;
        RedisClient client(optionsAt(urlOf(server), timeoutMs));
        QVERIFY(openAndWait(client));
        server.setReply("INCR", Stub::error("LOADING Redis is loading the dataset in memory"));
        const qint64 sentAt = Stub::nowMs();
        const Answer answer = ask(client, {"INCR", "busy"});
        // The caller hears the server's own reason, within the command's time and not after it.
        QCOMPARE(answer.reply.failure, RedisReply::Failure::None);
        QVERIFY2(answer.reply.value.bytes.startsWith("LOADING"), qPrintable(answer.reply.errorText()));
        QVERIFY2(answer.atMs - sentAt <= timeoutMs + test::timeoutSlackMs,
                 qPrintable(QStringLiteral("answered after %1 ms").arg(answer.atMs - sentAt)));
        // 10 + 20 + 40 + 80 + 160 ms of pauses fit in 400 ms; the next, 320 ms, would not.
        const int tries = server.received("INCR");
        QVERIFY2(tries >= 2 && tries <= 6, qPrintable(QStringLiteral("%1 tries").arg(tries)));
    }

    void redirectionsEndAfterSixteen()
    {
        Stub a, b;
        QVERIFY(a.open() && b.open());
        splitSlots(a, b);
        RedisClient client(optionsAt(urlOf(a)));
        QVERIFY(openAndWait(client));
        QVERIFY(spinUntil([&] { return bothNodesReady(client); }));
        // A Cluster that disagrees with itself: each node sends the slot to the other.
        const QByteArray key = keyInSlots(0, halfOfTheSlots - 1);
        a.setReply("GET", movedTo(key, b));
        b.setReply("GET", movedTo(key, a));
        const Answer answer = ask(client, {"GET", key});
        // The first attempt and sixteen redirections; the last MOVED is the caller's answer.
        QVERIFY2(answer.reply.value.isError() && answer.reply.value.bytes.startsWith("MOVED"),
                 qPrintable(answer.reply.errorText()));
        QCOMPARE(a.received("GET") + b.received("GET"), 17);
    }

    void lostClusterNodeMakesTheClientAskTheOthers_data()
    {
        QTest::addColumn<bool>("frozen");
        QTest::newRow("stops answering") << true;
        QTest::newRow("shut down") << false;
    }

    void lostClusterNodeMakesTheClientAskTheOthers()
    {
        QFETCH(bool, frozen);
        Stub a, b;
        QVERIFY(a.open() && b.open());
        splitSlots(a, b);
        constexpr int timeoutMs = 600;
        RedisClient client(optionsAt(urlOf(a), timeoutMs));
        QVERIFY(openAndWait(client));
        QVERIFY(spinUntil([&] { return bothNodesReady(client); }));
        const QByteArray key = keyInSlots(halfOfTheSlots, 16383);
        a.setReply("INCR", Stub::integer(1));
        // b's replica, here a, takes its slots over.
        giveAllSlotsTo(a, b);
        const int mapReads = a.received("CLUSTER");
        if (frozen) {
            b.setReply("INCR", Stub::noAnswer);
            const qint64 sentAt = Stub::nowMs();
            const Answer lost = ask(client, {"INCR", key});
            // Written and unanswered: it may have run, so the caller is told so and it is not sent again.
            QCOMPARE(lost.reply.failure, RedisReply::Failure::NoReply);
            SLUICE_VERIFY_TIMEOUT(lost.atMs - sentAt, timeoutMs);
            QCOMPARE(b.received("INCR"), 1);
        } else {
            b.stopListening();
            // Once the client has seen it go (a command written before that is lost with it: may have run).
            QVERIFY(spinUntil([&] { return !bothNodesReady(client); }));
        }
        // The client asks the node that still answers who serves now, before any call needs to know.
        QVERIFY(spinUntil([&] { return a.received("CLUSTER") > mapReads; }, 3000));
        const Answer moved = ask(client, {"INCR", key});
        QVERIFY2(moved.reply.ok(), qPrintable(moved.reply.errorText()));
        QCOMPARE(a.received("INCR"), 1);
        QCOMPARE(b.received("INCR"), frozen ? 1 : 0);
        QVERIFY(spinUntil([&] { return client.primaries() == QStringList{a.address()}; }, 3000));
    }

    // --- Following Sentinel ---

    void sentinelsAreAskedInTurnThenPolledOnOneConnection()
    {
        Stub s1, s2, primary;
        QVERIFY(s1.open() && s2.open() && primary.open());
        s1.setReply("SENTINEL", "$-1\r\n"); // knows no such service
        s2.setReply("SENTINEL", primary.primaryAddressReply());
        RedisClient client(sentinelOptions(s1, s2));
        QVERIFY2(openAndWait(client), qPrintable(client.lastError()));
        QCOMPARE(client.primaries(), QStringList{primary.address()});
        QVERIFY(s1.receivedCommands("SENTINEL").value(0).atMs <= s2.receivedCommands("SENTINEL").value(0).atMs);
        QVERIFY(spinUntil([&] { return s2.received("SENTINEL") >= 5; }, 5000));
        // The sentinel that answered is the one asked again, every 500 ms, on the connection it answered on.
        const QVector<Stub::Received> polls = s2.receivedCommands("SENTINEL");
        QVector<qint64> gaps;
        for (int i = 0; i + 1 < polls.size(); ++i) {
            gaps << polls.at(i + 1).atMs - polls.at(i).atMs;
            QCOMPARE(polls.at(i + 1).connection, polls.at(0).connection);
        }
        // The polls after the first ask keep a 500 ms schedule: over the run none early (their span is at least
        // 500 ms per interval), none skipped or doubled, each at most the slack late.
        const qint64 span = polls.last().atMs - polls.at(1).atMs;
        const qsizetype intervals = polls.size() - 2;
        QVERIFY2(span >= intervals * 500 - 1 && span <= intervals * 500 + test::timeoutSlackMs,
                 qPrintable(describe(gaps)));
        for (qint64 gap : gaps)
            QVERIFY2(gap >= 250 && gap <= 500 + test::timeoutSlackMs, qPrintable(describe(gaps)));
        QCOMPARE(s1.received("SENTINEL"), 1);
        QCOMPARE(s2.acceptedAt().size(), 1);
    }

    void sentinelsNewAnswerIsFollowedWithinAPoll()
    {
        SentinelService service;
        QVERIFY(service.open());
        RedisClient client(service.options());
        QVERIFY(openAndWait(client));
        QCOMPARE(client.primaries(), QStringList{service.oldPrimary.address()});
        service.promote();
        const qint64 changedAt = Stub::nowMs();
        QVERIFY(spinUntil([&] { return service.followedBy(client); }, 3000));
        const qint64 followedAfter = Stub::nowMs() - changedAt;
        QVERIFY2(followedAfter <= 500 + test::timeoutSlackMs,
                 qPrintable(QStringLiteral("followed after %1 ms").arg(followedAfter)));
        service.newPrimary.setReply("INCR", Stub::integer(1));
        QVERIFY(ask(client, {"INCR", "k"}).reply.ok());
        QCOMPARE(service.oldPrimary.received("INCR"), 0);
    }

    void droppedPrimaryAsksTheSentinelAtOnce()
    {
        SentinelService service;
        QVERIFY(service.open());
        RedisClient client(service.options());
        QVERIFY(openAndWait(client));
        QVERIFY(waitForAPoll(service.sentinel));
        service.promote();
        const qint64 droppedAt = Stub::nowMs();
        service.oldPrimary.stopListening();
        QVERIFY(spinUntil([&] { return service.followedBy(client); }, 3000));
        // Long before the next poll, 500 ms after the last.
        const qint64 followedAfter = Stub::nowMs() - droppedAt;
        QVERIFY2(followedAfter < 400, qPrintable(QStringLiteral("followed after %1 ms").arg(followedAfter)));
    }

    void readonlyAsksTheSentinelAndRetriesOnTheNewPrimary()
    {
        SentinelService service;
        QVERIFY(service.open());
        RedisClient client(service.options());
        QVERIFY(openAndWait(client));
        QVERIFY(waitForAPoll(service.sentinel));
        // Demoted and not yet told: the old primary refuses the write, which therefore did not run.
        service.promote();
        service.oldPrimary.setReply("INCR", Stub::error("READONLY You can't write against a read only replica."));
        service.newPrimary.setReply("INCR", Stub::integer(1));
        const qint64 sentAt = Stub::nowMs();
        const Answer answer = ask(client, {"INCR", "k"});
        QVERIFY2(answer.reply.ok(), qPrintable(answer.reply.errorText()));
        QCOMPARE(service.newPrimary.received("INCR"), 1);
        QVERIFY(service.oldPrimary.received("INCR") >= 1);
        QVERIFY2(answer.atMs - sentAt < 400,
                 qPrintable(QStringLiteral("answered after %1 ms, as if by the poll").arg(answer.atMs - sentAt)));
    }

    // --- Never sending twice ---

    void writtenThenLostIsReportedAndNotSentAgain()
    {
        Stub server;
        QVERIFY(server.open());
        RedisClient client(optionsAt(urlOf(server)));
        QVERIFY(openAndWait(client));
        server.queue("INCR", Stub::closeConnection);
        server.setReply("INCR", Stub::integer(1));
        const Answer lost = ask(client, {"INCR", "first"});
        QCOMPARE(lost.reply.failure, RedisReply::Failure::Disconnected);
        // The next command goes out on the reconnected connection after anything resent would have.
        QVERIFY2(ask(client, {"INCR", "second"}).reply.ok(), qPrintable(client.lastError()));
        QCOMPARE(argsOf(server.receivedCommands("INCR")), (QByteArrayList{"INCR first", "INCR second"}));
    }

    void unansweredIsReportedAtItsTimeoutAndNotSentAgain()
    {
        Stub server;
        QVERIFY(server.open());
        constexpr int timeoutMs = 600;
        RedisClient client(optionsAt(urlOf(server), timeoutMs));
        QVERIFY(openAndWait(client));
        server.queue("INCR", Stub::noAnswer);
        server.setReply("INCR", Stub::integer(1));
        const qint64 sentAt = Stub::nowMs();
        const Answer lost = ask(client, {"INCR", "first"});
        QCOMPARE(lost.reply.failure, RedisReply::Failure::NoReply);
        SLUICE_VERIFY_TIMEOUT(lost.atMs - sentAt, timeoutMs);
        QVERIFY2(ask(client, {"INCR", "second"}).reply.ok(), qPrintable(client.lastError()));
        QCOMPARE(argsOf(server.receivedCommands("INCR")), (QByteArrayList{"INCR first", "INCR second"}));
    }

    void neverWrittenWaitsForTheServerAndRunsOnce()
    {
        Stub server;
        QVERIFY(server.open());
        RedisClient client(optionsAt(urlOf(server), 5000));
        QVERIFY(openAndWait(client));
        server.setReply("INCR", Stub::integer(1));
        server.stopListening();
        QVERIFY(spinUntil([&] { return client.state() == RedisClient::State::Reconnecting; }));
        std::optional<RedisReply> reply;
        QObject context;
        QSignalSpy attempts(&client, &RedisClient::nodeStatesChanged);
        client.send({"INCR", "held"}, &context, [&reply](const RedisReply &answer) { reply = answer; });
        // Held while two more attempts are refused.
        QVERIFY(spinUntil([&] { return attempts.size() >= 2; }, 5000));
        QVERIFY2(!reply.has_value(), qPrintable(reply ? reply->errorText() : QString()));
        QVERIFY(server.listenAgain());
        QVERIFY(spinUntil([&] { return reply.has_value(); }, 6000));
        QVERIFY2(reply->ok(), qPrintable(reply->errorText()));
        QCOMPARE(argsOf(server.receivedCommands("INCR")), QByteArrayList{"INCR held"});
    }

    // --- Faults ---

    void lostServerIsRetriedWithJitteredExponentialBackoff()
    {
        Stub server;
        QVERIFY(server.open());
        RedisClient client(optionsAt(urlOf(server)));
        QVERIFY(openAndWait(client));
        // Every attempt reaches the server and fails in its handshake, as a server that is still starting.
        server.setReply("CLIENT", Stub::closeConnection);
        const qint64 droppedAt = Stub::nowMs();
        server.dropConnections();
        constexpr int attempts = 4;
        QVERIFY(spinUntil([&] { return server.acceptedAt().size() > attempts; }, 10000));
        const QVector<qint64> accepted = server.acceptedAt();
        QVector<qint64> gaps{accepted.at(1) - droppedAt};
        for (int i = 1; i < attempts; ++i)
            gaps << accepted.at(i + 1) - accepted.at(i);
        // The n-th pause is drawn from [ceiling / 2, ceiling], the ceiling doubling from 200 ms.
        for (int i = 0; i < attempts; ++i) {
            const int ceiling = 200 << i;
            QVERIFY2(gaps.at(i) >= ceiling / 2 - 1 && gaps.at(i) <= ceiling + test::timeoutSlackMs,
                     qPrintable(QStringLiteral("attempt %1: %2").arg(i + 1).arg(describe(gaps))));
        }
        server.setReply("CLIENT", Stub::status("OK"));
        QVERIFY(spinUntil([&] { return client.state() == RedisClient::State::Ready; }, 10000));
        QVERIFY(ask(client, {"PING"}).reply.ok());
    }

    void backoffIsJitteredWithinItsBounds()
    {
        // Many clients that lost one server must not come back in step: each pause is spread over
        // its whole range, not fixed.
        for (int attempt = 0; attempt < 8; ++attempt) {
            const int ceiling = std::min(10000, 200 << attempt);
            int shortest = ceiling, longest = 0;
            for (int draw = 0; draw < 400; ++draw) {
                redis::ReconnectBackoff backoff;
                int delay = 0;
                for (int i = 0; i <= attempt; ++i)
                    delay = backoff.nextDelayMs();
                QVERIFY2(delay >= ceiling / 2 && delay <= ceiling, qPrintable(QString::number(delay)));
                shortest = std::min(shortest, delay);
                longest = std::max(longest, delay);
            }
            QVERIFY2(shortest < ceiling * 6 / 10 && longest > ceiling * 9 / 10,
                     qPrintable(QStringLiteral("attempt %1: %2..%3 ms").arg(attempt).arg(shortest).arg(longest)));
        }
    }
};

QTEST_GUILESS_MAIN(TestClientBehaviour)
#include "tst_client_behaviour.moc"
