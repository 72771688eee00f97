// SPDX-License-Identifier: GPL-3.0-or-later
// One Redis shared by several namespaces and databases, as sluicectl's users run it: each publishes
// a library of its own, in any order, and keeps exact decisions; a publish never replaces a library
// it did not publish unless told to, and status names every library's owner. A private server.

#include "model/limiter/library_owner.h"
#include "redis/redis_connection.h"
#include "support/redis_process.h"
#include "support/sluicectl_run.h"
#include "support/sync_command.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace sluice;
using test::CtlRun;
using test::sluicectl;
using test::syncCommand;

namespace {

struct Tenant {
    QString ns;
    int database;
    int limit; // of its one policy, "api": a token bucket of `limit` per hour, so each tenant's counts differ
};

QByteArray shown(const CtlRun &run)
{
    return QStringLiteral("exit %1\nout: %2\nerr: %3").arg(run.exitCode).arg(run.out, run.err).toUtf8();
}

QByteArray policyFile(int limit)
{
    return QStringLiteral(R"({"policies": [{"name": "api", "algorithm": "token_bucket", "limit": %1,
                              "window_ms": 3600000}]})")
        .arg(limit)
        .toUtf8();
}

} // namespace

class TestSharedServer : public QObject {
    Q_OBJECT

    test::RedisProcess m_server;
    QTemporaryDir m_dir;

    CtlRun ctl(const Tenant &tenant, const QStringList &args)
    {
        return sluicectl(QStringList{QStringLiteral("-p"), QString::number(m_server.port()), QStringLiteral("-n"),
                                     QString::number(tenant.database), QStringLiteral("--namespace"), tenant.ns}
                         + args);
    }

    // One decision for `subject` through the tenant's own functions, as its services make it; the
    // remaining count, or -1 when the call failed.
    qint64 remainingAfterAcquire(const Tenant &tenant, const QByteArray &subject)
    {
        const CtlRun run = ctl(
            tenant,
            {QStringLiteral("acquire"), QStringLiteral("api"), QString::fromLatin1(subject), QStringLiteral("--json")});
        if (run.exitCode != 0)
            return -1;
        return QJsonDocument::fromJson(run.out.toUtf8()).object().value(QStringLiteral("remaining")).toInteger(-1);
    }

    void applyAndPublish(const Tenant &tenant)
    {
        const QString file = m_dir.filePath(tenant.ns + QString::number(tenant.database) + QStringLiteral(".json"));
        QVERIFY(test::writeFile(file, policyFile(tenant.limit)));
        const CtlRun applied = ctl(tenant, {QStringLiteral("apply"), file});
        QVERIFY2(applied.exitCode == 0, shown(applied).constData());
        const CtlRun published = ctl(tenant, {QStringLiteral("publish")});
        QVERIFY2(published.exitCode == 0, shown(published).constData());
    }

    redis::RedisReply onServer(const QByteArrayList &command)
    {
        redis::RedisConnection connection(m_server.options());
        if (!test::openAndWait(connection))
            return {};
        return syncCommand(connection, command);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        QVERIFY(m_dir.isValid());
    }

    void init()
    {
        QVERIFY(onServer({"FUNCTION", "FLUSH"}).ok());
        QVERIFY(onServer({"FLUSHALL"}).ok());
    }

    void namespacesAndDatabasesPublishInAnyOrder_data()
    {
        QTest::addColumn<bool>("reversed");
        QTest::newRow("default namespace first") << false;
        QTest::newRow("default namespace last") << true;
    }

    void namespacesAndDatabasesPublishInAnyOrder()
    {
        QFETCH(bool, reversed);
        QVector<Tenant> tenants{{QStringLiteral("sluice"), 0, 3},
                                {QStringLiteral("teamb"), 0, 4},
                                {QStringLiteral("sluice"), 1, 5},
                                {QStringLiteral("team.c-d_e"), 2, 6}};
        if (reversed)
            std::reverse(tenants.begin(), tenants.end());
        // Each publish leaves every tenant published before it deciding exactly: one call each
        // round, so after round r a tenant that joined at round j has limit - (r - j + 1) left.
        for (qsizetype round = 0; round < tenants.size(); ++round) {
            applyAndPublish(tenants.at(round));
            for (qsizetype joined = 0; joined <= round; ++joined) {
                const Tenant &tenant = tenants.at(joined);
                QCOMPARE(remainingAfterAcquire(tenant, "alice"), qint64(tenant.limit - (round - joined + 1)));
            }
        }
        // The default namespace keeps the functions its services always called.
        QVERIFY(onServer({"FCALL_RO", "sluice_version", "0"}).ok());

        // Status names the owner of every library on the server, from any tenant.
        const CtlRun status = ctl(tenants.first(), {QStringLiteral("status"), QStringLiteral("--json")});
        QVERIFY2(status.exitCode == 0, shown(status).constData());
        const QJsonArray nodes
            = QJsonDocument::fromJson(status.out.toUtf8()).object().value(QStringLiteral("nodes")).toArray();
        QCOMPARE(nodes.size(), 1);
        QStringList owners;
        for (const QJsonValue &library : nodes.first().toObject().value(QStringLiteral("libraries")).toArray()) {
            const QJsonObject owner = library.toObject().value(QStringLiteral("owner")).toObject();
            owners << QStringLiteral("%1=%2/%3")
                          .arg(library.toObject().value(QStringLiteral("name")).toString(),
                               owner.value(QStringLiteral("namespace")).toString())
                          .arg(owner.value(QStringLiteral("database")).toInt());
        }
        owners.sort();
        QCOMPARE(owners,
                 (QStringList{QStringLiteral("sluice=sluice/0"), QStringLiteral("sluice_sluice_db1=sluice/1"),
                              QStringLiteral("sluice_team_pc_md__e_db2=team.c-d_e/2"),
                              QStringLiteral("sluice_teamb=teamb/0")}));
        const CtlRun text = ctl({QStringLiteral("teamb"), 0, 0}, {QStringLiteral("status")});
        QVERIFY2(
            text.exitCode == 0 && text.out.contains(QLatin1String("services call sluice_teamb_acquire"))
                && text.out.contains(QLatin1String("library sluice_sluice_db1: namespace \"sluice\" in database 1")),
            shown(text).constData());
    }

    void publishingOverAnotherOwnersLibraryChangesNothing_data()
    {
        QTest::addColumn<QByteArray>("library");
        QTest::addColumn<QString>("named");
        QTest::newRow("not a Sluice library")
            << QByteArray("#!lua name=sluice\nredis.register_function('hello', function() return 'mine' end)")
            << QStringLiteral("is not a Sluice library");
        // What a Sluice from before per-namespace libraries published for namespace teamb: the one
        // library named sluice, its version reply naming the namespace it serves.
        QTest::newRow("another namespace's, from before")
            << QByteArray("#!lua name=sluice\nredis.register_function{function_name = 'sluice_version', flags = "
                          "{'no-writes'}, callback = function() return {3, 'abc', '0.1.0', 1, 'teamb'} end}")
            << QStringLiteral("serves namespace \"teamb\" in database 0 (version 3)");
    }

    void publishingOverAnotherOwnersLibraryChangesNothing()
    {
        QFETCH(QByteArray, library);
        QFETCH(QString, named);
        QVERIFY(onServer({"FUNCTION", "LOAD", library}).ok());
        const Tenant tenant{QStringLiteral("sluice"), 0, 3};
        const QString file = m_dir.filePath(QStringLiteral("takeover.json"));
        QVERIFY(test::writeFile(file, policyFile(tenant.limit)));
        QCOMPARE(ctl(tenant, {QStringLiteral("apply"), file}).exitCode, 0);
        const QByteArray before = onServer({"FUNCTION", "DUMP"}).value.bytes;

        const CtlRun refused = ctl(tenant, {QStringLiteral("publish")});
        QVERIFY2(refused.exitCode == 8 && refused.err.contains(named)
                     && refused.err.contains(QLatin1String("--take-over"))
                     && refused.err.contains(QLatin1String("nothing was published")),
                 shown(refused).constData());
        QCOMPARE(onServer({"FUNCTION", "DUMP"}).value.bytes, before);
        QCOMPARE(onServer({"EXISTS", "{sluice}:library"}).value.integer, 0);
        const CtlRun foreign = ctl(tenant, {QStringLiteral("status")});
        QVERIFY2(foreign.out.contains(QLatin1String("foreign")) && foreign.out.contains(named),
                 shown(foreign).constData());

        const CtlRun takenOver = ctl(tenant, {QStringLiteral("publish"), QStringLiteral("--take-over")});
        QVERIFY2(takenOver.exitCode == 0, shown(takenOver).constData());
        QCOMPARE(remainingAfterAcquire(tenant, "alice"), 2);
    }
};

QTEST_GUILESS_MAIN(TestSharedServer)
#include "tst_shared_server.moc"
