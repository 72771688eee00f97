// sluicectl as a script would run it: output, exit codes and error messages.

#include "support/redis_process.h"
#include "support/test_services.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QTest>

namespace {

struct Run {
    int exitCode = -1;
    QString out;
    QString err;
    qint64 elapsedMs = 0;
};

Run sluicectl(const QStringList &args, const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment())
{
    QProcess process;
    process.setProcessEnvironment(env);
    QElapsedTimer clock;
    clock.start();
    process.start(QStringLiteral(SLUICECTL_BINARY), args);
    process.closeWriteChannel();
    if (!process.waitForFinished(30000))
        process.kill();
    Run run;
    run.elapsedMs = clock.elapsed();
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = QString::fromUtf8(process.readAllStandardOutput());
    run.err = QString::fromUtf8(process.readAllStandardError());
    return run;
}

} // namespace

class TestSluicectl : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void pingPrintsVersionAndMode()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_REDIS_URL", "Redis standalone");
        const Run run = sluicectl({QStringLiteral("--url"), url, QStringLiteral("ping")});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains(QLatin1String("Redis 7.")) && run.out.contains(QLatin1String("standalone")),
                 qPrintable(run.out));
        QVERIFY(run.err.isEmpty());
    }

    void pingReportsClusterAndSentinelModes()
    {
        SLUICE_REQUIRE_SERVICE(seeds, "SLUICE_TEST_CLUSTER_SEEDS", "Redis Cluster");
        SLUICE_REQUIRE_SERVICE(sentinel, "SLUICE_TEST_SENTINEL", "Redis Sentinel");
        const Run cluster = sluicectl({QStringLiteral("-u"),
                                       QStringLiteral("redis://") + seeds.section(QLatin1Char(','), 0, 0),
                                       QStringLiteral("ping")});
        QCOMPARE(cluster.exitCode, 0);
        QVERIFY2(cluster.out.trimmed().endsWith(QLatin1String("cluster")), qPrintable(cluster.out));
        const Run sentinelRun = sluicectl({QStringLiteral("-u"), QStringLiteral("redis://") + sentinel,
                                           QStringLiteral("ping")});
        QCOMPARE(sentinelRun.exitCode, 0);
        QVERIFY2(sentinelRun.out.trimmed().endsWith(QLatin1String("sentinel")), qPrintable(sentinelRun.out));
    }

    void pingOverTlsAndUnixSocket()
    {
        SLUICE_REQUIRE_SERVICE(socket, "SLUICE_TEST_REDIS_SOCKET", "Redis standalone (unix socket)");
        const Run unixRun = sluicectl({QStringLiteral("-u"), QStringLiteral("unix://") + socket, QStringLiteral("ping")});
        QCOMPARE(unixRun.exitCode, 0);
        QVERIFY2(unixRun.out.startsWith(QLatin1String("PONG from unix://")), qPrintable(unixRun.out));
    }

    void refusedConnectionFailsFast()
    {
        const Run run = sluicectl({QStringLiteral("--url"), QStringLiteral("redis://127.0.0.1:1"), QStringLiteral("ping")});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QLatin1String("cannot connect to redis://127.0.0.1:1"))
                     && run.err.contains(QLatin1String("refused")),
                 qPrintable(run.err));
        QVERIFY(run.out.isEmpty());
        QVERIFY2(run.elapsedMs < 2000, qPrintable(QString::number(run.elapsedMs)));
    }

    void frozenServerGivesUpAtTimeout()
    {
        sluice::test::RedisProcess server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        server.freeze();
        const Run run = sluicectl({QStringLiteral("--url"), QStringLiteral("redis://127.0.0.1:%1").arg(server.port()),
                                   QStringLiteral("--timeout"), QStringLiteral("500"), QStringLiteral("ping")});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QLatin1String("no answer within 500 ms")), qPrintable(run.err));
    }

    void aclUsersAndSecrets()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_ACL_URL", "Redis with ACL users");
        QString withUser = url;
        withUser.replace(QLatin1String("redis://"), QLatin1String("redis://limiter:limiter-secret@"));
        const Run restricted = sluicectl({QStringLiteral("-u"), withUser, QStringLiteral("ping")});
        QCOMPARE(restricted.exitCode, 0);
        QVERIFY2(restricted.out.contains(QLatin1String("NOPERM")), qPrintable(restricted.out));
        QVERIFY2(!restricted.out.contains(QLatin1String("limiter-secret")), "the password must never be printed");

        QString wrong = url;
        wrong.replace(QLatin1String("redis://"), QLatin1String("redis://admin:not-the-password@"));
        const Run refused = sluicectl({QStringLiteral("-u"), wrong, QStringLiteral("ping")});
        QCOMPARE(refused.exitCode, 3);
        QVERIFY2(refused.err.contains(QLatin1String("WRONGPASS")), qPrintable(refused.err));
        QVERIFY(!refused.err.contains(QLatin1String("not-the-password")));
    }

    void usageErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("no command") << QStringList() << QStringLiteral("no command given");
        QTest::newRow("unknown command") << QStringList{QStringLiteral("pong")} << QStringLiteral("unknown command");
        QTest::newRow("unknown option") << QStringList{QStringLiteral("--frobnicate"), QStringLiteral("ping")}
                                        << QStringLiteral("frobnicate");
        QTest::newRow("bad url") << QStringList{QStringLiteral("--url"), QStringLiteral("http://x"), QStringLiteral("ping")}
                                 << QStringLiteral("unsupported scheme");
        QTest::newRow("bad timeout") << QStringList{QStringLiteral("--timeout"), QStringLiteral("soon"), QStringLiteral("ping")}
                                     << QStringLiteral("--timeout");
        QTest::newRow("extra argument") << QStringList{QStringLiteral("ping"), QStringLiteral("twice")}
                                        << QStringLiteral("no arguments");
        QTest::newRow("missing value") << QStringList{QStringLiteral("ping"), QStringLiteral("--url")}
                                       << QStringLiteral("url");
    }

    void usageErrors()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const Run run = sluicectl(args);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(message), qPrintable(run.err));
        QVERIFY(run.out.isEmpty());
    }

    void helpAndVersion()
    {
        const Run version = sluicectl({QStringLiteral("--version")});
        QCOMPARE(version.exitCode, 0);
        QVERIFY(version.out.startsWith(QLatin1String("sluicectl ")));
        const Run help = sluicectl({QStringLiteral("--help")});
        QCOMPARE(help.exitCode, 0);
        QVERIFY(help.out.contains(QLatin1String("ping")));
        QVERIFY(help.out.contains(QLatin1String("Exit codes")));
    }
};

QTEST_GUILESS_MAIN(TestSluicectl)
#include "tst_sluicectl.moc"
