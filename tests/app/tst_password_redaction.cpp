// SPDX-License-Identifier: GPL-3.0-or-later
// A password typed into a URL never reaches the output of sluicectl or of sluice, however the URL is
// malformed: each one here has a password of its own, and the test looks for it in everything printed.

#include "app/common/exit_codes.h"
#include "support/test_services.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

namespace {

using sluice::app::ExitCannotConnect;
using sluice::app::ExitUsage;

struct Output {
    int exitCode = -1; // -1: still running when stopped
    QString text;      // stdout and stderr
};

Output finish(QProcess &process)
{
    Output output;
    output.exitCode = process.state() == QProcess::NotRunning && process.exitStatus() == QProcess::NormalExit
        ? process.exitCode()
        : -1;
    if (process.state() != QProcess::NotRunning) {
        process.terminate();
        if (!process.waitForFinished(10000))
            process.kill();
    }
    process.waitForFinished(10000);
    output.text = QString::fromUtf8(process.readAllStandardOutput() + process.readAllStandardError());
    return output;
}

Output run(const char *binary, const QStringList &args, int waitMs, const QString &configHome,
           const QString &loggingRules = {})
{
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), configHome); // no saved profiles, nothing written to $HOME
    env.remove(QStringLiteral("REDISCLI_AUTH"));
    env.remove(QStringLiteral("QT_LOGGING_RULES"));
    if (!loggingRules.isEmpty())
        env.insert(QStringLiteral("QT_LOGGING_RULES"), loggingRules);
    process.setProcessEnvironment(env);
    process.start(QString::fromLocal8Bit(binary), args);
    process.closeWriteChannel();
    process.waitForFinished(waitMs);
    return finish(process);
}

// Neither the password as typed nor decoded, in any case (a host is printed in lower case).
void verifyNotShown(const Output &output, const QStringList &secrets)
{
    for (const QString &secret : secrets)
        QVERIFY2(!output.text.contains(secret, Qt::CaseInsensitive),
                 qPrintable(QStringLiteral("\"%1\" shown in: %2").arg(secret, output.text)));
}

} // namespace

class TestPasswordRedaction : public QObject {
    Q_OBJECT

    QTemporaryDir m_configHome;

private Q_SLOTS:
    void malformedUrls_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QStringList>("secrets"); // the password as typed, and decoded where that differs
        QTest::addColumn<int>("exitCode");        // sluicectl's; the GUI refuses the same URLs at exit 2
        // Port 1 refuses at once: a URL that parses fails to connect.
        auto row = [](const char *name, const char *url, QStringList secrets, int exitCode) {
            QTest::newRow(name) << QString::fromUtf8(url) << secrets << exitCode;
        };
        row("two @", "redis://admin:TwoAts77@x@127.0.0.1:1", {QStringLiteral("TwoAts77")}, ExitCannotConnect);
        row("three @", "redis://admin:Three@Ats@88@127.0.0.1:1", {QStringLiteral("Three@Ats")}, ExitCannotConnect);
        row("slash", "redis://admin:Sla/sh61@127.0.0.1:1", {QStringLiteral("Sla/sh61")}, ExitCannotConnect);
        row("question mark", "redis://admin:Ques?tion62@127.0.0.1:1", {QStringLiteral("Ques?tion62")},
            ExitCannotConnect);
        row("hash", "redis://admin:Ha#sh63@127.0.0.1:1", {QStringLiteral("Ha#sh63")}, ExitCannotConnect);
        row("colon", "redis://admin:Co:lon64@127.0.0.1:1", {QStringLiteral("Co:lon64")}, ExitCannotConnect);
        row("space", "redis://admin:Spa ce65@127.0.0.1:1", {QStringLiteral("Spa ce65")}, ExitCannotConnect);
        row("percent-encoded", "redis://admin:Pct%3A%40%2566@127.0.0.1:1",
            {QStringLiteral("Pct%3A%40%2566"), QStringLiteral("Pct:@%66")}, ExitCannotConnect);
        row("bad percent-encoding", "redis://admin:BadPct%zz67@127.0.0.1:1", {QStringLiteral("BadPct%zz67")},
            ExitCannotConnect);
        row("rediss", "rediss://admin:TlsPass68@127.0.0.1:1", {QStringLiteral("TlsPass68")}, ExitCannotConnect);
        row("upper-case scheme, spaces around", "  REDIS://admin:Upper69@127.0.0.1:1/0  ", {QStringLiteral("Upper69")},
            ExitCannotConnect);
        row("sentinel list", "redis-sentinel://admin:SentList70@127.0.0.1:1,127.0.0.1:1#svc",
            {QStringLiteral("SentList70")}, ExitCannotConnect);
        row("credentials inside a sentinel list", "rediss-sentinel://127.0.0.1:1,admin:InList71@127.0.0.1:1#svc",
            {QStringLiteral("InList71")}, ExitCannotConnect);
        row("no scheme", "admin:NoScheme72@127.0.0.1:1", {QStringLiteral("NoScheme72")}, ExitUsage);
        row("one slash", "redis:/admin:OneSlash73@127.0.0.1:1", {QStringLiteral("OneSlash73")}, ExitUsage);
        row("unknown scheme", "http://admin:Http74@127.0.0.1", {QStringLiteral("Http74")}, ExitUsage);
        row("IPv6 without closing bracket", "redis://admin:Ipv6Pw75@[::1:1", {QStringLiteral("Ipv6Pw75")}, ExitUsage);
        row("bad host character", "redis://admin:Caret76@ho^st:1", {QStringLiteral("Caret76")}, ExitUsage);
        row("no host", "redis://admin:NoHost78@", {QStringLiteral("NoHost78")}, ExitUsage);
        row("port out of range", "redis://admin:BigPort79@127.0.0.1:99999", {QStringLiteral("BigPort79")}, ExitUsage);
        row("database not a number", "redis://admin:DbText80@127.0.0.1:1/zero", {QStringLiteral("DbText80")},
            ExitUsage);
        row("password where the port goes", "redis://admin:NoAt81", {QStringLiteral("NoAt81")}, ExitUsage);
        row("legacy password, no host", "redis://:Legacy82", {QStringLiteral("Legacy82")}, ExitUsage);
        row("sentinel without service", "redis-sentinel://admin:NoSvc83@127.0.0.1:1", {QStringLiteral("NoSvc83")},
            ExitUsage);
        row("sentinel password where the port goes", "redis-sentinel://admin:SentPort84#svc",
            {QStringLiteral("SentPort84")}, ExitUsage);
        row("unix with a bad database", "unix://admin:Unix85@/tmp/none.sock?db=x", {QStringLiteral("Unix85")},
            ExitUsage);
        row("issue 21's example", "redis://admin:S3cr3t@x@127.0.0.1:7300/x", {QStringLiteral("S3cr3t")}, ExitUsage);
    }

    void malformedUrls()
    {
        QFETCH(QString, url);
        QFETCH(QStringList, secrets);
        QFETCH(int, exitCode);
        const Output ctl
            = run(SLUICECTL_BINARY, {QStringLiteral("--url"), url, QStringLiteral("ping")}, 30000, m_configHome.path());
        QCOMPARE(ctl.exitCode, exitCode);
        verifyNotShown(ctl, secrets);
        // A URL that parses and holds a password is warned about, as -a is.
        if (exitCode == ExitCannotConnect)
            QVERIFY2(ctl.text.contains(QLatin1String("password given with -u or --url may be seen by other users")),
                     qPrintable(ctl.text));

        // The GUI refuses the same URLs; one it accepts runs on, trying to connect, until it is stopped.
        const Output gui = run(SLUICE_BINARY, {QStringLiteral("--url"), url}, exitCode == ExitUsage ? 30000 : 3000,
                               m_configHome.path());
        QCOMPARE(gui.exitCode, exitCode == ExitUsage ? int(ExitUsage) : -1);
        verifyNotShown(gui, secrets);
        if (exitCode == ExitCannotConnect) // the process list shows it: said, as sluicectl says it
            QVERIFY2(gui.text.contains(QLatin1String("password in the URL may be seen by other users")),
                     qPrintable(gui.text));
    }

    // The dashboard says what it does when QT_LOGGING_RULES asks, and only then; never the password.
    void dashboardLogsWhatQtLoggingRulesAsk()
    {
        SLUICE_REQUIRE_SERVICE(aclUrl, "SLUICE_TEST_ACL_URL", "Redis with ACL users");
        const QString url = QStringLiteral("redis://admin:admin-secret@") + aclUrl.section(QLatin1String("://"), 1);
        const Output told = run(SLUICE_BINARY, {QStringLiteral("--url"), url}, 5000, m_configHome.path(),
                                QStringLiteral("sluice.connection.debug=true"));
        QCOMPARE(told.exitCode, -1); // still running: it was stopped
        QVERIFY2(told.text.contains(QLatin1String("sluice.connection: connecting to redis://admin@")),
                 qPrintable(told.text));
        QVERIFY2(told.text.contains(QLatin1String(": ready")), qPrintable(told.text));
        verifyNotShown(told, {QStringLiteral("admin-secret")});
        const Output quiet = run(SLUICE_BINARY, {QStringLiteral("--url"), url}, 3000, m_configHome.path());
        QVERIFY2(!quiet.text.contains(QLatin1String("sluice.")), qPrintable(quiet.text));
        // A URL alone, as a desktop passes a link it opens with Sluice, is --url.
        const Output link
            = run(SLUICE_BINARY, {url}, 5000, m_configHome.path(), QStringLiteral("sluice.connection.debug=true"));
        QCOMPARE(link.exitCode, -1);
        QVERIFY2(link.text.contains(QLatin1String(": ready")), qPrintable(link.text));
        verifyNotShown(link, {QStringLiteral("admin-secret")});
    }

    // A host given alone is not a URL: user:password@host there is refused without repeating it.
    void credentialsInHostFlag()
    {
        const Output ctl = run(SLUICECTL_BINARY,
                               {QStringLiteral("-h"), QStringLiteral("admin:HostFlag90@127.0.0.1"),
                                QStringLiteral("-p"), QStringLiteral("1"), QStringLiteral("ping")},
                               30000, m_configHome.path());
        QCOMPARE(ctl.exitCode, int(ExitUsage));
        QVERIFY2(ctl.text.contains(QLatin1String("-h takes a host name or address alone")), qPrintable(ctl.text));
        verifyNotShown(ctl, {QStringLiteral("HostFlag90")});
    }
};

QTEST_GUILESS_MAIN(TestPasswordRedaction)
#include "tst_password_redaction.moc"
