// SPDX-License-Identifier: GPL-3.0-or-later
// sluicectl's commands run in this process (the sluice_ctl library), beside the binary: the same output and
// exit code for the same command line, commands one after another in one process (none ends it), and a failure
// reported to the caller as its code.

#include "app/ctl/ctl_runner.h"
#include "support/sluicectl_run.h"
#include "support/test_services.h"

#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

using namespace sluice;

namespace {

struct InProcess {
    int exitCode = -1;
    QString out;
    QString err;
};

InProcess runHere(const QStringList &args)
{
    InProcess run;
    QTextStream out(&run.out);
    QTextStream err(&run.err);
    run.exitCode = app::runSluicectl(QStringList{QStringLiteral("sluicectl")} + args, out, err);
    return run;
}

} // namespace

class TestCtlInProcess : public QObject {
    Q_OBJECT

    // The command line in this process and through the binary: the same code, output and errors.
    static void sameAsTheBinary(const QStringList &args, int expectedCode)
    {
        const InProcess here = runHere(args);
        const test::CtlRun binary = test::sluicectl(args);
        QCOMPARE(binary.exitCode, expectedCode);
        QCOMPARE(here.exitCode, binary.exitCode);
        QCOMPARE(here.out, binary.out);
        QCOMPARE(here.err, binary.err);
    }

private Q_SLOTS:
    void offlineCommandsMatchTheBinary()
    {
        sameAsTheBinary({QStringLiteral("--version")}, 0);
        sameAsTheBinary({QStringLiteral("help")}, 0);
        sameAsTheBinary({QStringLiteral("help"), QStringLiteral("apply")}, 0);
        sameAsTheBinary(
            {QStringLiteral("acl"), QStringLiteral("service"), QStringLiteral("--namespace"), QStringLiteral("teamb")},
            0);
        sameAsTheBinary({QStringLiteral("no-such-command")}, 2);
        sameAsTheBinary({QStringLiteral("apply")}, 2);
    }

    void commandsOnAServerMatchTheBinaryOneAfterAnother()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_REDIS_URL", "Redis standalone");
        const QString ns = QStringLiteral("inproc-") + QUuid::createUuid().toString(QUuid::Id128).left(12);
        const QStringList base{QStringLiteral("-u"), url, QStringLiteral("--namespace"), ns};
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("policies.json"));
        QVERIFY(test::writeFile(file, R"({"policies": [{"name": "api", "algorithm": "token_bucket", "limit": 100,
                                           "window_ms": 60000, "burst": 150}]})"));
        // Several commands in one process, each with its own code: none ends the process.
        sameAsTheBinary(base + QStringList{QStringLiteral("apply"), file, QStringLiteral("--dry-run")}, 10);
        const InProcess applied = runHere(base + QStringList{QStringLiteral("apply"), file});
        QCOMPARE(applied.exitCode, 0);
        QVERIFY2(applied.out.contains(QLatin1String("applied: 1 created")), qPrintable(applied.out));
        sameAsTheBinary(base + QStringList{QStringLiteral("policies")}, 0);
        sameAsTheBinary(base + QStringList{QStringLiteral("export")}, 0);
        sameAsTheBinary(base + QStringList{QStringLiteral("apply"), file, QStringLiteral("--dry-run")}, 0);
    }

    void aFailureComesBackAsItsCode()
    {
        // Nothing listens on port 1: cannot connect (3), reported to the caller, which goes on.
        const QStringList args{QStringLiteral("-u"), QStringLiteral("redis://127.0.0.1:1"), QStringLiteral("ping")};
        const InProcess refused = runHere(args);
        QCOMPARE(refused.exitCode, 3);
        QVERIFY2(refused.err.startsWith(QLatin1String("sluicectl: ping: cannot connect to redis://127.0.0.1:1")),
                 qPrintable(refused.err));
        QCOMPARE(runHere(args).exitCode, 3);
        QCOMPARE(runHere({QStringLiteral("--version")}).exitCode, 0);
    }
};

QTEST_GUILESS_MAIN(TestCtlInProcess)
#include "tst_ctl_in_process.moc"
