// SPDX-License-Identifier: GPL-3.0-or-later
// Seed 002's scenario for every algorithm: 16 clients on their own connections fire 1000 calls
// each at one key of a "100 per minute" policy, on standalone and on the Cluster. Exactly 100 are
// admitted (continuously refilling algorithms also admit the tokens that refill while the burst
// lasts: one per 600 ms); the per-key and per-policy counters agree with what the clients saw.
// The policies are stored and published the production way (policy store, publisher). The same through
// the lean entry point (sluice_allow), whose calls count the same way: per key, and (checked on
// standalone, where one library holds them) per policy. The fixed window is run in both window starts:
// aligned to the clock and opened at the subject's first call. Then overrides, a penalty and
// reservations under the same 16 clients.

#include "model/deploy/library_publisher.h"
#include "model/limiter/bucket_key.h"
#include "model/policy/policy_store.h"
#include "support/limiter_support.h"
#include "support/redis_process.h"
#include "support/sync_command.h"
#include "support/test_services.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QTest>
#include <QUuid>

using namespace sluice;
using model::Algorithm;
using redis::RedisClient;
using redis::RedisReply;

Q_DECLARE_METATYPE(sluice::model::Algorithm)

namespace {
const QString kFirstCall = QStringLiteral("fixed_window_first_call");
}

class TestLimiterConcurrency : public QObject {
    Q_OBJECT

    test::RedisProcess m_standalone;
    QString m_namespace;
    redis::ConnectionOptions m_clusterSeed;

    static QVector<model::Policy> policies()
    {
        QVector<model::Policy> list;
        for (const QString &name : model::algorithmNames())
            list << test::makePolicy(name, *model::algorithmFromName(name), 100, 60000);
        // The fixed window that opens at the subject's first call, timed by its key's expiry.
        model::Policy firstCall = test::makePolicy(kFirstCall, Algorithm::FixedWindow, 100, 60000);
        firstCall.windowStart = model::WindowStart::FirstCall;
        return list << firstCall;
    }

    // A fixed window of 100 a minute whose partner-* subjects get 300, and a breach blocks for 30 s; for
    // reservations, a GCRA bucket of 1,000,000 that refills one a week, and a fixed and a sliding window of
    // 1,000,000 a week.
    static QVector<model::Policy> ruledPolicies()
    {
        model::Policy ruled = test::makePolicy(QStringLiteral("ruled"), Algorithm::FixedWindow, 100, 60000);
        ruled.blockMs = 30000;
        ruled.overrides = {{"partner-", true, model::SubjectOverride::Kind::Limits, 300, 0}};
        return {ruled, test::makePolicy(QStringLiteral("llm"), Algorithm::Gcra, 1, 604800000, 1000000),
                test::makePolicy(QStringLiteral("quota"), Algorithm::FixedWindow, 1000000, 604800000),
                test::makePolicy(QStringLiteral("tokens"), Algorithm::SlidingWindow, 1000000, 604800000)};
    }

    // Stores the policies and publishes them on every primary, as sluicectl apply + publish do.
    void storeAndPublish(RedisClient *deployment, int primaries)
    {
        QVector<model::PolicyChange> changes;
        for (const model::Policy &policy : policies() + ruledPolicies())
            changes.append({model::PolicyChange::Kind::Put, policy, -1});
        bool committed = false;
        model::PolicyStore(deployment, m_namespace)
            .commit(changes, QStringLiteral("test"), this, [&](const model::PolicyStore::CommitResult &result) {
                QVERIFY2(!result.failure, qPrintable(sluice::model::messageOf(result.failure)));
                committed = true;
            });
        QTRY_VERIFY_WITH_TIMEOUT(committed, 10000);
        model::PublishResult published;
        bool done = false;
        model::LibraryPublisher(deployment, {m_namespace, 0})
            .publish(QStringLiteral("test"), this, [&](const model::PublishResult &result) {
                published = result;
                done = true;
            });
        QTRY_VERIFY_WITH_TIMEOUT(done, 10000);
        QVERIFY2(published.ok(), qPrintable(sluice::model::messageOf(published.failure)));
        QCOMPARE(published.nodes.size(), primaries);
    }

    struct PolicyCounts {
        qint64 allowed = 0, rejected = 0;
    };

    // The policy's totals in sluice_stats (the library's memory: one server's).
    static PolicyCounts policyCounts(RedisClient &client, const model::LibraryOwner &owner, const QString &policy)
    {
        const RedisReply stats = test::syncCommand(client, {"FCALL_RO", owner.function("stats"), "0"});
        const QVector<redis::RespValue> &fields = stats.value.elements;
        for (int i = 2; i + 2 < fields.size(); i += 4) {
            if (fields.at(i).bytes == policy.toUtf8())
                return {fields.at(i + 1).integer, fields.at(i + 2).integer};
        }
        qWarning("no counts for policy %s in %s", qPrintable(policy), qPrintable(stats.value.toString()));
        return {-1, -1};
    }

    // Runs `rounds` steps on each of `clients` at once, a client's next step once its last has called `next`;
    // false when they did not all finish within two minutes.
    static bool eachClientInTurn(int clients, int rounds,
                                 const std::function<void(int client, const std::function<void()> &next)> &step)
    {
        int finished = 0;
        std::vector<std::function<void(int)>> run(clients);
        for (int c = 0; c < clients; ++c) {
            run[c] = [&, c](int left) {
                if (left == 0)
                    ++finished;
                else
                    step(c, [&run, c, left] { run[c](left - 1); });
            };
        }
        for (int c = 0; c < clients; ++c)
            run[c](rounds);
        return test::spinUntil([&] { return finished == clients; }, 120000);
    }

    // Waits, if needed, so that an aligned minute does not end during the burst.
    static void awayFromMinuteBoundary()
    {
        const qint64 intoMinute = QDateTime::currentMSecsSinceEpoch() % 60000;
        if (intoMinute > 45000)
            QTest::qWait(static_cast<int>(60000 - intoMinute + 100));
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_namespace = test::uniqueNamespace("c");
        QVERIFY2(m_standalone.start(), qPrintable(m_standalone.errorString()));
        RedisClient standalone(m_standalone.options());
        QVERIFY(test::openAndWait(standalone));
        storeAndPublish(&standalone, 1);

        SLUICE_REQUIRE_SERVICE(seeds, "SLUICE_TEST_CLUSTER_SEEDS", "Redis Cluster");
        m_clusterSeed = test::optionsFor(QStringLiteral("redis://") + seeds.section(QLatin1Char(','), 0, 0));
        RedisClient cluster(m_clusterSeed);
        QVERIFY(test::openAndWait(cluster));
        QCOMPARE(cluster.kind(), RedisClient::Kind::Cluster);
        storeAndPublish(&cluster, 3);
    }

    void sixteenClientsGetExactlyTheLimit_data()
    {
        QTest::addColumn<QString>("policy");
        QTest::addColumn<Algorithm>("algorithm");
        QTest::addColumn<bool>("cluster");
        QTest::addColumn<QByteArray>("verb");
        for (const char *verb : {"acquire", "allow"})
            for (const bool cluster : {false, true})
                for (const model::Policy &policy : policies()) {
                    if (qstrcmp(verb, "allow") == 0 && policy.algorithm == Algorithm::Concurrency)
                        continue; // no lean reply: its callers need the lease id
                    QTest::addRow("%s, %s, %s", qPrintable(policy.name), cluster ? "cluster" : "standalone", verb)
                        << policy.name << policy.algorithm << cluster << QByteArray(verb);
                }
    }

    void sixteenClientsGetExactlyTheLimit()
    {
        QFETCH(QString, policy);
        QFETCH(Algorithm, algorithm);
        QFETCH(bool, cluster);
        QFETCH(QByteArray, verb);
        const QByteArray subject = "seller-" + QUuid::createUuid().toString(QUuid::Id128).left(12).toUtf8();
        const QByteArray key = test::bucketKey(policy, subject, m_namespace);
        const model::LibraryOwner owner{m_namespace, 0};
        const QByteArray function = owner.function(verb.constData());

        // Each client is a deployment client of its own, routed by the key's slot on the Cluster.
        constexpr int clients = 16, callsEach = 1000;
        std::vector<std::unique_ptr<RedisClient>> connections;
        for (int i = 0; i < clients; ++i) {
            connections.push_back(std::make_unique<RedisClient>(cluster ? m_clusterSeed : m_standalone.options()));
            QVERIFY(test::openAndWait(*connections.back()));
        }
        // (A first-call window opens with the burst and lasts a minute: no boundary to avoid.)
        const bool windowed
            = (algorithm == Algorithm::FixedWindow && policy != kFirstCall) || algorithm == Algorithm::SlidingWindow;
        if (windowed)
            awayFromMinuteBoundary();
        const PolicyCounts before = cluster ? PolicyCounts{} : policyCounts(*connections.front(), owner, policy);

        int allowed = 0, rejected = 0, errors = 0, finished = 0;
        QString firstError;
        QElapsedTimer span;
        span.start();
        std::vector<std::function<void(int)>> fire(clients);
        for (int c = 0; c < clients; ++c) {
            fire[c] = [&, c](int left) {
                if (left == 0) {
                    ++finished;
                    return;
                }
                connections[c]->send({"FCALL", function, "1", key, policy.toUtf8()}, this,
                                     [&, c, left](const RedisReply &reply) {
                    if (!reply.ok() || reply.value.elements.isEmpty()) {
                        ++errors;
                        firstError = reply.errorText();
                    } else {
                        (reply.value.elements.at(0).integer == 1 ? allowed : rejected) += 1;
                    }
                    fire[c](left - 1);
                });
            };
        }
        for (int c = 0; c < clients; ++c)
            fire[c](callsEach);
        QVERIFY(test::spinUntil([&] { return finished == clients; }, 120000));
        const qint64 elapsedMs = span.elapsed();
        QVERIFY2(errors == 0, qPrintable(firstError));
        QCOMPARE(allowed + rejected, clients * callsEach);

        const bool refills = algorithm == Algorithm::TokenBucket || algorithm == Algorithm::Gcra
            || algorithm == Algorithm::LeakyBucket;
        qInfo("%d admitted of %d in %lld ms", allowed, clients * callsEach, elapsedMs);
        if (refills) {
            // Every token that refills during the burst is taken at once; the server's span is
            // a little shorter than the clients'.
            QVERIFY2(allowed >= 100 + (elapsedMs - 50) / 600 && allowed <= 100 + elapsedMs / 600,
                     qPrintable(QStringLiteral("%1 admitted in %2 ms").arg(allowed).arg(elapsedMs)));
        } else {
            QCOMPARE(allowed, 100);
        }

        const RedisReply state = test::syncCommand(*connections.front(),
                                                   {"FCALL_RO", owner.function("inspect"), "1", key, policy.toUtf8()});
        QVERIFY2(state.ok(), qPrintable(state.errorText()));
        QCOMPARE(state.value.field("allowed")->integer, allowed);
        QCOMPARE(state.value.field("rejected")->integer, rejected);
        if (!cluster) {
            const PolicyCounts after = policyCounts(*connections.front(), owner, policy);
            QCOMPARE(after.allowed - before.allowed, allowed);
            QCOMPARE(after.rejected - before.rejected, rejected);
        }
    }

    // 16 clients, 1000 calls each, at a subject whose override allows 300 a minute under a policy that
    // blocks a breach for 30 s: exactly 300 admitted, on standalone and on the Cluster, and the subject is
    // blocked after. Then 16 clients reserving and settling at once: the bucket was charged exactly the sum
    // of the settled costs.
    void sixteenClientsKeepOverridesPenaltiesAndReservations_data()
    {
        QTest::addColumn<bool>("cluster");
        QTest::newRow("standalone") << false;
        QTest::newRow("cluster") << true;
    }

    void sixteenClientsKeepOverridesPenaltiesAndReservations()
    {
        QFETCH(bool, cluster);
        const model::LibraryOwner owner{m_namespace, 0};
        const QByteArray id = QUuid::createUuid().toString(QUuid::Id128).left(12).toUtf8();
        const QByteArray partner = test::bucketKey(QStringLiteral("ruled"), "partner-" + id, m_namespace);
        constexpr int clients = 16, callsEach = 1000, settlementsEach = 50;
        std::vector<std::unique_ptr<RedisClient>> connections;
        for (int i = 0; i < clients; ++i) {
            connections.push_back(std::make_unique<RedisClient>(cluster ? m_clusterSeed : m_standalone.options()));
            QVERIFY(test::openAndWait(*connections.back()));
        }
        awayFromMinuteBoundary();

        int allowed = 0, errors = 0;
        QString firstError;
        const auto failed = [&](const RedisReply &reply) {
            ++errors;
            firstError = reply.errorText() + reply.value.toString();
        };
        QVERIFY(eachClientInTurn(clients, callsEach, [&](int c, const std::function<void()> &next) {
            connections[c]->send({"FCALL", owner.function("acquire"), "1", partner, "ruled"}, this,
                                 [&, next](const RedisReply &reply) {
                if (reply.ok())
                    allowed += reply.value.elements.at(0).integer == 1;
                else
                    failed(reply);
                next();
            });
        }));
        QVERIFY2(errors == 0, qPrintable(firstError));
        QCOMPARE(allowed, 300);
        const RedisReply state
            = test::syncCommand(*connections.front(), {"FCALL_RO", owner.function("inspect"), "1", partner, "ruled"});
        QCOMPARE(state.value.field("limit")->integer, 300);
        QCOMPARE(state.value.field("override")->toString(), QStringLiteral("partner-*"));
        QVERIFY(state.value.field("blocked_ms")->integer > 20000);
        QCOMPARE(state.value.field("allowed")->integer, 300);

        // Per policy that settles: the charges of 800 settlements at once, against what the bucket lost.
        for (const QString &policy : {QStringLiteral("llm"), QStringLiteral("quota"), QStringLiteral("tokens")}) {
            const QByteArray shared = test::bucketKey(policy, "team-" + id, m_namespace);
            const QByteArray name = policy.toUtf8();
            const qint64 week = QDateTime::currentMSecsSinceEpoch() / 604800000;
            qint64 charged = 0, round = 0;
            QVERIFY(eachClientInTurn(clients, settlementsEach, [&](int c, const std::function<void()> &next) {
                const qint64 n = ++round;
                connections[c]->send({"FCALL", owner.function("reserve"), "1", shared, name,
                                      QByteArray::number(1 + (c * 7 + n * 13) % 20)},
                                     this,
                                     [&, c, n, next](const RedisReply &reserved) {
                    if (!reserved.ok() || reserved.value.elements.size() != 7) {
                        failed(reserved);
                        return next();
                    }
                    connections[c]->send({"FCALL", owner.function("settle"), "1", shared, name,
                                          reserved.value.elements.at(6).bytes, QByteArray::number((c + n * 3) % 31)},
                                         this, [&, next](const RedisReply &settled) {
                                             if (settled.ok() && settled.value.elements.at(1).integer == 0)
                                                 charged += settled.value.elements.at(0).integer;
                                             else
                                                 failed(settled);
                                             next();
                                         });
                });
            }));
            QVERIFY2(errors == 0, qPrintable(firstError));
            const RedisReply left
                = test::syncCommand(*connections.front(), {"FCALL_RO", owner.function("peek"), "1", shared, name});
            qInfo("%s: %d settlements charged %lld units; %lld left of 1,000,000", name.constData(),
                  clients * settlementsEach, charged, left.value.elements.at(1).integer);
            // (The windows' week is one window: a run across its end would start another, and a new subject's
            // sliding window has no window before it.)
            if (QDateTime::currentMSecsSinceEpoch() / 604800000 == week)
                QCOMPARE(left.value.elements.at(1).integer, 1000000 - charged);
        }
    }
};

QTEST_GUILESS_MAIN(TestLimiterConcurrency)
#include "tst_limiter_concurrency.moc"
