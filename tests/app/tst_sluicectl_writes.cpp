// SPDX-License-Identifier: GPL-3.0-or-later
// sluicectl's writes under concurrency and faults: each changes everything it says or nothing, a
// lost answer is reported as a possible change, files are whole or absent, and one damaged
// policy never stops the tool. Every server and proxy here is private to the test.

#include "redis/redis_connection.h"
#include "support/redis_process.h"
#include "support/redis_proxy.h"
#include "support/sluicectl_run.h"
#include "support/sync_command.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <memory>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

using namespace sluice;
using test::CtlRun;
using test::sluicectl;
using test::syncCommand;
using test::writeFile;

namespace {

// Lines of the scripts' sources, which the proxy recognises their commands by.
const QByteArray commitMarker = "Applies a set of policy changes atomically";
const QByteArray publishMarker = "Records a publish of the limiter library";

using Limits = QMap<QString, int>; // policy name -> limit

Limits limits(std::initializer_list<std::pair<const char *, int>> pairs)
{
    Limits map;
    for (const auto &[name, limit] : pairs)
        map.insert(QLatin1String(name), limit);
    return map;
}

// A policy file of token buckets, one per name, each with its limit.
QByteArray policyFile(const Limits &limits)
{
    QJsonArray policies;
    for (auto it = limits.begin(); it != limits.end(); ++it)
        policies.append(QJsonObject{{QStringLiteral("name"), it.key()},
                                    {QStringLiteral("algorithm"), QStringLiteral("token_bucket")},
                                    {QStringLiteral("limit"), it.value()},
                                    {QStringLiteral("window_ms"), 60000}});
    return QJsonDocument(QJsonObject{{QStringLiteral("policies"), policies}}).toJson();
}

// The output a failed test shows.
QByteArray shown(const CtlRun &run)
{
    return QStringLiteral("exit %1\nstdout: %2\nstderr: %3").arg(run.exitCode).arg(run.out, run.err).toUtf8();
}

// Files in a folder other than . and .. (a temporary file left behind shows here).
QStringList filesIn(const QString &folder)
{
    return QDir(folder).entryList(QDir::Files | QDir::Hidden);
}

// RLIMIT_FSIZE in the child, with SIGXFSZ ignored so a write past it fails (EFBIG) instead of
// killing the process: a disk that fills up after `bytes`.
std::function<void()> fileSizeLimit(rlim_t bytes)
{
    return [bytes] {
        const rlimit limit{bytes, bytes};
        ::setrlimit(RLIMIT_FSIZE, &limit);
        ::signal(SIGXFSZ, SIG_IGN);
    };
}

} // namespace

class TestSluicectlWrites : public QObject {
    Q_OBJECT

    test::RedisProcess m_server;
    std::unique_ptr<redis::RedisConnection> m_redis;
    int m_namespaces = 0;

    QStringList base(const QString &ns, quint16 port = 0) const
    {
        return {QStringLiteral("-h"),          QStringLiteral("127.0.0.1"),
                QStringLiteral("-p"),          QString::number(port ? port : m_server.port()),
                QStringLiteral("--namespace"), ns};
    }
    QString freshNamespace(const char *what)
    {
        return QStringLiteral("%1%2").arg(QLatin1String(what)).arg(++m_namespaces);
    }
    redis::RedisReply redis(const QByteArrayList &command) { return syncCommand(*m_redis, command); }

    // name -> limit of every stored policy, read straight from Redis.
    Limits stored(const QString &ns)
    {
        const QByteArray tag = '{' + ns.toUtf8() + '}';
        Limits limits;
        for (const redis::RespValue &name : redis({"SMEMBERS", tag + ":policies"}).value.elements)
            limits.insert(QString::fromUtf8(name.bytes),
                          redis({"HGET", tag + ":policy:" + name.bytes, "limit"}).value.bytes.toInt());
        return limits;
    }
    QString storedText(const QString &ns)
    {
        QStringList pairs;
        const Limits limits = stored(ns);
        for (auto it = limits.begin(); it != limits.end(); ++it)
            pairs << QStringLiteral("%1=%2").arg(it.key()).arg(it.value());
        return pairs.join(QLatin1Char(','));
    }
    qint64 auditLength(const QString &ns) { return redis({"XLEN", '{' + ns.toUtf8() + "}:audit"}).value.integer; }

    std::unique_ptr<QProcess> startCtl(const QStringList &args)
    {
        auto process = std::make_unique<QProcess>();
        process->start(QStringLiteral(SLUICECTL_BINARY), args);
        process->closeWriteChannel();
        return process;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_redis = std::make_unique<redis::RedisConnection>(m_server.options());
        QVERIFY(test::openAndWait(*m_redis));
    }

    void concurrentAppliesChangeAllOrNothing_data()
    {
        QTest::addColumn<bool>("prune");
        // Each run keeps a policy the other changes: without checking kept ones, both would pass
        // and the store would match neither file.
        QTest::newRow("kept policies are checked") << false;
        // Each run creates a policy the other's prune would delete: the set of names is checked.
        QTest::newRow("the set of names is checked") << true;
    }

    void concurrentAppliesChangeAllOrNothing()
    {
        QFETCH(bool, prune);
        test::RedisProxy proxy(m_server.port());
        QVERIFY(proxy.open());
        QTemporaryDir dir;
        const QString baseFile = dir.filePath(QStringLiteral("base.json"));
        const QString fileA = dir.filePath(QStringLiteral("a.json"));
        const QString fileB = dir.filePath(QStringLiteral("b.json"));
        const Limits wantA = prune ? limits({{"x", 10}, {"y", 10}, {"w", 5}}) : limits({{"x", 3}, {"y", 10}});
        const Limits wantB = prune ? limits({{"x", 10}, {"y", 10}, {"v", 7}}) : limits({{"x", 10}, {"y", 2}});
        QVERIFY(writeFile(baseFile, policyFile(limits({{"x", 10}, {"y", 10}}))));
        QVERIFY(writeFile(fileA, policyFile(wantA)));
        QVERIFY(writeFile(fileB, policyFile(wantB)));
        QStringList extra{QStringLiteral("--timeout"), QStringLiteral("20000")};
        if (prune)
            extra << QStringLiteral("--prune");

        for (int round = 0; round < 20; ++round) {
            const QString ns = freshNamespace(prune ? "prune" : "keep");
            QCOMPARE(sluicectl(base(ns) + QStringList{QStringLiteral("apply"), baseFile}).exitCode, 0);
            const qint64 auditBefore = auditLength(ns);
            // Both read the store before either commit reaches the server.
            proxy.holdUntil(commitMarker, 2);
            auto a = startCtl(base(ns, proxy.port()) + QStringList{QStringLiteral("apply"), fileA} + extra);
            auto b = startCtl(base(ns, proxy.port()) + QStringList{QStringLiteral("apply"), fileB} + extra);
            QVERIFY(a->waitForFinished(60000) && b->waitForFinished(60000));
            QCOMPARE(proxy.markedConnections(), 2);
            const int codeA = a->exitCode();
            const int codeB = b->exitCode();
            const QString errA = QString::fromUtf8(a->readAllStandardError());
            const QString errB = QString::fromUtf8(b->readAllStandardError());
            const QByteArray story = QStringLiteral("round %1: A exit %2 (%3), B exit %4 (%5), store %6")
                                         .arg(round)
                                         .arg(codeA)
                                         .arg(errA.trimmed())
                                         .arg(codeB)
                                         .arg(errB.trimmed(), storedText(ns))
                                         .toUtf8();
            QVERIFY2((codeA == 0 && codeB == 6) || (codeA == 6 && codeB == 0), story.constData());
            const bool aWon = codeA == 0;
            QCOMPARE(stored(ns), aWon ? wantA : wantB);
            const QString loser = aWon ? errB : errA;
            QVERIFY2(loser.contains(QLatin1String("someone else saved in between"))
                         && loser.contains(QLatin1String("nothing was applied")),
                     story.constData());
            QVERIFY2(loser.contains(prune ? QLatin1String("was created since the policies were read")
                                          : QLatin1String("expected")),
                     story.constData());
            QCOMPARE(auditLength(ns) - auditBefore, 1); // the winner's one real change
        }
    }

    void lostAnswerIsReportedAsPossiblyApplied()
    {
        test::RedisProxy proxy(m_server.port());
        QVERIFY(proxy.open());
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("p.json"));
        QVERIFY(writeFile(file, policyFile(limits({{"login", 5}}))));
        const QString ns = freshNamespace("lost");
        const QStringList quick{QStringLiteral("--timeout"), QStringLiteral("1500")};

        proxy.dropRepliesAfter(commitMarker);
        const CtlRun applied = sluicectl(base(ns, proxy.port()) + quick + QStringList{QStringLiteral("apply"), file});
        QCOMPARE(proxy.markedConnections(), 1);
        QVERIFY2(applied.exitCode == 9, shown(applied).constData());
        QVERIFY2(applied.err.contains(QLatin1String("the outcome is unknown: it may have been applied"))
                     && applied.err.contains(QLatin1String("sluicectl policies"))
                     && !applied.err.contains(QLatin1String("nothing was applied")),
                 shown(applied).constData());
        QCOMPARE(stored(ns), limits({{"login", 5}})); // it did run

        proxy.dropRepliesAfter(publishMarker);
        const CtlRun published = sluicectl(base(ns, proxy.port()) + quick + QStringList{QStringLiteral("publish")});
        QVERIFY2(published.exitCode == 9, shown(published).constData());
        QVERIFY2(published.err.contains(QLatin1String("sluicectl status")), shown(published).constData());

        // A read that gets no answer in time is a timeout (4): there is no outcome to doubt.
        proxy.dropRepliesAfter("SMEMBERS");
        const CtlRun listed = sluicectl(base(ns, proxy.port()) + quick + QStringList{QStringLiteral("policies")});
        QVERIFY2(listed.exitCode == 4 && listed.err.contains(QLatin1String("did not answer in time")),
                 shown(listed).constData());
    }

    void filesAreWholeOrAbsent()
    {
        const QString ns = freshNamespace("files");
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("p.json"));
        QVERIFY(writeFile(file, policyFile(limits({{"api", 100}, {"login", 5}, {"search", 50}}))));
        QCOMPARE(sluicectl(base(ns) + QStringList{QStringLiteral("apply"), file}).exitCode, 0);

        const QString missing = dir.filePath(QStringLiteral("no/such/folder/export.json"));
        const CtlRun intoMissing = sluicectl(base(ns) + QStringList{QStringLiteral("export"), missing});
        QVERIFY2(intoMissing.exitCode == 1 && intoMissing.err.contains(QLatin1String("cannot write")),
                 shown(intoMissing).constData());
        QVERIFY(!QFile::exists(missing));

        // A device node, a FIFO or a link where the export goes (`sluicectl export /dev/null` as root replaced
        // the system's /dev/null): refused, each left as it was.
        QTemporaryDir planted;
        const QString device = planted.filePath(QStringLiteral("null"));
        const bool root = ::mknod(QFile::encodeName(device).constData(), S_IFCHR | 0666, makedev(1, 3)) == 0;
        const QString fifo = planted.filePath(QStringLiteral("fifo"));
        QVERIFY(::mkfifo(QFile::encodeName(fifo).constData(), 0600) == 0);
        const QString link = planted.filePath(QStringLiteral("link.json"));
        QVERIFY(QFile::link(file, link));
        const auto readFile = [](const QString &path) {
            QFile read(path);
            return read.open(QIODevice::ReadOnly) ? read.readAll() : QByteArray();
        };
        const QByteArray policies = readFile(file);
        for (const QString &target : root ? QStringList{device, fifo, link} : QStringList{fifo, link}) {
            struct stat before { };
            QVERIFY(::lstat(QFile::encodeName(target).constData(), &before) == 0);
            const CtlRun refused = sluicectl(base(ns) + QStringList{QStringLiteral("export"), target});
            QVERIFY2(refused.exitCode == 1 && refused.err.contains(QLatin1String("cannot write"))
                         && (refused.err.contains(QLatin1String("not a regular file"))
                             || refused.err.contains(QLatin1String("symbolic link"))),
                     shown(refused).constData());
            struct stat after { };
            QVERIFY(::lstat(QFile::encodeName(target).constData(), &after) == 0);
            QCOMPARE(after.st_mode, before.st_mode);
            QCOMPARE(after.st_ino, before.st_ino);
        }
        QCOMPARE(readFile(file), policies);
        if (!root)
            qInfo("not root: mknod was refused, so the device case is left to CI (it runs as root)");

        // A disk that fills up while writing: the old backup stays as it was, nothing else appears.
        const QString backups = dir.filePath(QStringLiteral("backups"));
        QVERIFY(QDir().mkpath(backups));
        const QString backup = backups + QStringLiteral("/policies.json");
        QVERIFY(writeFile(backup, "the previous backup"));
        const CtlRun full = sluicectl(base(ns) + QStringList{QStringLiteral("export"), backup},
                                      QProcessEnvironment::systemEnvironment(), fileSizeLimit(64));
        QVERIFY2(full.exitCode == 1 && full.err.contains(QLatin1String("cannot write")), shown(full).constData());
        QFile kept(backup);
        QVERIFY(kept.open(QIODevice::ReadOnly));
        QCOMPARE(kept.readAll(), QByteArray("the previous backup"));
        QCOMPARE(filesIn(backups), QStringList{QStringLiteral("policies.json")});

        // The same on a real full file system, where the test may mount one (CI runs as root).
        const QString tiny = dir.filePath(QStringLiteral("tiny"));
        QVERIFY(QDir().mkpath(tiny));
        if (::mount("tmpfs", tiny.toLocal8Bit().constData(), "tmpfs", 0, "size=4k") == 0) {
            const auto unmount = qScopeGuard([&] { ::umount(tiny.toLocal8Bit().constData()); });
            QFile filler(tiny + QStringLiteral("/filler"));
            QVERIFY(filler.open(QIODevice::WriteOnly | QIODevice::Unbuffered));
            while (filler.write(QByteArray(512, 'x')) == 512) { }
            filler.close();
            const QString onFull = tiny + QStringLiteral("/export.json");
            const CtlRun noSpace = sluicectl(base(ns) + QStringList{QStringLiteral("export"), onFull});
            QVERIFY2(noSpace.exitCode == 1 && noSpace.err.contains(QLatin1String("cannot write")),
                     shown(noSpace).constData());
            QCOMPARE(filesIn(tiny), QStringList{QStringLiteral("filler")});
        } else {
            qInfo("not root: the full tmpfs case was left to CI; the file size limit above stands for it");
        }

        // Test traffic's CSV: the summary still prints, the command fails, no file.
        const QStringList fire{QStringLiteral("fire"),       QStringLiteral("scg_token_bucket:10:20"),
                               QStringLiteral("--rate"),     QStringLiteral("50"),
                               QStringLiteral("--duration"), QStringLiteral("1"),
                               QStringLiteral("--csv")};
        const QString csvMissing = dir.filePath(QStringLiteral("nowhere/run.csv"));
        const CtlRun csvIntoMissing = sluicectl(base(ns) + fire + QStringList{csvMissing});
        QVERIFY2(csvIntoMissing.exitCode == 1 && csvIntoMissing.err.contains(QLatin1String("cannot write")),
                 shown(csvIntoMissing).constData());
        QVERIFY(!QFile::exists(csvMissing));
        const QString csvFull = backups + QStringLiteral("/run.csv");
        const CtlRun csvOnFull = sluicectl(base(ns) + fire + QStringList{csvFull},
                                           QProcessEnvironment::systemEnvironment(), fileSizeLimit(64));
        QVERIFY2(csvOnFull.exitCode == 1, shown(csvOnFull).constData());
        QVERIFY(!QFile::exists(csvFull));
        QCOMPARE(filesIn(backups), QStringList{QStringLiteral("policies.json")});
    }

    // A namespace holds at most 10,000 policies (100,000 made apply block Redis 2.5 s and the library take up to
    // 581 MB of Lua memory): 10,000 are applied and published; one more is refused before anything is written.
    void policiesPerNamespaceAreBounded()
    {
        const QString ns = freshNamespace("many");
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("p.json"));
        Limits most;
        for (int i = 0; i < 10000; ++i)
            most.insert(QStringLiteral("p%1").arg(i, 5, 10, QLatin1Char('0')), 100);
        QVERIFY(writeFile(file, policyFile(most)));
        const CtlRun applied = sluicectl(base(ns) + QStringList{QStringLiteral("apply"), file});
        QVERIFY2(applied.exitCode == 0, shown(applied).constData());
        QVERIFY2(sluicectl(base(ns) + QStringList{QStringLiteral("publish")}).exitCode == 0, "10,000 are published");
        Limits tooMany = most;
        tooMany.insert(QStringLiteral("q"), 100);
        QVERIFY(writeFile(file, policyFile(tooMany)));
        const CtlRun refused = sluicectl(base(ns) + QStringList{QStringLiteral("apply"), file});
        QVERIFY2(refused.exitCode == 5
                     && refused.err.contains(QLatin1String("the namespace would hold 10001 policies; it may hold at "
                                                           "most 10000")),
                 shown(refused).constData());
        redis::RedisConnection redis(m_server.options());
        QVERIFY(test::openAndWait(redis));
        QCOMPARE(test::syncCommand(redis, {"SCARD", "{" + ns.toUtf8() + "}:policies"}).value.integer, 10000);
    }

    void publishRefusesToServeNothingOrDropWhatIsUsed()
    {
        test::RedisProcess server; // restarted here, so not the shared one of this test
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        const QStringList ctl{QStringLiteral("-h"), QStringLiteral("127.0.0.1"), QStringLiteral("-p"),
                              QString::number(server.port())};
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("p.json"));
        QVERIFY(writeFile(file, policyFile(limits({{"api", 100}, {"login", 5}}))));
        QCOMPARE(sluicectl(ctl + QStringList{QStringLiteral("apply"), file}).exitCode, 0);
        QCOMPARE(sluicectl(ctl + QStringList{QStringLiteral("publish")}).exitCode, 0);

        // Dropping a policy its callers used a moment ago.
        QCOMPARE(
            sluicectl(ctl + QStringList{QStringLiteral("acquire"), QStringLiteral("login"), QStringLiteral("alice")})
                .exitCode,
            0);
        QVERIFY(writeFile(file, policyFile(limits({{"api", 100}}))));
        QCOMPARE(sluicectl(ctl + QStringList{QStringLiteral("apply"), file, QStringLiteral("--prune")}).exitCode, 0);
        // At once: the guard's own reading sees the totals moved since the one before (here none: since the load).
        const CtlRun dropping = sluicectl(ctl + QStringList{QStringLiteral("publish")});
        QVERIFY2(dropping.exitCode == 8 && dropping.err.contains(QLatin1String("would drop login"))
                     && dropping.err.contains(QLatin1String("--allow-drop"))
                     && dropping.err.contains(QLatin1String("nothing was published")),
                 shown(dropping).constData());
        const CtlRun stillServed
            = sluicectl(ctl + QStringList{QStringLiteral("acquire"), QStringLiteral("login"), QStringLiteral("bob")});
        QVERIFY2(stillServed.exitCode == 0, shown(stillServed).constData());
        const CtlRun dropped = sluicectl(ctl + QStringList{QStringLiteral("publish"), QStringLiteral("--allow-drop")});
        QVERIFY2(dropped.exitCode == 0, shown(dropped).constData());

        // A restart without persistence: the store and the library are gone.
        QVERIFY(server.restart());
        const CtlRun status = sluicectl(ctl + QStringList{QStringLiteral("status")});
        QVERIFY2(status.exitCode == 0 && status.out.contains(QLatin1String("never published"))
                     && status.err.contains(QLatin1String("lost with the data")),
                 shown(status).constData());
        const CtlRun empty = sluicectl(ctl + QStringList{QStringLiteral("publish")});
        QVERIFY2(empty.exitCode == 8 && empty.err.contains(QLatin1String("stores no policies"))
                     && empty.err.contains(QLatin1String("apply your last export"))
                     && empty.err.contains(QLatin1String("--allow-empty")),
                 shown(empty).constData());
        redis::RedisConnection restarted(server.options());
        QVERIFY(test::openAndWait(restarted));
        QVERIFY(syncCommand(restarted, {"FUNCTION", "LIST"}).value.elements.isEmpty());
        const CtlRun allowed = sluicectl(ctl + QStringList{QStringLiteral("publish"), QStringLiteral("--allow-empty")});
        QVERIFY2(allowed.exitCode == 0, shown(allowed).constData());
        QCOMPARE(syncCommand(restarted, {"FUNCTION", "LIST"}).value.elements.size(), 1);

        // Data flushed while the functions stayed: status says what was lost and how to restore it.
        QVERIFY(writeFile(file, policyFile(limits({{"api", 100}}))));
        QCOMPARE(sluicectl(ctl + QStringList{QStringLiteral("apply"), file}).exitCode, 0);
        QCOMPARE(sluicectl(ctl + QStringList{QStringLiteral("publish")}).exitCode, 0);
        QVERIFY(syncCommand(restarted, {"FLUSHALL"}).ok());
        const CtlRun lost = sluicectl(ctl + QStringList{QStringLiteral("status"), QStringLiteral("--json")});
        QVERIFY2(lost.exitCode == 7, shown(lost).constData());
        QCOMPARE(QJsonDocument::fromJson(lost.out.toUtf8())[QLatin1String("history")].toString(),
                 QStringLiteral("data_lost"));
        const CtlRun lostText = sluicectl(ctl + QStringList{QStringLiteral("status")});
        QVERIFY2(lostText.out.contains(QLatin1String("are gone")) && lostText.out.contains(QLatin1String("apply")),
                 shown(lostText).constData());
    }

    void damagedPolicyIsListedAndRepairable()
    {
        const QString ns = freshNamespace("damaged");
        const QByteArray tag = '{' + ns.toUtf8() + '}';
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("p.json"));
        QVERIFY(writeFile(file, policyFile(limits({{"bad", 5}, {"good", 100}}))));
        QCOMPARE(sluicectl(base(ns) + QStringList{QStringLiteral("apply"), file}).exitCode, 0);
        QCOMPARE(sluicectl(base(ns) + QStringList{QStringLiteral("publish")}).exitCode, 0);
        QVERIFY(redis({"HSET", tag + ":policy:bad", "limit", "abc"}).ok());
        QVERIFY(redis({"SADD", tag + ":policies", "ghost"}).ok());        // listed, no hash
        QVERIFY(redis({"SET", tag + ":policy:text", "not a hash"}).ok()); // listed, wrong type
        QVERIFY(redis({"SADD", tag + ":policies", "text"}).ok());
        QVERIFY(redis({"HSET", tag + ":policy:orphan", "version", "3", "limit", "1"}).ok()); // a hash, not listed

        const CtlRun listed = sluicectl(base(ns) + QStringList{QStringLiteral("policies")});
        QVERIFY2(listed.exitCode == 0, shown(listed).constData());
        for (const char *name : {"bad", "ghost", "text"})
            QVERIFY2(listed.out.contains(QRegularExpression(QStringLiteral("%1 +DAMAGED").arg(QLatin1String(name))))
                         && listed.err.contains(QStringLiteral("\"%1\" is damaged").arg(QLatin1String(name))),
                     shown(listed).constData());
        QVERIFY2(listed.out.contains(QLatin1String("not a whole number")), shown(listed).constData());
        QVERIFY2(listed.out.contains(QRegularExpression(QStringLiteral("good +token_bucket"))),
                 shown(listed).constData());
        const CtlRun json = sluicectl(base(ns) + QStringList{QStringLiteral("policies"), QStringLiteral("--json")});
        int damagedInJson = 0;
        for (const QJsonValue &policy : QJsonDocument::fromJson(json.out.toUtf8()).array())
            damagedInJson += policy[QLatin1String("damaged")].isString();
        QCOMPARE(damagedInJson, 3);

        // Every other command keeps working on the healthy ones.
        const QString exported = dir.filePath(QStringLiteral("exported.json"));
        const CtlRun exportRun = sluicectl(base(ns) + QStringList{QStringLiteral("export"), exported});
        QVERIFY2(exportRun.exitCode == 0 && exportRun.out.contains(QLatin1String("exported 1 policies")),
                 shown(exportRun).constData());
        for (const QStringList &command :
             {QStringList{QStringLiteral("status")}, QStringList{QStringLiteral("history")},
              QStringList{QStringLiteral("publish"), QStringLiteral("--dry-run")}}) {
            const CtlRun run = sluicectl(base(ns) + command);
            QVERIFY2(run.exitCode == 0, (command.join(QLatin1Char(' ')).toUtf8() + ": " + shown(run)).constData());
        }

        // apply of a good file repairs what it defines, deletes what it prunes, and takes over the orphan.
        QVERIFY(writeFile(file, policyFile(limits({{"bad", 6}, {"good", 100}, {"orphan", 9}, {"text", 7}}))));
        const CtlRun repaired
            = sluicectl(base(ns) + QStringList{QStringLiteral("apply"), file, QStringLiteral("--prune")});
        QVERIFY2(repaired.exitCode == 0 && repaired.out.contains(QLatin1String("repair   bad"))
                     && repaired.out.contains(QLatin1String("repair   text"))
                     && repaired.out.contains(QLatin1String("create   orphan"))
                     && repaired.out.contains(QLatin1String("delete   ghost")),
                 shown(repaired).constData());
        QCOMPARE(stored(ns), limits({{"bad", 6}, {"good", 100}, {"orphan", 9}, {"text", 7}}));
        QCOMPARE(redis({"HGET", tag + ":policy:orphan", "version"}).value.bytes, QByteArray("4"));
        const CtlRun healthy = sluicectl(base(ns) + QStringList{QStringLiteral("policies")});
        QVERIFY2(healthy.exitCode == 0 && !healthy.out.contains(QLatin1String("DAMAGED")) && healthy.err.isEmpty(),
                 shown(healthy).constData());
        const CtlRun history = sluicectl(base(ns) + QStringList{QStringLiteral("history"), QStringLiteral("bad")});
        QVERIFY2(history.exitCode == 0 && history.out.contains(QLatin1String("repaired a damaged definition")),
                 shown(history).constData());
    }

    void scriptsCanTellOutcomesApart()
    {
        const QString ns = freshNamespace("codes");
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("p.json"));

        const CtlRun never = sluicectl(base(ns) + QStringList{QStringLiteral("status")});
        QVERIFY2(never.exitCode == 0 && never.out.contains(QLatin1String("never published"))
                     && !never.out.contains(QLatin1String("differ")),
                 shown(never).constData());

        QVERIFY(writeFile(file, policyFile(limits({{"login", 1}}))));
        QCOMPARE(sluicectl(base(ns) + QStringList{QStringLiteral("apply"), file}).exitCode, 0);
        QCOMPARE(sluicectl(base(ns) + QStringList{QStringLiteral("publish")}).exitCode, 0);
        const QStringList acquire{QStringLiteral("acquire"), QStringLiteral("login"), QStringLiteral("carol")};
        QCOMPARE(sluicectl(base(ns) + acquire).exitCode, 0);
        const CtlRun rejected = sluicectl(base(ns) + acquire);
        QVERIFY2(rejected.exitCode == 11 && rejected.out.contains(QRegularExpression(QStringLiteral("allowed +false"))),
                 shown(rejected).constData());

        const CtlRun unknown = sluicectl(base(ns) + QStringList{QStringLiteral("keys"), QStringLiteral("nope")});
        QVERIFY2(unknown.exitCode == 5 && unknown.err.contains(QLatin1String("no policy \"nope\"")),
                 shown(unknown).constData());

        // Dry run: each field's old and new value, in text and JSON, and exit 10 while changes are pending.
        QVERIFY(writeFile(file, policyFile(limits({{"login", 20}, {"search", 50}}))));
        const QStringList dryRun{QStringLiteral("apply"), file, QStringLiteral("--dry-run")};
        const CtlRun pending = sluicectl(base(ns) + dryRun);
        QVERIFY2(pending.exitCode == 10 && pending.out.contains(QLatin1String("update   login"))
                     && pending.out.contains(QRegularExpression(QStringLiteral("Limit +1 -> 20")))
                     && pending.out.contains(QLatin1String("create   search")),
                 shown(pending).constData());
        const CtlRun pendingJson = sluicectl(base(ns) + dryRun + QStringList{QStringLiteral("--json")});
        QCOMPARE(pendingJson.exitCode, 10);
        const QJsonObject plan = QJsonDocument::fromJson(pendingJson.out.toUtf8()).object();
        QVERIFY(plan[QLatin1String("pending")].toBool());
        const QJsonArray changes = plan[QLatin1String("changes")].toArray();
        QCOMPARE(changes.size(), 2);
        QCOMPARE(changes.at(1)[QLatin1String("action")].toString(), QStringLiteral("update"));
        const QJsonArray fields = changes.at(1)[QLatin1String("fields")].toArray();
        QCOMPARE(fields.size(), 2); // the burst follows the limit
        QCOMPARE(fields.at(1)[QLatin1String("field")].toString(), QStringLiteral("burst"));
        QCOMPARE(fields.at(0).toObject(),
                 (QJsonObject{{QStringLiteral("field"), QStringLiteral("limit")},
                              {QStringLiteral("old"), QStringLiteral("1")},
                              {QStringLiteral("new"), QStringLiteral("20")}}));
        QCOMPARE(stored(ns), limits({{"login", 1}})); // a dry run writes nothing

        QCOMPARE(sluicectl(base(ns) + QStringList{QStringLiteral("apply"), file}).exitCode, 0);
        const CtlRun upToDate = sluicectl(base(ns) + dryRun + QStringList{QStringLiteral("--json")});
        QCOMPARE(upToDate.exitCode, 0);
        QVERIFY(!QJsonDocument::fromJson(upToDate.out.toUtf8())[QLatin1String("pending")].toBool());
    }
};

QTEST_GUILESS_MAIN(TestSluicectlWrites)
#include "tst_sluicectl_writes.moc"
