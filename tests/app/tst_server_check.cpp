// SPDX-License-Identifier: GPL-3.0-or-later
// Servers Sluice cannot use are refused as the connection is made, saying what they are, and Valkey
// is named as Valkey. Debian 12 ships Redis 7.0 alone, so a stub speaking RESP plays Redis 6.2 and
// Valkey (their INFO server lines as those servers print them); sluicectl, the connection test and
// the server monitor ask it.

#include "model/deploy/deployment_probe.h"
#include "model/monitor/server_monitor.h"
#include "support/resp_stub_server.h"
#include "support/sluicectl_run.h"

#include <QTest>

#include <optional>

using namespace sluice;
using test::RespStubServer;

namespace {

const QByteArray redis6Refusal = "Sluice needs Redis 7 or later (functions); this server is 6.2.14";

// A server that answers the handshake and INFO server with these lines; anything else is an
// unknown command, as functions are to Redis 6.
QHash<QByteArray, QByteArray> serverAnswering(const QByteArrayList &infoLines)
{
    return {{"PING", "+PONG\r\n"},
            {"CLIENT", "+OK\r\n"},
            {"CLUSTER", "-ERR This instance has cluster support disabled\r\n"},
            {"CONFIG", "*2\r\n$4\r\nsave\r\n$0\r\n\r\n"},
            {"INFO", RespStubServer::infoReply(infoLines)}};
}

const QByteArrayList redis6{"redis_version:6.2.14", "redis_mode:standalone", "os:Linux"};
// Valkey 8 keeps redis_version at the Redis it began from and names itself in server_name.
const QByteArrayList valkey8{"redis_version:7.2.4", "server_name:valkey", "valkey_version:8.0.1",
                             "server_mode:standalone"};

QStringList at(const RespStubServer &server, std::initializer_list<const char *> command)
{
    QStringList args{QStringLiteral("-p"), QString::number(server.port()), QStringLiteral("--timeout"),
                     QStringLiteral("5000")};
    for (const char *word : command)
        args << QString::fromUtf8(word);
    return args;
}

} // namespace

class TestServerCheck : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void sluicectlRefusesRedisBefore7_data()
    {
        QTest::addColumn<QStringList>("command");
        QTest::newRow("ping") << QStringList{QStringLiteral("ping")};
        QTest::newRow("policies") << QStringList{QStringLiteral("policies")};
        QTest::newRow("publish") << QStringList{QStringLiteral("publish")};
        QTest::newRow("acquire") << QStringList{QStringLiteral("acquire"), QStringLiteral("login"),
                                                QStringLiteral("alice")};
        QTest::newRow("status") << QStringList{QStringLiteral("status"), QStringLiteral("--json")};
    }

    void sluicectlRefusesRedisBefore7()
    {
        QFETCH(QStringList, command);
        RespStubServer server(serverAnswering(redis6));
        QVERIFY(server.open());
        const test::CtlRun run = test::sluicectl(at(server, {}) + command);
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QString::fromUtf8(redis6Refusal)), qPrintable(run.err));
        QVERIFY2(run.out.isEmpty(), qPrintable(run.out));
        // Refused in the handshake, before anything of the command reached the server.
        QCOMPARE(server.received("INFO"), 1);
        for (const char *name : {"FCALL", "FCALL_RO", "FUNCTION", "HGETALL", "SMEMBERS", "EVAL", "EVALSHA", "SCAN"})
            QCOMPARE(server.received(name), 0);
    }

    void sluicectlNamesValkey()
    {
        RespStubServer server(serverAnswering(valkey8));
        QVERIFY(server.open());
        const test::CtlRun run = test::sluicectl(at(server, {"ping"}));
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.out.trimmed(),
                 QStringLiteral("PONG from redis://127.0.0.1:%1: Valkey 8.0.1, standalone").arg(server.port()));
        // Valkey 7.2 still says redis_mode.
        RespStubServer older(serverAnswering(
            {"redis_version:7.2.4", "server_name:valkey", "valkey_version:7.2.5", "redis_mode:standalone"}));
        QVERIFY(older.open());
        QCOMPARE(test::sluicectl(at(older, {"ping"})).out.trimmed(),
                 QStringLiteral("PONG from redis://127.0.0.1:%1: Valkey 7.2.5, standalone").arg(older.port()));
    }

    void theDashboardSaysWhyItCannotUseTheServer()
    {
        RespStubServer server(serverAnswering(redis6));
        QVERIFY(server.open());
        model::ConnectionProfile profile;
        profile.options.host = QStringLiteral("127.0.0.1");
        profile.options.port = server.port();
        // The connection manager's "Test connection".
        model::ConnectionTest connectionTest(profile, {});
        std::optional<model::DeploymentProbe> tested;
        connect(&connectionTest, &model::ConnectionTest::finished, this,
                [&tested](const model::DeploymentProbe &probe) { tested = probe; });
        connectionTest.start();
        QTRY_VERIFY_WITH_TIMEOUT(tested.has_value(), 10000);
        const model::DeploymentProbe probe = *tested;
        QVERIFY(!probe.ok());
        QVERIFY2(probe.problem().contains(QString::fromUtf8(redis6Refusal)), qPrintable(probe.problem()));
        // The main window's monitor: failed, with the reason, not a server shown as usable.
        redis::RedisClient client(profile.options);
        model::ServerMonitor monitor(&client, QStringLiteral("stub"), 200);
        monitor.start();
        QTRY_COMPARE_WITH_TIMEOUT(monitor.health(), model::ServerMonitor::Health::Failed, 10000);
        QVERIFY2(monitor.problem().contains(QString::fromUtf8(redis6Refusal)), qPrintable(monitor.problem()));
    }
};

QTEST_GUILESS_MAIN(TestServerCheck)
#include "tst_server_check.moc"
