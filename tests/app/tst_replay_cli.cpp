// SPDX-License-Identifier: GPL-3.0-or-later
// sluicectl replay and suggest as scripts use them: the JSON fields they may rely on, exit codes,
// standard input (gzip-compressed too), stored policies from a private redis-server, and the
// subjects of hostile logs printed so they can be read back.

#include "model/replay/replay_support.h"
#include "support/redis_process.h"
#include "support/sluicectl_run.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace sluice;
using test::CtlRun;
using test::sluicectl;
using test::writeFile;

namespace {

// Requests from 10.0.0.<n> at `perSecond` a second for `seconds`, the first client sending most, as
// nginx's combined format writes them, from 27/Nov/2026:10:00:00 UTC.
QByteArray combinedLog(int seconds, int perSecond)
{
    QByteArray log;
    for (int s = 0; s < seconds; ++s) {
        const QByteArray when = "27/Nov/2026:10:" + QByteArray::number(s / 60).rightJustified(2, '0') + ':'
            + QByteArray::number(s % 60).rightJustified(2, '0') + " +0000";
        for (int i = 0; i < perSecond; ++i) {
            const int client = i % 2 == 0 ? 1 : 2 + ((s * perSecond + i) / 2) % 40;
            log += "10.0.0." + QByteArray::number(client) + " - - [" + when + "] \"GET /api/items/"
                + QByteArray::number(i) + " HTTP/1.1\" 200 " + QByteArray::number(100 + i) + " \"-\" \"Mozilla/5.0\"\n";
        }
    }
    return log;
}

const QByteArray kCandidates = R"({"policies": [
    {"name": "strict", "algorithm": "token_bucket", "limit": 30, "window_ms": 60000, "burst": 10},
    {"name": "loose", "algorithm": "fixed_window", "limit": 100000, "window_ms": 60000}]})";

QJsonObject jsonOf(const CtlRun &run)
{
    return QJsonDocument::fromJson(run.out.toUtf8()).object();
}

} // namespace

class TestReplayCli : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_log, m_candidates;

    QString path(const char *name) const { return m_dir.filePath(QLatin1String(name)); }

private Q_SLOTS:
    void initTestCase()
    {
        m_log = path("access.log");
        m_candidates = path("candidates.json");
        QVERIFY(writeFile(m_log, combinedLog(600, 10)));
        QVERIFY(writeFile(m_candidates, kCandidates));
    }

    void replayJsonCarriesTheDocumentedFields()
    {
        const CtlRun run = sluicectl(
            {QStringLiteral("replay"), m_log, QStringLiteral("--define"), m_candidates, QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QJsonObject document = jsonOf(run);
        for (const char *field :
             {"lines", "malformed", "requests", "subjects", "first_ms", "last_ms", "peak_resident_bytes", "candidates"})
            QVERIFY2(document.contains(QLatin1String(field)), field);
        QCOMPARE(document[QLatin1String("lines")].toInteger(), qint64(6000));
        QCOMPARE(document[QLatin1String("requests")].toInteger(), qint64(6000));
        QCOMPARE(document[QLatin1String("subjects")].toInteger(), qint64(41));
        QCOMPARE(document[QLatin1String("first_ms")].toInteger(), qint64(1795773600000));
        // What the replay held at most is reported (a process this size holds tens of MB, never a GB).
        const qint64 resident = document[QLatin1String("peak_resident_bytes")].toInteger();
        QVERIFY2(resident > 1'000'000 && resident < 1'000'000'000, qPrintable(QString::number(resident)));
        const QJsonArray candidates = document[QLatin1String("candidates")].toArray();
        QCOMPARE(candidates.size(), 2);
        for (const QJsonValue &value : candidates) {
            const QJsonObject candidate = value.toObject();
            for (const char *field : {"name", "algorithm", "limit", "window_ms", "burst", "rejected", "rejected_share",
                                      "subjects_rejected", "subjects_rejected_share", "top_rejected"})
                QVERIFY2(candidate.contains(QLatin1String(field)), field);
            const double share = candidate[QLatin1String("rejected_share")].toDouble();
            QVERIFY(share >= 0 && share <= 1);
            QCOMPARE(share, candidate[QLatin1String("rejected")].toDouble() / 6000.0);
        }
        // 10.0.0.1 sends 5 a second against 30 a minute with a burst of 10: it is the one rejected.
        const QJsonObject strict = candidates.at(0).toObject();
        QCOMPARE(strict[QLatin1String("name")].toString(), QStringLiteral("strict"));
        QCOMPARE(strict[QLatin1String("subjects_rejected")].toInteger(), qint64(1));
        const QJsonObject top = strict[QLatin1String("top_rejected")].toArray().first().toObject();
        QCOMPARE(top[QLatin1String("subject")].toString(), QStringLiteral("10.0.0.1"));
        QCOMPARE(top[QLatin1String("rejected")].toInteger(), strict[QLatin1String("rejected")].toInteger());
        QCOMPARE(candidates.at(1).toObject()[QLatin1String("rejected")].toInteger(), qint64(0));
    }

    void replayInPlainText()
    {
        const CtlRun run = sluicectl({QStringLiteral("replay"), m_log, QStringLiteral("--define"), m_candidates});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains(QLatin1String("read 6,000 lines (0 malformed, 0 left out)")), qPrintable(run.out));
        QVERIFY2(run.out.contains(QLatin1String("spread evenly")), qPrintable(run.out));
        QVERIFY2(run.out.contains(QLatin1String("strict: most rejected: 10.0.0.1 (")), qPrintable(run.out));
    }

    void suggestJsonCarriesTheDocumentedFields()
    {
        const CtlRun run = sluicectl({QStringLiteral("suggest"), m_log, QStringLiteral("--algorithm"),
                                      QStringLiteral("token_bucket"), QStringLiteral("--window"), QStringLiteral("1m"),
                                      QStringLiteral("--reject-at-most"), QStringLiteral("1%"), QStringLiteral("--of"),
                                      QStringLiteral("subjects"), QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QJsonObject document = jsonOf(run);
        for (const char *field : {"suggested_limit", "target", "of", "curve", "percentiles"})
            QVERIFY2(document.contains(QLatin1String(field)), field);
        QCOMPARE(document[QLatin1String("target")].toDouble(), 0.01);
        QCOMPARE(document[QLatin1String("of")].toString(), QStringLiteral("subjects"));
        // One client in 41 is more than 1%, so 10.0.0.1's 3,000 calls in ten minutes must all pass: a bucket of
        // L tokens refilled at L a minute holds them when L + 10 L >= 3000, from L = 273.
        const qint64 limit = document[QLatin1String("suggested_limit")].toInteger();
        QCOMPARE(limit, qint64(273));
        const QJsonObject percentiles = document[QLatin1String("percentiles")].toObject();
        for (const char *field : {"p50", "p90", "p99", "p99.9", "max"})
            QVERIFY2(percentiles.contains(QLatin1String(field)), field);
        QCOMPARE(percentiles[QLatin1String("max")].toInteger(), qint64(300));
        for (const QJsonValue &point : document[QLatin1String("curve")].toArray()) {
            const double share = point.toObject()[QLatin1String("rejected_share")].toDouble();
            QVERIFY(share >= 0 && share <= 1);
            if (point.toObject()[QLatin1String("limit")].toInteger() < limit)
                QVERIFY(share > 0.01);
        }
    }

    void exitCodes_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("says");
        const QString define = QStringLiteral("--define");
        QTest::newRow("missing log") << QStringList{QStringLiteral("replay"), QStringLiteral("/nonexistent/access.log"),
                                                    define, m_candidates}
                                     << 5 << QStringLiteral("cannot open /nonexistent/access.log");
        QTest::newRow("a directory") << QStringList{QStringLiteral("replay"), m_dir.path(), define, m_candidates} << 5
                                     << QStringLiteral("it is a directory");
        QTest::newRow("nothing parses") << QStringList{QStringLiteral("replay"), m_candidates, define, m_candidates}
                                        << 5 << QStringLiteral("no line of the logs could be replayed");
        QTest::newRow("no candidates") << QStringList{QStringLiteral("replay"), m_log} << 2
                                       << QStringLiteral("--policy NAME or --define FILE");
        QTest::newRow("bad format")
            << QStringList{QStringLiteral("replay"), m_log, define, m_candidates, QStringLiteral("--format"),
                           QStringLiteral("xml")}
            << 2 << QStringLiteral("--format is one of");
        QTest::newRow("unknown field")
            << QStringList{QStringLiteral("replay"), m_log, define, m_candidates, QStringLiteral("--subject"),
                           QStringLiteral("user_id")}
            << 5 << QStringLiteral("no subject field ($user_id");
        QTest::newRow("bad target") << QStringList{QStringLiteral("suggest"),          m_log,
                                                   QStringLiteral("--algorithm"),      QStringLiteral("gcra"),
                                                   QStringLiteral("--window"),         QStringLiteral("1s"),
                                                   QStringLiteral("--reject-at-most"), QStringLiteral("150%")}
                                    << 2 << QStringLiteral("--reject-at-most is a share");
        QTest::newRow("bad window") << QStringList{QStringLiteral("suggest"),          m_log,
                                                   QStringLiteral("--algorithm"),      QStringLiteral("gcra"),
                                                   QStringLiteral("--window"),         QStringLiteral("9 fortnights"),
                                                   QStringLiteral("--reject-at-most"), QStringLiteral("1%")}
                                    << 2 << QStringLiteral("--window is a duration");
    }

    void exitCodes()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, says);
        const CtlRun run = sluicectl(args);
        QVERIFY2(run.exitCode == exitCode, qPrintable(QStringLiteral("%1: %2").arg(run.exitCode).arg(run.err)));
        QVERIFY2(run.err.contains(says), qPrintable(run.err));
        QVERIFY(run.out.isEmpty());
    }

    // A partly malformed log still answers, with the count and the first reasons.
    void partlyMalformed()
    {
        const QString mixed = path("mixed.log");
        QVERIFY(writeFile(mixed, combinedLog(10, 5) + "garbage line\n\x01\x02\x03\n" + combinedLog(1, 1)));
        const CtlRun run = sluicectl(
            {QStringLiteral("replay"), mixed, QStringLiteral("--define"), m_candidates, QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QJsonObject document = jsonOf(run);
        QCOMPARE(document[QLatin1String("malformed")].toInteger(), qint64(2));
        QCOMPARE(document[QLatin1String("requests")].toInteger(), qint64(51));
        const QJsonObject first = document[QLatin1String("malformed_lines")].toArray().first().toObject();
        QCOMPARE(first[QLatin1String("line")].toInteger(), qint64(51));
    }

    // Standard input, compressed: `zcat`-free pipelines from log shippers.
    void standardInputGzipped()
    {
        QProcess process;
        process.start(QStringLiteral(SLUICECTL_BINARY),
                      {QStringLiteral("replay"), QStringLiteral("-"), QStringLiteral("--define"), m_candidates,
                       QStringLiteral("--json")});
        QVERIFY(process.waitForStarted());
        process.write(test::gzipped(combinedLog(60, 10)));
        process.closeWriteChannel();
        QVERIFY(process.waitForFinished(60000));
        QCOMPARE(process.exitCode(), 0);
        const QJsonObject document = QJsonDocument::fromJson(process.readAllStandardOutput()).object();
        QCOMPARE(document[QLatin1String("requests")].toInteger(), qint64(600));
    }

    // Subjects that are not text come out escaped, and the escape reads back to the bytes.
    void hostileSubjectsAreEscaped()
    {
        const QString csv = path("hostile.csv");
        QVERIFY(writeFile(
            csv, QByteArray("time,subject\n") + "1795773600000,\xff\x1b[31mred\n" + "1795773600001,\xff\x1b[31mred\n"));
        const QString tight = path("tight.json");
        QVERIFY(writeFile(tight, R"({"policies": [{"name": "one", "algorithm": "fixed_window", "limit": 1,
                                    "window_ms": 60000}]})"));
        const CtlRun run = sluicectl({QStringLiteral("replay"), csv, QStringLiteral("--define"), tight});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains(QLatin1String("%FF%1B[31mred (1)")), qPrintable(run.out));
        for (const QChar c : run.out)
            QVERIFY2(c.isPrint() || c == QLatin1Char('\n'), qPrintable(QString::number(c.unicode())));
    }

    // Stored policies come from Redis; --define needs none.
    void storedPoliciesFromTheServer()
    {
        test::RedisProcess server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        const QStringList connect{QStringLiteral("-p"), QString::number(server.port())};
        QCOMPARE(sluicectl(connect + QStringList{QStringLiteral("apply"), m_candidates}).exitCode, 0);
        const CtlRun run = sluicectl(connect
                                     + QStringList{QStringLiteral("replay"), m_log, QStringLiteral("--policy"),
                                                   QStringLiteral("loose"), QStringLiteral("--policy"),
                                                   QStringLiteral("strict"), QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QJsonArray candidates = jsonOf(run)[QLatin1String("candidates")].toArray();
        QCOMPARE(candidates.size(), 2);
        QCOMPARE(candidates.at(0).toObject()[QLatin1String("name")].toString(), QStringLiteral("loose"));
        QCOMPARE(candidates.at(1).toObject()[QLatin1String("burst")].toInteger(), qint64(10));
        const CtlRun missing = sluicectl(
            connect
            + QStringList{QStringLiteral("replay"), m_log, QStringLiteral("--policy"), QStringLiteral("Strict")});
        QCOMPARE(missing.exitCode, 5);
        QVERIFY2(missing.err.contains(QLatin1String("no stored policy is named \"Strict\"")), qPrintable(missing.err));
        server.kill();
        QVERIFY(server.waitForExit(5000));
        const CtlRun down = sluicectl(
            connect
            + QStringList{QStringLiteral("replay"), m_log, QStringLiteral("--policy"), QStringLiteral("strict")});
        QCOMPARE(down.exitCode, 3);
        const CtlRun offline = sluicectl(
            connect + QStringList{QStringLiteral("replay"), m_log, QStringLiteral("--define"), m_candidates});
        QCOMPARE(offline.exitCode, 0);
    }

    // "Publish as shadow" from a script: a twin is applied beside its live policy, stored and listed with
    // its shadow_of; a twin whose live policy the store would not hold is refused, and nothing changes.
    void shadowTwinsThroughApply()
    {
        test::RedisProcess server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        const QStringList connect{QStringLiteral("-p"), QString::number(server.port())};
        QCOMPARE(sluicectl(connect + QStringList{QStringLiteral("apply"), m_candidates}).exitCode, 0);
        const QString orphan = path("orphan.json");
        QVERIFY(writeFile(orphan, R"({"policies": [{"name": "web-twin", "algorithm": "gcra", "limit": 5,
                                      "window_ms": 1000, "shadow": true, "shadow_of": "web"}]})"));
        const CtlRun refused = sluicectl(connect + QStringList{QStringLiteral("apply"), orphan});
        QCOMPARE(refused.exitCode, 5);
        QVERIFY2(refused.err.contains(QLatin1String("names \"web\", which is not a policy")), qPrintable(refused.err));
        QVERIFY2(refused.err.contains(QLatin1String("nothing was applied")), qPrintable(refused.err));
        const QString twin = path("twin.json");
        QVERIFY(writeFile(twin, R"({"policies": [{"name": "strict-60", "algorithm": "token_bucket", "limit": 60,
                                    "window_ms": 60000, "shadow": true, "shadow_of": "strict"}]})"));
        const CtlRun applied = sluicectl(connect + QStringList{QStringLiteral("apply"), twin});
        QVERIFY2(applied.exitCode == 0, qPrintable(applied.err));
        const QString exported = path("exported.json");
        QCOMPARE(sluicectl(connect + QStringList{QStringLiteral("export"), exported}).exitCode, 0);
        QFile file(exported);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(file.readAll().contains("\"shadow_of\": \"strict\""));
        // Pruning away the live policy would orphan the twin: refused.
        const CtlRun pruned
            = sluicectl(connect + QStringList{QStringLiteral("apply"), twin, QStringLiteral("--prune")});
        QCOMPARE(pruned.exitCode, 5);
    }
};

QTEST_GUILESS_MAIN(TestReplayCli)
#include "tst_replay_cli.moc"
