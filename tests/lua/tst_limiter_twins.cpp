// SPDX-License-Identifier: GPL-3.0-or-later
// Shadow twins (shadow_of): a shadow policy that decides every call of its live policy, on the same
// subject, as if it alone decided it. The live replies must be exactly what they are without twins,
// and each twin's buckets and counts must be those of the reference model fed the same calls, through
// every entry point (one key, several keys, sluice_allow, a cost no bucket holds).

#include "model/limiter/reference_limiter.h"
#include "support/limiter_support.h"
#include "support/redis_process.h"
#include "support/sync_command.h"

#include <QElapsedTimer>
#include <QRandomGenerator>
#include <QTest>

#include <map>

using namespace sluice;
using model::Algorithm;
using redis::RedisConnection;
using redis::RedisReply;

namespace {

model::Policy twinOf(const QString &name, Algorithm algorithm, qint64 limit, qint64 windowMs, const QString &live)
{
    model::Policy twin = test::makePolicy(name, algorithm, limit, windowMs, 0, true);
    twin.shadowOf = live;
    return twin;
}

const model::Policy kLive = test::makePolicy(QStringLiteral("api"), Algorithm::TokenBucket, 5, 1000, 5);
const model::Policy kOther = test::makePolicy(QStringLiteral("global"), Algorithm::FixedWindow, 1000000, 1000);
const QVector<model::Policy> kTwins{twinOf(QStringLiteral("api-10"), Algorithm::TokenBucket, 10, 1000, kLive.name),
                                    twinOf(QStringLiteral("api-fw3"), Algorithm::FixedWindow, 3, 1000, kLive.name),
                                    twinOf(QStringLiteral("api-gcra"), Algorithm::Gcra, 2, 1000, kLive.name)};

} // namespace

class TestLimiterTwins : public QObject {
    Q_OBJECT

    test::RedisProcess m_redis;
    std::unique_ptr<RedisConnection> m_connection;

    RedisReply call(const QByteArrayList &command) { return test::syncCommand(*m_connection, command); }

    // Each policy's allowed and rejected totals from sluice_stats.
    QHash<QByteArray, QPair<qint64, qint64>> totals()
    {
        const QVector<redis::RespValue> fields = call({"FCALL_RO", "sluice_stats", "0"}).value.elements;
        QHash<QByteArray, QPair<qint64, qint64>> byPolicy;
        for (qsizetype i = 2; i + 3 < fields.size(); i += 4)
            byPolicy.insert(fields.at(i).bytes, {fields.at(i + 1).integer, fields.at(i + 2).integer});
        return byPolicy;
    }

    void load(const QVector<model::Policy> &policies)
    {
        QVERIFY(call({"FLUSHALL"}).ok());
        const QString loaded = test::loadLibrary(*m_connection, test::testClockLibrary(policies));
        QVERIFY2(loaded.isEmpty(), qPrintable(loaded));
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_redis.start(), qPrintable(m_redis.errorString()));
        m_connection = std::make_unique<RedisConnection>(m_redis.options());
        QVERIFY(test::openAndWait(*m_connection));
    }

    // 3,000 random calls over 8 subjects: one key through sluice_acquire and sluice_allow, two keys (the
    // live policy beside another), and now and then a cost above every bucket.
    void twinsDecideAsTheModelDoes()
    {
        load(QVector<model::Policy>{kLive, kOther} + kTwins);
        struct Subject {
            model::ReferenceLimiter live{kLive};
            std::vector<model::ReferenceLimiter> twins;
        };
        std::map<QByteArray, Subject> subjects;
        QHash<QString, QPair<qint64, qint64>> expected; // per twin: allowed, rejected
        QRandomGenerator random(42);
        qint64 now = test::kTestClockStart;
        for (int n = 0; n < 3000; ++n) {
            now += random.bounded(120);
            QVERIFY(call({"FCALL", "sluice_test_set_clock", "0", QByteArray::number(now)}).ok());
            const QByteArray subject = "s" + QByteArray::number(random.bounded(8));
            Subject &state = subjects[subject];
            if (state.twins.empty())
                for (const model::Policy &twin : kTwins)
                    state.twins.emplace_back(twin);
            const int shape = random.bounded(10);
            const qint64 cost = shape == 9 ? 40 : 1 + random.bounded(2);
            QByteArrayList command;
            if (shape < 4)
                command = {"FCALL", "sluice_acquire",        "1", test::bucketKey(kLive.name, subject),
                           "api",   QByteArray::number(cost)};
            else if (shape < 7)
                command = {"FCALL", "sluice_allow",          "1", test::bucketKey(kLive.name, subject),
                           "api",   QByteArray::number(cost)};
            else
                command = {"FCALL",
                           "sluice_acquire",
                           "2",
                           test::bucketKey(kLive.name, subject),
                           test::bucketKey(kOther.name, subject),
                           "api",
                           "global",
                           QByteArray::number(cost)};
            const RedisReply reply = call(command);
            QVERIFY2(reply.ok(), qPrintable(reply.errorText()));
            const bool liveAdmits = state.live.admit(now, cost);
            QVERIFY2((reply.value.elements.value(0).integer == 1) == liveAdmits,
                     qPrintable(QStringLiteral("call %1: the live decision changed").arg(n)));
            for (size_t t = 0; t < state.twins.size(); ++t) {
                const bool admits = state.twins[t].admit(now, cost);
                auto &tally = expected[kTwins.at(qsizetype(t)).name];
                (admits ? tally.first : tally.second) += 1;
            }
        }
        const auto counted = totals();
        for (const model::Policy &twin : kTwins) {
            const auto tally = expected.value(twin.name);
            qInfo("%s: %lld admitted, %lld rejected", qPrintable(twin.name), qlonglong(tally.first),
                  qlonglong(tally.second));
            QCOMPARE(counted.value(twin.name.toUtf8()), tally);
            QVERIFY(tally.first > 0 && tally.second > 0);
        }
        // Every twin bucket holds what the model holds.
        for (const auto &[subject, state] : subjects)
            for (qsizetype t = 0; t < kTwins.size(); ++t) {
                const RedisReply inspected
                    = call({"FCALL_RO", "sluice_inspect", "1", test::bucketKey(kTwins.at(t).name, subject),
                            kTwins.at(t).name.toUtf8()});
                QVERIFY2(inspected.ok(), qPrintable(inspected.errorText()));
                QCOMPARE(inspected.value.elements.value(5).integer, state.twins[size_t(t)].available(now));
            }
    }

    // A peek decides nothing, so no twin moves; a library whose twin lost its live policy still loads and
    // the twin is an ordinary shadow policy nobody calls.
    void peeksAndOrphans()
    {
        load(QVector<model::Policy>{kLive} + kTwins);
        QVERIFY(call({"FCALL", "sluice_test_set_clock", "0", QByteArray::number(test::kTestClockStart)}).ok());
        QVERIFY(call({"FCALL_RO", "sluice_peek", "1", test::bucketKey(kLive.name, "x"), "api"}).ok());
        QCOMPARE(call({"EXISTS", test::bucketKey(kTwins.first().name, "x")}).value.integer, qint64(0));
        load(kTwins);
        const RedisReply reply
            = call({"FCALL", "sluice_acquire", "1", test::bucketKey(kTwins.first().name, "x"), "api-10"});
        QVERIFY2(reply.ok(), qPrintable(reply.errorText()));
    }

    // What a twin costs a call: the server's time per sluice_acquire with 0, 1 and 3 twins, 20,000 calls each.
    void whatATwinCosts()
    {
        qint64 base = 0;
        for (const int twins : {0, 1, 3}) {
            load(QVector<model::Policy>{kLive} + kTwins.mid(0, twins));
            QVERIFY(call({"CONFIG", "RESETSTAT"}).ok());
            QVERIFY(call({"FCALL", "sluice_test_set_clock", "0", QByteArray::number(test::kTestClockStart)}).ok());
            int pending = 0;
            for (int i = 0; i < 20000; ++i) {
                ++pending;
                m_connection->send({"FCALL", "sluice_acquire", "1",
                                    test::bucketKey(kLive.name, "s" + QByteArray::number(i % 100)), "api"},
                                   this, [&pending](const RedisReply &) { --pending; });
            }
            QVERIFY(test::spinUntil([&] { return pending == 0; }, 60000));
            const QByteArray stats = call({"INFO", "commandstats"}).value.bytes;
            const qsizetype at = stats.indexOf("cmdstat_fcall:");
            QVERIFY(at >= 0);
            const QByteArray line = stats.mid(at, stats.indexOf('\n', at) - at);
            const qint64 usec = line.mid(line.indexOf("usec=") + 5).split(',').value(0).toLongLong();
            const double perCall = double(usec) / 20000.0;
            if (twins == 0)
                base = usec;
            qInfo("%d twin(s): %.2f us of server time per call (%.2fx the live policy alone)", twins, perCall,
                  double(usec) / double(std::max<qint64>(1, base)));
        }
    }
};

QTEST_GUILESS_MAIN(TestLimiterTwins)
#include "tst_limiter_twins.moc"
