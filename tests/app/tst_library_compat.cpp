// SPDX-License-Identifier: GPL-3.0-or-later
// Readers and libraries one release apart, now that the library counts without the clock. The previous
// release's library is its own code (tests/lua/previous/sluice-67e8fc1.lua.gz: lua/limiter/ joined at
// 67e8fc1, the last commit before clockless counting) under today's policy table; the previous release's
// readers are the calls they send, as their sources sent them. Each side either works or says plainly
// that the other is older or newer.

#include "model/limiter/limiter_library.h"
#include "model/limiter/lua_source.h"
#include "model/monitor/policy_rate_sampler.h"
#include "model/monitor/top_rejected.h"
#include "model/policy/policy_store.h"
#include "redis/redis_client.h"
#include "support/limiter_support.h"
#include "support/redis_process.h"
#include "support/sluicectl_run.h"
#include "support/sync_command.h"
#include "support/traffic_support.h"

#include <QProcess>
#include <QTemporaryFile>
#include <QTest>

using namespace sluice;
using model::Algorithm;

namespace {

// The previous release's static part of the library.
QByteArray previousLibraryPart()
{
    QProcess gunzip;
    gunzip.start(QStringLiteral("gzip"),
                 {QStringLiteral("-dc"), QStringLiteral(SLUICE_TEST_SOURCE_DIR "/lua/previous/sluice-67e8fc1.lua.gz")});
    if (!gunzip.waitForFinished(10000) || gunzip.exitCode() != 0)
        return {};
    return gunzip.readAllStandardOutput();
}

} // namespace

class TestLibraryCompat : public QObject {
    Q_OBJECT

    test::RedisProcess m_server;
    std::unique_ptr<redis::RedisClient> m_client;

    QStringList ctl(const QStringList &args) const
    {
        return QStringList{QStringLiteral("-p"), QString::number(m_server.port())} + args;
    }

    redis::RedisReply call(const QByteArrayList &command) { return test::syncCommand(*m_client, command); }

    // The policies stored and published by this release's sluicectl: api lets 2 calls an hour per subject.
    void publishWithThisRelease()
    {
        QVERIFY(call({"FLUSHALL"}).ok());
        QVERIFY(call({"FUNCTION", "FLUSH"}).ok());
        QTemporaryFile file;
        QVERIFY(file.open());
        file.write(R"({"policies": [{"name": "api", "algorithm": "token_bucket", "limit": 2, "window_ms": 3600000}]})");
        file.close();
        const test::CtlRun applied
            = test::sluicectl(ctl({QStringLiteral("apply"), QStringLiteral("--yes"), file.fileName()}));
        QVERIFY2(applied.exitCode == 0, qPrintable(applied.err));
        const test::CtlRun published = test::sluicectl(ctl({QStringLiteral("publish"), QStringLiteral("--yes")}));
        QVERIFY2(published.exitCode == 0, qPrintable(published.err));
    }

    test::Fired fire(const QByteArray &subject, int calls)
    {
        return test::fireAcquires(*m_client, QStringLiteral("sluice"), QStringLiteral("api"), calls,
                                  [subject](int) { return subject; });
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_client = std::make_unique<redis::RedisClient>(m_server.options());
        QVERIFY(test::openAndWait(*m_client));
    }

    // The previous release's library running, read by this release: the totals and rates work as they did;
    // the most rejected lists say the library is older; the exporter serves the totals and says so too.
    void thePreviousLibraryUnderTodaysReaders()
    {
        publishWithThisRelease();
        const QByteArray previous = previousLibraryPart();
        QVERIFY(!previous.isEmpty());
        const QByteArray today = model::luaSource(QStringLiteral("sluice.lua"));
        QVERIFY(today != previous);
        const model::LimiterLibrary built = model::LimiterLibrary::build(
            {test::makePolicy(QStringLiteral("api"), Algorithm::TokenBucket, 2, 3600000, 2)}, {}, model::LibraryOwner{},
            1);
        QByteArray source = built.source;
        QVERIFY(source.contains(today));
        source.replace(today, previous);
        // As the previous release published it: the digest it claims, and the publish record's, are its own.
        const std::optional<QByteArray> digest = model::LimiterLibrary::digestOfSource(source);
        QVERIFY(digest && source.contains(built.digest));
        source.replace(built.digest, *digest);
        QVERIFY2(call({"FUNCTION", "LOAD", "REPLACE", source}).ok(), "the previous library does not load");
        QVERIFY(call({"HSET", model::AdminKeys(QStringLiteral("sluice")).library(), "digest", *digest}).ok());
        QVERIFY(call({"FCALL_RO", "sluice_top", "0", "api"}).ok()); // it is the previous one indeed

        model::PolicyRateSampler sampler(m_client.get(), model::LibraryOwner{});
        sampler.sampleNow();
        QVERIFY(test::spinUntil([&] { return sampler.readings() == 1; }));
        const test::Fired fired = fire("mallory", 5);
        QCOMPARE(fired.rejected, 3u);
        std::optional<model::RateSample> sample;
        connect(&sampler, &model::PolicyRateSampler::sampled, this,
                [&sample](const model::RateSample &s) { sample = s; });
        sampler.sampleNow();
        QVERIFY(test::spinUntil([&] { return sample.has_value(); }));
        QVERIFY2(sample->problems.isEmpty(), qPrintable(sample->problems.join(QLatin1Char('\n'))));
        QCOMPARE(sample->policies.value(0).point.allowed, 2u);
        QCOMPARE(sample->policies.value(0).point.rejected, 3u);

        model::TopRejectedPoller poller(m_client.get(), model::LibraryOwner{});
        poller.setPolicy(QStringLiteral("api"));
        poller.pollNow();
        QVERIFY(test::spinUntil([&] { return !poller.last().problems.isEmpty(); }));
        QVERIFY2(poller.last().problems.first().contains(QLatin1String("older than this Sluice")),
                 qPrintable(poller.last().problems.first()));

        const test::CtlRun metrics
            = test::sluicectl(ctl({QStringLiteral("metrics"), QStringLiteral("--top"), QStringLiteral("3")}));
        QCOMPARE(metrics.exitCode, 0);
        QVERIFY2(metrics.out.contains(QLatin1String("sluice_rejected_total{namespace=\"sluice\",policy=\"api\"} 3\n")),
                 qPrintable(metrics.out));
        QVERIFY2(metrics.err.contains(QLatin1String("older than this Sluice")), qPrintable(metrics.err));
        const test::CtlRun watch
            = test::sluicectl(ctl({QStringLiteral("watch"), QStringLiteral("--duration"), QStringLiteral("1"),
                                   QStringLiteral("--interval"), QStringLiteral("250")}));
        QVERIFY2(watch.exitCode == 0 && watch.out.contains(QLatin1String("api")), qPrintable(watch.err + watch.out));
    }

    // This release's library under the previous release's readers, each call as its source sent it: the
    // dashboard's and exporter's totals (sluice_stats with the since_second that asks for totals alone) parse
    // as before and are exact; the most rejected lists (sluice_top) get an error saying the reader is older;
    // publish's guard (sluice_stats without since_second: a non-empty fourth element is "in use") still holds.
    void todaysLibraryUnderThePreviousReaders()
    {
        publishWithThisRelease();
        const test::Fired fired = fire("mallory", 6);
        QCOMPARE(fired.rejected, 4u);

        const redis::RedisReply totals = call({"FCALL_RO", "sluice_stats", "0", "9007199254740991"});
        const QVector<redis::RespValue> &fields = totals.value.elements;
        QVERIFY(totals.ok() && fields.size() >= 2 && (fields.size() - 2) % 4 == 0);
        QVERIFY(fields.at(0).isInteger() && fields.at(1).isInteger());
        QCOMPARE(fields.at(2).bytes, QByteArray("api"));
        QCOMPARE(fields.at(3).integer, 2);
        QCOMPARE(fields.at(4).integer, 4);
        QVERIFY(fields.at(5).isArray() && fields.at(5).elements.isEmpty()); // no series asked for, none given

        for (const QByteArrayList &command : {QByteArrayList{"FCALL_RO", "sluice_top", "0", "api"},
                                              QByteArrayList{"FCALL_RO", "sluice_top", "0", "api", "1"}}) {
            const redis::RedisReply reply = call(command);
            QVERIFY(reply.value.isError());
            // The previous readers show an error that is not "Function not found" as it is.
            QVERIFY2(reply.errorText().contains(QLatin1String("older than this library"))
                         && reply.errorText().contains(QLatin1String("sluice_most_rejected")),
                     qPrintable(reply.errorText()));
        }

        const redis::RedisReply guard = call({"FCALL_RO", "sluice_stats", "0"});
        QCOMPARE(guard.value.elements.value(5).elements.size(), 1);
    }
};

QTEST_GUILESS_MAIN(TestLibraryCompat)
#include "tst_library_compat.moc"
