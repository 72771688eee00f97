// SPDX-License-Identifier: GPL-3.0-or-later
// The library watch against a private redis-server: a restart without persistence loses the
// library (and the publish record with it), and the watch reports that loss as soon as the client
// is back; a library deleted behind its back is found by the periodic check; a new publish clears
// both.

#include "model/deploy/library_watch.h"
#include "support/limiter_support.h"
#include "support/publish_support.h"
#include "support/redis_process.h"
#include "support/sync_command.h"

#include <QElapsedTimer>
#include <QTest>

using namespace sluice;
using model::LibraryWatch;
using redis::RedisClient;
using test::spinUntil;
using test::syncCommand;

namespace {

const QString ns = QStringLiteral("watch");

model::Policy apiPolicy()
{
    return test::makePolicy(QStringLiteral("api"), model::Algorithm::TokenBucket, 100, 60000, 150);
}

} // namespace

class TestLibraryWatch : public QObject {
    Q_OBJECT

    // Publishes, then waits for the watch to see the result.
    bool publishAndSettle(RedisClient &client, LibraryWatch &watch)
    {
        if (!test::storePolicy(client, ns, apiPolicy()).isEmpty() || !test::publishLibrary(client, ns).ok())
            return false;
        const int before = watch.checks();
        watch.checkNow();
        return spinUntil([&] { return watch.checks() > before; });
    }

private Q_SLOTS:
    void restartWithoutPersistenceIsReportedAfterReconnect()
    {
        test::RedisProcess server(test::RedisProcess::Patience::Quick);
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        RedisClient client(server.options());
        QVERIFY(test::openAndWait(client));
        LibraryWatch watch(&client, test::ownerOf(client, ns), 60000); // only reconnects trigger checks in this test
        QVector<LibraryWatch::Report> reports;
        connect(&watch, &LibraryWatch::checked, this, [&](const LibraryWatch::Report &report) { reports << report; });
        watch.start();
        QVERIFY(publishAndSettle(client, watch));
        QVERIFY2(!watch.lastReport().drift(), qPrintable(watch.lastReport().problems().join(QLatin1Char('\n'))));
        QCOMPARE(watch.lastReport().status.published.version, 1);

        reports.clear();
        QVERIFY(server.restart());
        QElapsedTimer clock;
        clock.start();
        QVERIFY(spinUntil([&] { return !reports.isEmpty() && reports.last().drift(); }, 15000));
        qInfo("drift reported %lld ms after the restart", clock.elapsed());
        const LibraryWatch::Report lost = reports.last();
        QCOMPARE(lost.status.published.version, 0); // the record went with the data
        QCOMPARE(lost.lost.size(), 1);
        QCOMPARE(lost.lost.first().node, client.primaries().first());
        QCOMPARE(lost.lost.first().version, 1);
        QCOMPARE(lost.problems().size(), 1);
        QVERIFY2(lost.problems().first().contains(QLatin1String("version 1 and now has none")),
                 qPrintable(lost.problems().first()));

        // Still reported on later checks, until a publish brings the library back.
        watch.checkNow();
        QVERIFY(spinUntil([&] { return reports.size() >= 2; }));
        QVERIFY(reports.last().drift());
        QVERIFY(publishAndSettle(client, watch));
        QVERIFY2(!watch.lastReport().drift(), qPrintable(watch.lastReport().problems().join(QLatin1Char('\n'))));
        QVERIFY(watch.lastReport().lost.isEmpty());
    }

    void deletedLibraryIsFoundByThePeriodicCheck()
    {
        test::RedisProcess server(test::RedisProcess::Patience::Quick);
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        RedisClient client(server.options());
        QVERIFY(test::openAndWait(client));
        LibraryWatch watch(&client, test::ownerOf(client, ns), 200);
        watch.start();
        QVERIFY(publishAndSettle(client, watch));
        QVERIFY(!watch.lastReport().drift());
        QVERIFY(syncCommand(client, {"FUNCTION", "DELETE", test::ownerOf(client, ns).libraryName()}).ok());
        QVERIFY(spinUntil([&] { return watch.lastReport().drift(); }, 5000));
        const QStringList problems = watch.lastReport().problems();
        QCOMPARE(problems.size(), 1);
        QVERIFY2(problems.first().contains(client.primaries().first()), qPrintable(problems.first()));
        QVERIFY2(problems.first().contains(QLatin1String("version 1 and now has none")), qPrintable(problems.first()));
    }

    void neverPublishedIsNotDrift()
    {
        test::RedisProcess server(test::RedisProcess::Patience::Quick);
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        RedisClient client(server.options());
        QVERIFY(test::openAndWait(client));
        LibraryWatch watch(&client, test::ownerOf(client, ns), 60000);
        watch.start();
        QVERIFY(spinUntil([&] { return watch.checks() > 0; }));
        QCOMPARE(watch.lastReport().status.nodes.size(), 1);
        QVERIFY(!watch.lastReport().drift());
        QVERIFY(watch.lastReport().problems().isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestLibraryWatch)
#include "tst_library_watch.moc"
