// SPDX-License-Identifier: GPL-3.0-or-later
// Reading access logs: every time form, the four formats and their fields, several logs merged in
// time order, gzip, and bad input of every kind answered with a reason and bounded memory.

#include "model/format/subject_text.h"
#include "model/replay/log_format.h"
#include "model/replay/log_time.h"
#include "replay_support.h"
#include "support/limiter_support.h"

#include <QDateTime>
#include <QFile>
#include <QProcess>
#include <QTest>

#include <sys/stat.h>

using namespace sluice;
using model::LineVerdict;
using model::LogFormatKind;
using model::LogSpec;

namespace {

qint64 utcMs(int year, int month, int day, int hour, int minute, int second, int ms = 0)
{
    return QDateTime(QDate(year, month, day), QTime(hour, minute, second, ms), Qt::UTC).toMSecsSinceEpoch();
}

// The peak resident memory of this process, in MiB.
qint64 peakResidentMiB()
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : status.readAll().split('\n'))
        if (line.startsWith("VmHWM:"))
            return line.mid(6).trimmed().split(' ').value(0).toLongLong() / 1024;
    return -1;
}

// One line through a parser made for `spec`, the line itself standing for the first line.
LineVerdict parseOne(const LogSpec &spec, const QByteArray &line, model::ParsedLine *parsed, QString *problem,
                     const QByteArray &first = {})
{
    const auto parser = model::LogParser::create(spec, first.isEmpty() ? line : first, problem);
    if (!parser)
        return LineVerdict::Malformed;
    return parser->parse(line, parsed, problem);
}

} // namespace

class TestLogFormats : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void timesInEveryForm_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<qint64>("ms");
        QTest::addColumn<bool>("wholeSecond");
        const qint64 base = utcMs(2000, 10, 10, 20, 55, 36);
        QTest::newRow("time_local, -0700") << QByteArray("10/Oct/2000:13:55:36 -0700") << base << true;
        QTest::newRow("time_local, +0000, bracketed") << QByteArray("[10/Oct/2000:20:55:36 +0000]") << base << true;
        QTest::newRow("time_local, +0530") << QByteArray("11/Oct/2000:02:25:36 +0530") << base << true;
        QTest::newRow("time_local, fraction") << QByteArray("10/Oct/2000:20:55:36.250 +0000") << base + 250 << false;
        QTest::newRow("iso8601 +hh:mm") << QByteArray("2000-10-10T22:55:36+02:00") << base << true;
        QTest::newRow("iso8601 Z, fraction") << QByteArray("2000-10-10T20:55:36.5Z") << base + 500 << false;
        QTest::newRow("iso8601 +hhmm") << QByteArray("2000-10-10T13:55:36-0700") << base << true;
        QTest::newRow("iso8601 +hh, space") << QByteArray("2000-10-10 21:55:36+01") << base << true;
        QTest::newRow("iso8601 microseconds") << QByteArray("2000-10-10T20:55:36.123456Z") << base + 123 << false;
        QTest::newRow("msec") << QByteArray("971211336.042") << base + 42 << false;
        QTest::newRow("epoch seconds") << QByteArray("971211336") << base << true;
        QTest::newRow("epoch ms") << QByteArray("971211336042") << base + 42 << false;
        QTest::newRow("leap day") << QByteArray("29/Feb/2024:00:00:00 +0000") << utcMs(2024, 2, 29, 0, 0, 0) << true;
    }

    void timesInEveryForm()
    {
        QFETCH(QByteArray, text);
        QFETCH(qint64, ms);
        QFETCH(bool, wholeSecond);
        QString problem;
        const auto time = model::parseLogTime(text, &problem);
        QVERIFY2(time, qPrintable(problem));
        QCOMPARE(time->ms, ms);
        QCOMPARE(time->wholeSecond, wholeSecond);
    }

    void timesThatAreNot_data()
    {
        QTest::addColumn<QByteArray>("text");
        for (const char *text :
             {"", "-", "yesterday", "32/Oct/2000:13:55:36 -0700", "10/Okt/2000:13:55:36 -0700", "10/Oct/2000:13:55:36",
              "10/Oct/2000:25:55:36 +0000", "2023-02-29T00:00:00Z", "2000-10-10T20:55:36", "2000-10-10T20:55:36+2400",
              "12345678901234567890", "1.2.3", "\xff\xfe"})
            QTest::newRow(text) << QByteArray(text);
    }

    void timesThatAreNot()
    {
        QFETCH(QByteArray, text);
        QString problem;
        QVERIFY(!model::parseLogTime(text, &problem));
        QVERIFY(!problem.isEmpty());
    }

    void combinedFromNginxAndApache()
    {
        LogSpec spec;
        model::ParsedLine parsed;
        QString problem;
        const QByteArray nginx = "203.0.113.9 - alice [10/Oct/2000:13:55:36 -0700] \"GET /a?b=1 HTTP/1.1\" 200 2326 "
                                 "\"http://example.com/\" \"Mozilla/5.0 (X11; Linux) \\x22quoted\\x22\"";
        QCOMPARE(parseOne(spec, nginx, &parsed, &problem), LineVerdict::Parsed);
        QCOMPARE(parsed.subject, QByteArray("203.0.113.9"));
        QCOMPARE(parsed.time.ms, utcMs(2000, 10, 10, 20, 55, 36));
        QCOMPARE(parsed.cost, qint64(1));
        const QByteArray apache = "2001:db8::1 identd - [10/Oct/2000:13:55:36 -0700] \"POST /login HTTP/1.0\" 401 -"
                                  " \"-\" \"curl/8.0\"";
        QCOMPARE(parseOne(spec, apache, &parsed, &problem), LineVerdict::Parsed);
        QCOMPARE(parsed.subject, QByteArray("2001:db8::1"));
        spec.fields.subject = QStringLiteral("$remote_user");
        QCOMPARE(parseOne(spec, nginx, &parsed, &problem), LineVerdict::Parsed);
        QCOMPARE(parsed.subject, QByteArray("alice"));
        QCOMPARE(parseOne(spec, apache, &parsed, &problem), LineVerdict::Malformed); // "-": nobody
        QVERIFY2(problem.contains(QLatin1String("no subject")), qPrintable(problem));
    }

    void customNginxFormatWithMsecAndForwardedFor()
    {
        LogSpec spec;
        spec.format = LogFormatKind::Nginx;
        spec.nginxDefinition = QStringLiteral("$remote_addr [$time_local] \"$request\" $status $bytes_sent "
                                              "\"$http_x_forwarded_for\" ${msec} rt=$request_time");
        spec.fields.subject = QStringLiteral("http_x_forwarded_for");
        spec.fields.cost = QStringLiteral("bytes_sent");
        spec.fields.routeFilter = QRegularExpression(QStringLiteral("^POST /api/"));
        model::ParsedLine parsed;
        QString problem;
        const QByteArray line = "10.0.0.1 [10/Oct/2000:13:55:36 -0700] \"POST /api/x HTTP/1.1\" 200 512 "
                                "\"198.51.100.7, 10.0.0.2\" 971211336.042 rt=0.003";
        QCOMPARE(parseOne(spec, line, &parsed, &problem), LineVerdict::Parsed);
        QCOMPARE(parsed.subject, QByteArray("198.51.100.7"));
        QCOMPARE(parsed.time.ms, utcMs(2000, 10, 10, 20, 55, 36, 42)); // $msec wins over $time_local
        QVERIFY(!parsed.time.wholeSecond);
        QCOMPARE(parsed.cost, qint64(512));
        QByteArray other = line;
        other.replace("POST /api/x", "GET /health");
        QCOMPARE(parseOne(spec, other, &parsed, &problem), LineVerdict::Skipped);
        QByteArray empty = line;
        empty.replace(" 512 ", " 0 ");
        QCOMPARE(parseOne(spec, empty, &parsed, &problem), LineVerdict::Skipped); // nothing to count
        QByteArray huge = line;
        huge.replace(" 512 ", " 99999999999 ");
        QCOMPARE(parseOne(spec, huge, &parsed, &problem), LineVerdict::Malformed);
        QVERIFY2(problem.contains(QLatin1String("cost")), qPrintable(problem));
        QByteArray cut = line.left(40);
        QCOMPARE(parseOne(spec, cut, &parsed, &problem), LineVerdict::Malformed);
        QVERIFY2(problem.contains(QLatin1String("ends before")), qPrintable(problem));
    }

    void definitionsThatCannotBeRead_data()
    {
        QTest::addColumn<QString>("definition");
        QTest::addColumn<QString>("subject");
        QTest::addColumn<QString>("complaint");
        QTest::newRow("no such field") << QStringLiteral("$remote_addr [$time_local]") << QStringLiteral("user_id")
                                       << QStringLiteral("no subject field ($user_id");
        QTest::newRow("no time") << QStringLiteral("$remote_addr $status") << QString()
                                 << QStringLiteral("no time field");
        QTest::newRow("side by side") << QStringLiteral("$remote_addr$time_local") << QString()
                                      << QStringLiteral("right after another variable");
        QTest::newRow("lone dollar") << QStringLiteral("$remote_addr $ [$time_local]") << QString()
                                     << QStringLiteral("starts no variable name");
    }

    void definitionsThatCannotBeRead()
    {
        QFETCH(QString, definition);
        QFETCH(QString, subject);
        QFETCH(QString, complaint);
        LogSpec spec;
        spec.format = LogFormatKind::Nginx;
        spec.nginxDefinition = definition;
        spec.fields.subject = subject;
        QString problem;
        QVERIFY(!model::LogParser::create(spec, "x", &problem));
        QVERIFY2(problem.contains(complaint), qPrintable(problem));
    }

    void jsonLinesByPath()
    {
        LogSpec spec;
        spec.fields.subject = QStringLiteral("request.headers.x-forwarded-for");
        spec.fields.time = QStringLiteral("start_time");
        spec.fields.cost = QStringLiteral("usage.tokens");
        model::ParsedLine parsed;
        QString problem;
        const QByteArray line
            = R"({"start_time":"2000-10-10T20:55:36.042Z","request":{"headers":)"
              R"({"x-forwarded-for":"198.51.100.7, 10.0.0.2"},"path":"/v1/chat"},"usage":{"tokens":1234}})";
        QCOMPARE(parseOne(spec, line, &parsed, &problem), LineVerdict::Parsed);
        QCOMPARE(parsed.subject, QByteArray("198.51.100.7"));
        QCOMPARE(parsed.time.ms, utcMs(2000, 10, 10, 20, 55, 36, 42));
        QCOMPARE(parsed.cost, qint64(1234));
        spec.fields.time = QStringLiteral("epoch");
        spec.fields.subject = QStringLiteral("user.id");
        spec.fields.cost.clear();
        QCOMPARE(parseOne(spec, R"({"epoch":971211336.5,"user":{"id":42}})", &parsed, &problem), LineVerdict::Parsed);
        QCOMPARE(parsed.subject, QByteArray("42"));
        QCOMPARE(parsed.time.ms, utcMs(2000, 10, 10, 20, 55, 36, 500));
        QCOMPARE(parseOne(spec, R"({"epoch":971211336,"user":{}})", &parsed, &problem, "{"), LineVerdict::Malformed);
        QVERIFY2(problem.contains(QLatin1String("user.id")), qPrintable(problem));
        QCOMPARE(parseOne(spec, R"({"epoch":97121)", &parsed, &problem, "{"), LineVerdict::Malformed);
        QVERIFY2(problem.contains(QLatin1String("not JSON")), qPrintable(problem));
        QCOMPARE(parseOne(spec, R"([1,2])", &parsed, &problem, "{"), LineVerdict::Malformed);
    }

    void csvWithItsHeader()
    {
        LogSpec spec;
        model::ParsedLine parsed;
        QString problem;
        const QByteArray header = "time,subject,cost";
        QCOMPARE(parseOne(spec, header, &parsed, &problem, header), LineVerdict::Skipped);
        spec.fields.cost = QStringLiteral("cost");
        QCOMPARE(parseOne(spec, "2000-10-10T20:55:36Z,\"a, \"\"quoted\"\" key\",7", &parsed, &problem, header),
                 LineVerdict::Parsed);
        QCOMPARE(parsed.subject, QByteArray("a, \"quoted\" key"));
        QCOMPARE(parsed.cost, qint64(7));
        QCOMPARE(parseOne(spec, "971211336042,k", &parsed, &problem, header), LineVerdict::Malformed);
        QVERIFY2(problem.contains(QLatin1String("columns")), qPrintable(problem));
        QCOMPARE(parseOne(spec, "971211336042,\"open,1", &parsed, &problem, header), LineVerdict::Malformed);
        spec.fields.subject = QStringLiteral("user");
        QVERIFY(!model::LogParser::create(spec, header, &problem));
        QVERIFY2(problem.contains(QLatin1String("no \"user\" column")), qPrintable(problem));
    }

    void subjectsThatAreNotUtf8StayBytes()
    {
        const QByteArray subject("caf\xc3\xa9 \xff\x01%", 9);
        const QString text = model::subjectText(subject);
        QCOMPARE(text, QStringLiteral("caf\u00e9%20%FF%01%25"));
        QCOMPARE(model::subjectFromText(text), subject);
        for (const QChar c : text)
            QVERIFY(c.isPrint());
    }

    // Lines spread over their second, logs merged in time order, out-of-order lines put back within
    // the window and counted as malformed beyond it.
    void logsMergedInTimeOrder()
    {
        QTemporaryDir dir;
        const auto line = [](int second, const char *who) {
            return QByteArray(who) + " - - [10/Oct/2000:13:55:" + QByteArray::number(second).rightJustified(2, '0')
                + " -0700] \"GET / HTTP/1.1\" 200 1 \"-\" \"t\"\n";
        };
        const QString older = test::writeLog(dir, QStringLiteral("access.log.1"),
                                             line(1, "a") + line(1, "b") + line(1, "c") + line(1, "d") + line(3, "e"));
        const QString newer = test::writeLog(dir, QStringLiteral("access.log"),
                                             line(2, "f") + line(4, "g") + line(2, "h") + line(9, "i"));
        test::ReplayRun run;
        QString problem;
        const model::Policy policy = test::makePolicy(QStringLiteral("p"), model::Algorithm::FixedWindow, 100, 1000);
        QVERIFY2(test::replayLogs({newer, older}, LogSpec(), {policy}, &run, &problem), qPrintable(problem));
        QByteArrayList order;
        QVector<qint64> times;
        for (const test::ReplayedCall &call : run.calls) {
            order << run.subjects.subject(call.arrival.subject);
            times << call.arrival.ms - utcMs(2000, 10, 10, 20, 55, 0);
        }
        QCOMPARE(order, (QByteArrayList{"a", "b", "c", "d", "f", "h", "e", "g", "i"}));
        QCOMPARE(times, (QVector<qint64>{1000, 1250, 1500, 1750, 2000, 2500, 3000, 4000, 9000}));
        QVERIFY(run.stats.secondsSpread);

        // A window of 1 s: "h" (2 s after "g" in its file) comes too late.
        model::SubjectTable subjects;
        model::LogReader strict(LogSpec(), 1000, &subjects);
        QVERIFY(!strict.open({newer, older}));
        model::Arrival arrival;
        int read = 0;
        while (strict.next(&arrival))
            ++read;
        QCOMPARE(read, 8);
        QCOMPARE(strict.stats().malformed, qint64(1));
        QVERIFY2(strict.stats().problems.first().reason.contains(QLatin1String("reorder window")),
                 qPrintable(strict.stats().problems.first().reason));
        QCOMPARE(strict.stats().problems.first().line, qint64(3));
    }

    void gzipWholeAndCutShort()
    {
        QTemporaryDir dir;
        QByteArray text = "time,subject\n";
        for (int i = 0; i < 20000; ++i)
            text += QByteArray::number(971211336000LL + i) + ",s" + QByteArray::number(i % 97) + '\n';
        const QByteArray compressed = test::gzipped(text);
        test::ReplayRun whole;
        QString problem;
        const model::Policy policy = test::makePolicy(QStringLiteral("p"), model::Algorithm::TokenBucket, 10, 1000);
        QVERIFY2(test::replayLogs({test::writeLog(dir, QStringLiteral("a.log.2.gz"), compressed)}, LogSpec(), {policy},
                                  &whole, &problem),
                 qPrintable(problem));
        QCOMPARE(whole.stats.requests, qint64(20000));
        QCOMPARE(whole.stats.malformed, qint64(0));
        test::ReplayRun cut;
        QVERIFY2(
            test::replayLogs({test::writeLog(dir, QStringLiteral("cut.gz"), compressed.left(compressed.size() / 2))},
                             LogSpec(), {policy}, &cut, &problem),
            qPrintable(problem));
        QVERIFY(cut.stats.requests > 1000 && cut.stats.requests < 20000);
        QVERIFY(cut.stats.malformed >= 1);
        QVERIFY2(cut.stats.problems.last().reason.contains(QLatin1String("cut short")),
                 qPrintable(cut.stats.problems.last().reason));
    }

    // Binary garbage, an empty file, a directory, a missing file, a line of 1 GB: a reason each, and
    // memory that does not follow the line.
    void badInput()
    {
        QTemporaryDir dir;
        const model::Policy policy = test::makePolicy(QStringLiteral("p"), model::Algorithm::TokenBucket, 10, 1000);
        QString problem;
        {
            test::ReplayRun run;
            QByteArray garbage(4096, '\0');
            for (int i = 0; i < garbage.size(); ++i)
                garbage[i] = char((i * 7919) % 256);
            QVERIFY(test::replayLogs({test::writeLog(dir, QStringLiteral("garbage"), garbage)}, LogSpec(), {policy},
                                     &run, &problem));
            QCOMPARE(run.stats.requests, qint64(0));
            QVERIFY(run.stats.malformed > 0);
        }
        {
            test::ReplayRun run;
            QVERIFY(test::replayLogs({test::writeLog(dir, QStringLiteral("empty"), {})}, LogSpec(), {policy}, &run,
                                     &problem));
            QCOMPARE(run.stats.lines, qint64(0));
        }
        {
            // A device that never ends a line: reported, and the log given up after 4 GiB.
            test::ReplayRun run;
            QVERIFY(test::replayLogs({QStringLiteral("/dev/zero")}, LogSpec(), {policy}, &run, &problem));
            QCOMPARE(run.stats.requests, qint64(0));
            QVERIFY2(run.stats.problems.last().reason.contains(QLatin1String("past 4 GiB")),
                     qPrintable(run.stats.problems.last().reason));
        }
        {
            // A FIFO is read as its writer writes, like standard input (one nobody has opened to write reads as
            // empty rather than block the replay).
            const QByteArray fifo = QFile::encodeName(dir.filePath(QStringLiteral("fifo")));
            QCOMPARE(::mkfifo(fifo.constData(), 0600), 0);
            QProcess writer;
            writer.start(QStringLiteral("sh"),
                         {QStringLiteral("-c"), QStringLiteral("printf 'time,subject\\n971211336000,a\\n' > \"$0\""),
                          QFile::decodeName(fifo)});
            QVERIFY(writer.waitForStarted());
            // Until the writer has opened its end, the FIFO reads as empty and nothing is taken from it.
            qint64 requests = 0;
            QVERIFY(QTest::qWaitFor(
                [&] {
                test::ReplayRun run;
                requests = test::replayLogs({QFile::decodeName(fifo)}, LogSpec(), {policy}, &run, &problem)
                    ? run.stats.requests
                    : -1;
                return requests != 0;
                },
                10000));
            QVERIFY(writer.waitForFinished(10000));
            QCOMPARE(requests, qint64(1));
        }
        for (const QString &path : {dir.path(), dir.filePath(QStringLiteral("missing"))}) {
            test::ReplayRun run;
            QVERIFY(!test::replayLogs({path}, LogSpec(), {policy}, &run, &problem));
            QVERIFY2(problem.startsWith(QLatin1String("cannot ")), qPrintable(problem));
        }
        {
            const QString path = dir.filePath(QStringLiteral("huge-line"));
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("time,subject\n971211336000,");
            QVERIFY(file.resize(file.size() + (qint64(1) << 30))); // a sparse gigabyte of NULs
            QVERIFY(file.seek(file.size()));
            file.write("\n971211336001,after\n");
            file.close();
            const qint64 before = peakResidentMiB();
            test::ReplayRun run;
            QVERIFY2(test::replayLogs({path}, LogSpec(), {policy}, &run, &problem), qPrintable(problem));
            const qint64 after = peakResidentMiB();
            qInfo("a 1 GiB line: peak resident memory %lld MiB before, %lld MiB after", before, after);
            QCOMPARE(run.stats.requests, qint64(1));
            QCOMPARE(run.stats.malformed, qint64(1));
            QVERIFY2(run.stats.problems.first().reason.contains(QLatin1String("longer than 65536 bytes")),
                     qPrintable(run.stats.problems.first().reason));
            QVERIFY2(after - before < 64, qPrintable(QString::number(after - before)));
        }
    }

    // Past the subject limit the replay stops with the reason instead of growing.
    void tooManySubjects()
    {
        QTemporaryDir dir;
        QByteArray text = "time,subject\n";
        for (int i = 0; i < 5000; ++i)
            text += QByteArray::number(971211336000LL + i) + ",s" + QByteArray::number(i) + '\n';
        model::SubjectTable subjects;
        subjects.setCapacity(1000);
        model::LogReader reader(LogSpec(), 60000, &subjects);
        QVERIFY(!reader.open({test::writeLog(dir, QStringLiteral("many.csv"), text)}));
        model::Arrival arrival;
        while (reader.next(&arrival)) { }
        QVERIFY(reader.failure());
        QVERIFY2(reader.failure()->message.contains(QLatin1String("more than 1000 distinct subjects")),
                 qPrintable(reader.failure()->message));
        QCOMPARE(subjects.size(), quint32(1000));
    }
};

QTEST_GUILESS_MAIN(TestLogFormats)
#include "tst_log_formats.moc"
