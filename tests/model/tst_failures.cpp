// SPDX-License-Identifier: GPL-3.0-or-later
// One failure type for every model operation: what each kind of reply means, checked without a
// server through the client seam (a lost answer or a conflict at the last moment cannot be had
// from a service on demand). The real-service suites check the same operations end to end.

#include "model/deploy/library_publisher.h"
#include "model/failure.h"
#include "model/policy/policy_store.h"
#include "support/scripted_commands.h"
#include "support/sync_command.h"

#include <QtTest>

using namespace sluice;
using model::Failure;
using redis::RedisReply;

namespace {

model::Policy apiPolicy()
{
    model::Policy policy;
    policy.name = QStringLiteral("api");
    policy.algorithm = model::Algorithm::TokenBucket;
    policy.limit = 100;
    policy.windowMs = 60000;
    policy.burst = 100;
    return policy;
}

model::PolicyStore::CommitResult commit(test::ScriptedCommands &redis)
{
    return test::awaitCallback<model::PolicyStore::CommitResult>(
        [&](QObject *context, auto done) {
        model::PolicyStore(&redis, QStringLiteral("t"))
            .commit({{model::PolicyChange::Kind::Put, apiPolicy(), 0}}, QStringLiteral("tester"), context, done);
        },
        {});
}

} // namespace

class TestFailures : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void eachReplyHasOneKind_data()
    {
        QTest::addColumn<RedisReply>("reply");
        QTest::addColumn<int>("readKind");
        QTest::addColumn<int>("writeKind"); // a write whose answer was lost may have run
        QTest::addColumn<QString>("message");
        QTest::newRow("never connected") << test::failedReply(RedisReply::Failure::NotConnected,
                                                              QStringLiteral("refused"))
                                         << int(Failure::Kind::Unreachable) << int(Failure::Kind::Unreachable)
                                         << QStringLiteral("refused");
        QTest::newRow("no connection in time")
            << test::failedReply(RedisReply::Failure::Timeout, QStringLiteral("late")) << int(Failure::Kind::TimedOut)
            << int(Failure::Kind::TimedOut) << QStringLiteral("late");
        QTest::newRow("connection lost before the answer")
            << test::failedReply(RedisReply::Failure::Disconnected, QStringLiteral("reset"))
            << int(Failure::Kind::Unreachable) << int(Failure::Kind::OutcomeUnknown) << QStringLiteral("reset");
        QTest::newRow("no answer in time")
            << test::failedReply(RedisReply::Failure::NoReply, QStringLiteral("no reply within 500 ms"))
            << int(Failure::Kind::TimedOut) << int(Failure::Kind::OutcomeUnknown)
            << QStringLiteral("no reply within 500 ms");
        QTest::newRow("read-only client")
            << test::failedReply(RedisReply::Failure::Refused, QStringLiteral("read-only"))
            << int(Failure::Kind::Refused) << int(Failure::Kind::Refused) << QStringLiteral("read-only");
        QTest::newRow("conflict") << test::errorReply("CONFLICT api expected 1 found 2") << int(Failure::Kind::Conflict)
                                  << int(Failure::Kind::Conflict) << QStringLiteral("api expected 1 found 2");
        QTest::newRow("server error") << test::errorReply("WRONGTYPE Operation against a key")
                                      << int(Failure::Kind::ServerError) << int(Failure::Kind::ServerError)
                                      << QStringLiteral("WRONGTYPE Operation against a key");
    }
    void eachReplyHasOneKind()
    {
        QFETCH(RedisReply, reply);
        QFETCH(int, readKind);
        QFETCH(int, writeKind);
        QFETCH(QString, message);
        const Failure read = Failure::fromReply(reply);
        const Failure write = Failure::fromWriteReply(reply);
        QCOMPARE(int(read.kind), readKind);
        QCOMPARE(int(write.kind), writeKind);
        QCOMPARE(read.message, message);
        QCOMPARE(write.message, message);
        for (const Failure &failure : {read, write}) {
            const bool connection = failure.kind == Failure::Kind::Unreachable
                || failure.kind == Failure::Kind::TimedOut || failure.kind == Failure::Kind::OutcomeUnknown;
            QCOMPARE(failure.isConnectionFailure(), connection);
        }
    }

    void aCommitWhoseAnswerIsLostMayHaveRun()
    {
        test::ScriptedCommands redis;
        redis.queue("EVAL", test::failedReply(RedisReply::Failure::Disconnected, QStringLiteral("connection reset")));
        const model::PolicyStore::CommitResult result = commit(redis);
        QVERIFY(result.failure);
        QCOMPARE(int(result.failure->kind), int(Failure::Kind::OutcomeUnknown));
        QCOMPARE(redis.sent.size(), 1); // never sent twice
    }

    void aCommitOverANewerVersionIsAConflict()
    {
        test::ScriptedCommands redis;
        redis.queue("EVAL", test::errorReply("CONFLICT api expected 0 found 3"));
        const model::PolicyStore::CommitResult result = commit(redis);
        QVERIFY(result.failure);
        QCOMPARE(int(result.failure->kind), int(Failure::Kind::Conflict));
        QCOMPARE(result.failure->message, QStringLiteral("someone else saved in between: api expected 0 found 3"));
        QVERIFY(result.changed.isEmpty());
    }

    void aListWithAnUnreachablePolicyListsNothing()
    {
        test::ScriptedCommands redis;
        redis.queue("SMEMBERS", test::arrayReply({"api", "web"}));
        redis.queue("HGETALL",
                    test::arrayReply({"algorithm", "token_bucket", "limit", "100", "window_ms", "60000", "burst", "100",
                                      "shadow", "0", "version", "1"}));
        redis.queue("HGETALL", test::failedReply(RedisReply::Failure::NotConnected, QStringLiteral("node down")));
        const auto listed = test::awaitCallback<model::PolicyStore::ListResult>(
            [&](QObject *context, auto done) { model::PolicyStore(&redis, QStringLiteral("t")).list(context, done); },
            {});
        QVERIFY(listed.failure);
        QCOMPARE(int(listed.failure->kind), int(Failure::Kind::Unreachable));
        QVERIFY2(listed.failure->message.contains(QLatin1String("\"web\"")), qPrintable(listed.failure->message));
        QVERIFY(listed.policies.isEmpty());
    }

    void aPublishThatLosesTheRaceLoadsNothing()
    {
        test::ScriptedCommands redis;
        redis.queue("SMEMBERS", test::arrayReply({}));
        redis.queue("HMGET", test::arrayReply({"", "", "", ""})); // the lists, never saved
        redis.queue("HMGET", test::arrayReply({"1", "digest", "0", "someone", "0", "", ""}));
        redis.queue("FUNCTION", test::arrayReply({})); // the primary runs no library yet
        redis.queue("EVAL", test::errorReply("CONFLICT 2"));
        const auto published = test::awaitCallback<model::PublishResult>(
            [&](QObject *context, auto done) {
            // Allowed to publish nothing: the race is the point here.
            model::LibraryPublisher(&redis, {QStringLiteral("t"), 0}, {true, true})
                .publish(QStringLiteral("tester"), context, done);
            },
            {});
        QVERIFY(published.failure);
        QCOMPARE(int(published.failure->kind), int(Failure::Kind::Conflict));
        QVERIFY2(published.failure->message.contains(QLatin1String("version 2")),
                 qPrintable(published.failure->message));
        for (const QByteArrayList &command : redis.sent)
            QVERIFY2(command.mid(0, 2) != QByteArrayList({"FUNCTION", "LOAD"}),
                     "nothing may be loaded after a lost race");
    }
};

QTEST_GUILESS_MAIN(TestFailures)
#include "tst_failures.moc"
