// SPDX-License-Identifier: GPL-3.0-or-later
// Policy-scale benchmark: how the cost of a namespace's policies grows, at 10, 100, 1,000 and 10,000
// (the documented maximum, policy_limits::maxPoliciesPerNamespace) on a private Redis, each through the
// real sluicectl. Per size: `apply` of all of them (wall time, and the longest Redis was blocked by one
// command: SLOWLOG at threshold 0), `publish` (wall time, and FUNCTION LOAD's time in Redis), the library's
// code and the Lua memory it takes (used_memory_vm_functions, outside maxmemory), and `apply` of one
// changed policy (wall, longest block), and one exporter scrape (`sluicectl metrics`: wall time, Redis time,
// bytes and series). Then the largest library a namespace may have: 10,000 policies and 100,000 overrides whose
// long subjects bring it to its size bound (policy_limits::maxLibraryBytes): FUNCTION LOAD's time and its Lua
// memory. With an argument, also writes DIR/policies.dat for tests/bench/scale_bench.sh's plots. Prints its own
// run time. Exits non-zero only when it cannot measure.

#include "model/limiter/library_owner.h"
#include "model/limiter/limiter_library.h"
#include "model/policy/policy.h"
#include "redis/info_reply.h"
#include "support/bench_support.h"
#include "support/sluicectl_run.h"
#include "support/sync_command.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <algorithm>

using namespace sluice;
using test::die;
using test::out;

namespace {

const QString kNamespace = QStringLiteral("scale");

QByteArray policyFile(int count, qint64 firstLimit)
{
    QJsonArray policies;
    for (int i = 0; i < count; ++i)
        policies.append(
            QJsonObject{{QStringLiteral("name"), QStringLiteral("policy-%1").arg(i, 5, 10, QLatin1Char('0'))},
                        {QStringLiteral("algorithm"), QStringLiteral("token_bucket")},
                        {QStringLiteral("limit"), i == 0 ? firstLimit : 100},
                        {QStringLiteral("window_ms"), 60000}});
    return QJsonDocument(QJsonObject{{QStringLiteral("policies"), policies}}).toJson(QJsonDocument::Compact);
}

qint64 infoField(redis::RedisClient &client, const QByteArray &section, const char *field)
{
    const QHash<QString, QString> info = redis::parseInfo(test::mustRun(client, {"INFO", section}).bytes);
    bool ok = false;
    const qint64 value = info.value(QLatin1String(field)).toLongLong(&ok);
    if (!ok)
        die(QStringLiteral("INFO %1 has no %2").arg(QString::fromLatin1(section), QLatin1String(field)));
    return value;
}

// The longest one command ran since the last SLOWLOG RESET (every command is logged at threshold 0).
qint64 longestBlockUs(redis::RedisClient &client)
{
    qint64 longest = 0;
    for (const redis::RespValue &entry : test::mustRun(client, {"SLOWLOG", "GET", "-1"}).elements)
        longest = std::max(longest, entry.elements.value(2).integer);
    return longest;
}

test::CtlRun ctl(const redis::ConnectionOptions &server, const QStringList &args, qint64 *wallMs)
{
    const test::CtlRun run
        = test::sluicectl(QStringList{QStringLiteral("-p"), QString::number(server.port), QStringLiteral("--namespace"),
                                      kNamespace, QStringLiteral("--timeout"), QStringLiteral("30000")}
                          + args);
    if (run.exitCode != 0)
        die(QStringLiteral("sluicectl %1: exit %2: %3")
                .arg(args.join(QLatin1Char(' ')))
                .arg(run.exitCode)
                .arg(run.err));
    *wallMs = run.elapsedMs;
    return run;
}

QString dataDir; // where policies.dat goes; empty: nowhere

void measureSizes(test::RedisProcess &server)
{
    redis::RedisClient client(server.options());
    if (!test::openAndWait(client))
        die(QStringLiteral("cannot reach the private server"));
    test::mustRun(client, {"CONFIG", "SET", "slowlog-log-slower-than", "0"});
    test::mustRun(client, {"CONFIG", "SET", "slowlog-max-len", "100000"});
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("policies.json"));
    QFile data(dataDir.isEmpty() ? QString() : dataDir + QStringLiteral("/policies.dat"));
    if (!dataDir.isEmpty() && !data.open(QIODevice::WriteOnly | QIODevice::Truncate))
        die(QStringLiteral("cannot write %1").arg(data.fileName()));
    data.write(
        "# policies apply_ms block_ms publish_ms load_ms lua_mb apply_one_ms one_block_ms scrape_ms scrape_redis_ms "
        "scrape_kb series\n");
    out() << QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8 %9 %10 %11 %12 %13\n")
                 .arg(QStringLiteral("policies"), 8)
                 .arg(QStringLiteral("apply ms"), 9)
                 .arg(QStringLiteral("longest block ms"), 17)
                 .arg(QStringLiteral("publish ms"), 11)
                 .arg(QStringLiteral("FUNCTION LOAD ms"), 17)
                 .arg(QStringLiteral("code MB"), 8)
                 .arg(QStringLiteral("Lua MB"), 7)
                 .arg(QStringLiteral("apply-one ms"), 13)
                 .arg(QStringLiteral("its block ms"), 13)
                 .arg(QStringLiteral("scrape ms"), 10)
                 .arg(QStringLiteral("its Redis ms"), 13)
                 .arg(QStringLiteral("scrape KB"), 10)
                 .arg(QStringLiteral("series"), 7);
    for (const int count : {10, 100, 1000, model::policy_limits::maxPoliciesPerNamespace}) {
        test::mustRun(client, {"FLUSHALL"});
        test::mustRun(client, {"FUNCTION", "FLUSH"});
        const qint64 luaBefore = infoField(client, "memory", "used_memory_vm_functions");
        if (!test::writeFile(file, policyFile(count, 100)))
            die(QStringLiteral("cannot write %1").arg(file));
        qint64 applyMs = 0, publishMs = 0, oneMs = 0;
        test::mustRun(client, {"SLOWLOG", "RESET"});
        ctl(server.options(), {QStringLiteral("apply"), file}, &applyMs);
        const qint64 applyBlockUs = longestBlockUs(client);
        test::mustRun(client, {"CONFIG", "RESETSTAT"});
        ctl(server.options(), {QStringLiteral("publish")}, &publishMs);
        const qint64 loadUs
            = test::commandMicroseconds(test::mustRun(client, {"INFO", "commandstats"}).bytes).value("function|load");
        const qint64 luaBytes = infoField(client, "memory", "used_memory_vm_functions") - luaBefore;
        const QByteArrayList libraries = [&] {
            QByteArrayList names;
            for (const redis::RespValue &library : test::mustRun(client, {"FUNCTION", "LIST", "WITHCODE"}).elements)
                if (const redis::RespValue *code = library.field("library_code"))
                    names << code->bytes;
            return names;
        }();
        const double codeMb = libraries.isEmpty() ? 0 : double(libraries.first().size()) / (1024 * 1024);
        if (!test::writeFile(file, policyFile(count, 101)))
            die(QStringLiteral("cannot write %1").arg(file));
        test::mustRun(client, {"SLOWLOG", "RESET"});
        ctl(server.options(), {QStringLiteral("apply"), file}, &oneMs);
        const qint64 oneBlockUs = longestBlockUs(client);
        // One exporter scrape, as Prometheus would take it (--top 0: the policies' own series).
        qint64 scrapeMs = 0;
        test::mustRun(client, {"CONFIG", "RESETSTAT"});
        const QString exposition = ctl(server.options(), {QStringLiteral("metrics")}, &scrapeMs).out;
        qint64 scrapeRedisUs = 0;
        const QHash<QByteArray, qint64> spent
            = test::commandMicroseconds(test::mustRun(client, {"INFO", "commandstats"}).bytes);
        for (auto it = spent.cbegin(); it != spent.cend(); ++it)
            if (it.key() != "info" && it.key() != "config|resetstat")
                scrapeRedisUs += it.value();
        const QStringList lines = exposition.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        const auto series = std::count_if(lines.cbegin(), lines.cend(),
                                          [](const QString &line) { return !line.startsWith(QLatin1Char('#')); });
        const double scrapeKb = double(exposition.toUtf8().size()) / 1024;
        out() << QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8 %9 %10 %11 %12 %13\n")
                     .arg(count, 8)
                     .arg(applyMs, 9)
                     .arg(double(applyBlockUs) / 1000, 17, 'f', 1)
                     .arg(publishMs, 11)
                     .arg(double(loadUs) / 1000, 17, 'f', 1)
                     .arg(codeMb, 8, 'f', 2)
                     .arg(double(luaBytes) / (1024 * 1024), 7, 'f', 1)
                     .arg(oneMs, 13)
                     .arg(double(oneBlockUs) / 1000, 13, 'f', 1)
                     .arg(scrapeMs, 10)
                     .arg(double(scrapeRedisUs) / 1000, 13, 'f', 1)
                     .arg(scrapeKb, 10, 'f', 1)
                     .arg(series, 7);
        out().flush();
        data.write(QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8 %9 %10 %11 %12\n")
                       .arg(count)
                       .arg(applyMs)
                       .arg(double(applyBlockUs) / 1000, 0, 'f', 1)
                       .arg(publishMs)
                       .arg(double(loadUs) / 1000, 0, 'f', 1)
                       .arg(double(luaBytes) / (1024 * 1024), 0, 'f', 2)
                       .arg(oneMs)
                       .arg(double(oneBlockUs) / 1000, 0, 'f', 1)
                       .arg(scrapeMs)
                       .arg(double(scrapeRedisUs) / 1000, 0, 'f', 1)
                       .arg(scrapeKb, 0, 'f', 1)
                       .arg(series)
                       .toUtf8());
    }
    test::mustRun(client, {"CONFIG", "SET", "slowlog-log-slower-than", "10000"});
}

// The most a namespace may hold, within the library's bound: 10,000 policies, 10 of them with 10,000
// overrides each (the namespace's 100,000), their subjects as long as keeps the library within the bound.
model::LimiterLibrary largestLibrary()
{
    const model::LibraryOwner owner{kNamespace, 0};
    for (int subjectBytes = 200; subjectBytes > 20; subjectBytes -= 4) {
        QVector<model::Policy> policies;
        for (int p = 0; p < model::policy_limits::maxPoliciesPerNamespace; ++p) {
            model::Policy policy;
            policy.name = QStringLiteral("tier-%1").arg(p);
            policy.algorithm = model::Algorithm::TokenBucket;
            policy.limit = 100;
            policy.windowMs = 60000;
            for (int o = 0; o < (p < 10 ? 10000 : 0); ++o) {
                QByteArray subject = "customer-" + QByteArray::number(p) + '-' + QByteArray::number(o) + '-';
                subject.append(subjectBytes - subject.size(), 'x');
                policy.overrides.append({subject, false, model::SubjectOverride::Kind::Limits, 1000 + o, 0});
            }
            policies.append(policy);
        }
        model::LimiterLibrary library = model::LimiterLibrary::build(policies, {}, owner, 1);
        if (library.source.size() <= model::policy_limits::maxLibraryBytes)
            return library;
    }
    die(QStringLiteral("no library of 100,000 overrides fits the bound"));
}

void measureBound(test::RedisProcess &server)
{
    redis::RedisClient client(server.options());
    if (!test::openAndWait(client))
        die(QStringLiteral("cannot reach the private server"));
    test::mustRun(client, {"FUNCTION", "FLUSH"});
    const model::LimiterLibrary library = largestLibrary();
    const qint64 luaBefore = infoField(client, "memory", "used_memory_vm_functions");
    test::mustRun(client, {"CONFIG", "RESETSTAT"});
    test::mustRun(client, {"FUNCTION", "LOAD", "REPLACE", library.source});
    const qint64 loadUs
        = test::commandMicroseconds(test::mustRun(client, {"INFO", "commandstats"}).bytes).value("function|load");
    const qint64 luaBytes = infoField(client, "memory", "used_memory_vm_functions") - luaBefore;
    out()
        << QStringLiteral(
               "At the library's size bound (%1 MB; 10,000 policies, 100,000 overrides): %2 MB of code, FUNCTION LOAD "
               "%3 ms, %4 MB of Lua memory per primary\n")
               .arg(model::policy_limits::maxLibraryBytes / (1024 * 1024))
               .arg(double(library.source.size()) / (1024 * 1024), 0, 'f', 2)
               .arg(double(loadUs) / 1000, 0, 'f', 1)
               .arg(double(luaBytes) / (1024 * 1024), 0, 'f', 1);
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    if (argc > 1)
        dataDir = QString::fromLocal8Bit(argv[1]);
    return test::runBenchmark("policy_scale_bench", [] {
        QElapsedTimer total;
        total.start();
        out() << "Policy scale: one namespace on a private Redis, through sluicectl (times in ms; Lua memory is "
                 "used_memory_vm_functions)\n";
        test::withPrivateServer(measureSizes);
        test::withPrivateServer(measureBound);
        out() << QStringLiteral("policy_scale_bench ran in %1 s\n").arg(double(total.elapsed()) / 1000, 0, 'f', 1);
    });
}
