// SPDX-License-Identifier: GPL-3.0-or-later
// Prometheus exporter benchmark: what one scrape of `sluicectl metrics serve` costs, on a private Redis
// Cluster of 3 primaries running a library of 50 policies. For the totals alone and with --top 10,
// and again after 50,000 more subjects were rejected, it prints per scrape: the commands sent to
// Redis, the Redis time they took (INFO commandstats summed over the primaries, its own calls left
// out), the wall time of a scrape with its exposition (median and 95th percentile), and the series
// and bytes exposed. The commands must not grow with the subjects. Then the same policies on 1, 3 and 6
// primaries: a scrape's and the dashboard's rate sampler's Redis time, in all and per primary, and how evenly
// 20,000 limiter calls over as many subjects spread over the primaries (each one's FCALL time). Exits non-zero
// only when it cannot measure; the servers go on every way out.

#include "model/metrics/metrics_exposition.h"
#include "model/metrics/metrics_scrape.h"
#include "model/monitor/policy_rate_sampler.h"
#include "redis/info_reply.h"
#include "redis/redis_connection.h"
#include "support/bench_support.h"
#include "support/limiter_support.h"
#include "support/private_cluster.h"
#include "support/publish_support.h"
#include "support/sync_command.h"
#include "support/traffic_support.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QTextStream>

#include <algorithm>
#include <limits>

using namespace sluice;
using test::die;
using test::out;

namespace {

constexpr int kPolicies = 50;
constexpr int kScrapes = 40;
const QString kNamespace = QStringLiteral("bench");

struct Cost {
    quint64 commands = 0;
    double serverUsPerScrape = 0;
    double medianMs = 0;
    double p95Ms = 0;
    size_t series = 0;
    size_t bytes = 0;
};

redis::RespValue mustRunOn(redis::RedisConnection &node, const QByteArrayList &command)
{
    const redis::RedisReply reply = test::syncCommand(node, command, 60000);
    if (!reply.ok())
        die(QStringLiteral("%1: %2").arg(QString::fromUtf8(command.join(' ')), reply.errorText()));
    return reply.value;
}

// Microseconds Redis spent on every command since the last CONFIG RESETSTAT, but INFO's and CONFIG's.
double serverMicroseconds(redis::RedisConnection &node)
{
    const QHash<QByteArray, qint64> usec = test::commandMicroseconds(mustRunOn(node, {"INFO", "commandstats"}).bytes);
    double total = 0;
    for (auto it = usec.cbegin(); it != usec.cend(); ++it)
        if (it.key() != "info" && it.key() != "config")
            total += it.value();
    return total;
}

// A connection to each primary.
std::vector<std::unique_ptr<redis::RedisConnection>> connect(const QVector<redis::ConnectionOptions> &primaries)
{
    std::vector<std::unique_ptr<redis::RedisConnection>> nodes;
    for (const redis::ConnectionOptions &options : primaries) {
        nodes.push_back(std::make_unique<redis::RedisConnection>(options));
        if (!test::openAndWait(*nodes.back()))
            die(QStringLiteral("cannot reach primary %1").arg(options.port));
    }
    return nodes;
}

QVector<redis::ConnectionOptions> primariesOf(test::PrivateCluster &cluster)
{
    QVector<redis::ConnectionOptions> primaries;
    for (int i = 0; i < cluster.size(); ++i)
        primaries.append(cluster.node(i).options());
    return primaries;
}

Cost measure(const QVector<redis::ConnectionOptions> &primaries, redis::RedisClient &client, int topPerPolicy)
{
    model::MetricsScraper scraper(&client, model::LibraryOwner{kNamespace, 0}, topPerPolicy);
    auto nodes = connect(primaries);
    Cost cost;
    QVector<double> wallMs;
    for (int run = -3; run < kScrapes; ++run) { // three scrapes to warm up, left out
        if (run == 0)
            for (auto &node : nodes)
                mustRunOn(*node, {"CONFIG", "RESETSTAT"});
        std::optional<model::MetricsSnapshot> snapshot;
        QElapsedTimer clock;
        clock.start();
        scraper.scrape([&snapshot](const model::MetricsSnapshot &taken) { snapshot = taken; });
        test::spinUntil([&] { return snapshot.has_value(); }, 60000);
        if (!snapshot)
            die(QStringLiteral("a scrape did not finish"));
        if (!snapshot->problems.isEmpty())
            die(snapshot->problems.join(QLatin1String("; ")));
        const auto families = model::metricFamilies(*snapshot, 0);
        const std::string text = model::exposition(families);
        if (run < 0)
            continue;
        wallMs.append(clock.nsecsElapsed() / 1e6);
        cost.commands = snapshot->commands;
        cost.bytes = text.size();
        cost.series = 0;
        for (const auto &family : families)
            cost.series += family.metric.size();
    }
    double server = 0;
    for (auto &node : nodes)
        server += serverMicroseconds(*node);
    cost.serverUsPerScrape = server / kScrapes;
    std::sort(wallMs.begin(), wallMs.end());
    cost.medianMs = wallMs.at(wallMs.size() / 2);
    cost.p95Ms = wallMs.at(qsizetype(wallMs.size() * 0.95));
    return cost;
}

void printRow(const QString &label, int subjects, const Cost &cost)
{
    out() << qSetFieldWidth(22) << Qt::left << label << qSetFieldWidth(10) << Qt::right << subjects
          << qSetFieldWidth(10) << cost.commands << qSetFieldWidth(12)
          << QString::number(cost.serverUsPerScrape, 'f', 0) << qSetFieldWidth(16)
          << QStringLiteral("%1 / %2").arg(cost.medianMs, 0, 'f', 2).arg(cost.p95Ms, 0, 'f', 2) << qSetFieldWidth(9)
          << cost.series << qSetFieldWidth(9) << cost.bytes << qSetFieldWidth(0) << Qt::endl;
}

QVector<model::Policy> benchPolicies()
{
    QVector<model::Policy> policies;
    for (int i = 0; i < kPolicies; ++i)
        policies.append(test::makePolicy(QStringLiteral("p%1").arg(i, 2, 10, QLatin1Char('0')),
                                         i % 2 ? model::Algorithm::FixedWindow : model::Algorithm::TokenBucket, 1,
                                         3600000));
    return policies;
}

// FCALL's calls and microseconds on a node since the last CONFIG RESETSTAT.
QPair<qint64, qint64> fcallSpent(redis::RedisConnection &node)
{
    const QByteArray stats = mustRunOn(node, {"INFO", "commandstats"}).bytes;
    return {test::commandStat(stats, "calls").value("fcall"), test::commandStat(stats, "usec").value("fcall")};
}

// The cost per primary at 1 (a server without Cluster), 3 and 6 primaries (one machine's cores shared by all: the
// spread of the work, not the capacity of more machines).
void perPrimary()
{
    out() << Qt::endl
          << "Cost by primaries (" << kPolicies
          << " policies; a scrape's Redis time; the dashboard's rate sampler, reading every second for 5 s; 20,000 "
             "acquires over 20,000 subjects, each primary's FCALL time)"
          << Qt::endl;
    out() << qSetFieldWidth(10) << Qt::right << "primaries" << qSetFieldWidth(14) << "scrape us" << qSetFieldWidth(16)
          << "per primary" << qSetFieldWidth(16) << "sampler us/s" << qSetFieldWidth(14) << "per primary"
          << qSetFieldWidth(0) << "   limiter calls' share and us per primary (us max / min)" << Qt::endl;
    for (const int primaries : {1, 3, 6}) {
        std::unique_ptr<test::RedisProcess> single;
        std::unique_ptr<test::PrivateCluster> cluster;
        QVector<redis::ConnectionOptions> nodeOptions;
        if (primaries == 1) {
            single = std::make_unique<test::RedisProcess>();
            if (!single->start())
                die(single->errorString());
            nodeOptions = {single->options()};
        } else {
            cluster = std::make_unique<test::PrivateCluster>(primaries);
            if (!cluster->start())
                die(cluster->errorString());
            nodeOptions = primariesOf(*cluster);
        }
        redis::RedisClient client(cluster ? cluster->options() : single->options());
        if (!test::openAndWait(client))
            die(QStringLiteral("cannot reach the primaries"));
        test::spinUntil([&] { return client.primaries().size() == primaries; });
        const QString error = test::storeAndPublish(client, kNamespace, benchPolicies());
        if (!error.isEmpty())
            die(error);
        auto nodes = connect(nodeOptions);
        for (auto &node : nodes)
            mustRunOn(*node, {"CONFIG", "RESETSTAT"});
        const QString failed = test::fillBuckets(client, kNamespace, 20000, [](int call) {
            return test::BucketAddress{QStringLiteral("p%1").arg(call % kPolicies, 2, 10, QLatin1Char('0')),
                                       QByteArray("subject-") + QByteArray::number(call)};
        });
        if (!failed.isEmpty())
            die(failed);
        QStringList limiter;
        qint64 most = 0, least = std::numeric_limits<qint64>::max();
        for (auto &node : nodes) {
            const auto [calls, spent] = fcallSpent(*node);
            limiter << QStringLiteral("%1% %2").arg(100.0 * double(calls) / 20000, 0, 'f', 1).arg(spent);
            most = std::max(most, spent);
            least = std::min(least, spent);
        }
        const Cost scrape = measure(nodeOptions, client, 0);

        model::PolicyRateSampler sampler(&client, model::LibraryOwner{kNamespace, 0});
        sampler.setIntervalMs(1000);
        for (auto &node : nodes)
            mustRunOn(*node, {"CONFIG", "RESETSTAT"});
        sampler.start();
        QElapsedTimer sampling;
        sampling.start();
        test::spinUntil([] { return false; }, 5000);
        sampler.stop();
        double sampled = 0;
        for (auto &node : nodes)
            sampled += serverMicroseconds(*node);
        const double samplerUsPerSecond = sampled * 1000 / double(sampling.elapsed());
        out() << qSetFieldWidth(10) << primaries << qSetFieldWidth(14)
              << QString::number(scrape.serverUsPerScrape, 'f', 0) << qSetFieldWidth(16)
              << QString::number(scrape.serverUsPerScrape / primaries, 'f', 0) << qSetFieldWidth(16)
              << QString::number(samplerUsPerSecond, 'f', 0) << qSetFieldWidth(14)
              << QString::number(samplerUsPerSecond / primaries, 'f', 0) << qSetFieldWidth(0) << "   "
              << limiter.join(QLatin1Char(' ')) << " ("
              << QString::number(double(most) / double(std::max<qint64>(1, least)), 'f', 2) << ")" << Qt::endl;
    }
}

// Every subject called twice at a policy allowing one call an hour: one pass, one rejection.
void rejectSubjects(redis::RedisClient &client, int from, int count)
{
    const QString failed = test::fillBuckets(client, kNamespace, 2 * count, [from](int call) {
        const int subject = from + call / 2;
        return test::BucketAddress{QStringLiteral("p%1").arg(subject % kPolicies, 2, 10, QLatin1Char('0')),
                                   QByteArray("subject-") + QByteArray::number(subject)};
    });
    if (!failed.isEmpty())
        die(failed);
}

void run()
{
    test::PrivateCluster cluster(3);
    if (!cluster.start())
        die(cluster.errorString());
    redis::RedisClient client(cluster.options());
    if (!test::openAndWait(client))
        die(QStringLiteral("cannot reach the cluster"));
    test::spinUntil([&] { return client.primaries().size() == 3; });
    const QString error = test::storeAndPublish(client, kNamespace, benchPolicies());
    if (!error.isEmpty())
        die(error);
    rejectSubjects(client, 0, 1000);

    out() << "Exporter cost per scrape: " << kPolicies << " policies, 3 primaries (private Cluster), " << kScrapes
          << " scrapes each" << Qt::endl;
    out() << qSetFieldWidth(22) << Qt::left << "case" << qSetFieldWidth(10) << Qt::right << "subjects"
          << qSetFieldWidth(10) << "commands" << qSetFieldWidth(12) << "server us" << qSetFieldWidth(16)
          << "wall ms med/p95" << qSetFieldWidth(9) << "series" << qSetFieldWidth(9) << "bytes" << qSetFieldWidth(0)
          << Qt::endl;
    printRow(QStringLiteral("totals only"), 1000, measure(primariesOf(cluster), client, 0));
    const Cost topFew = measure(primariesOf(cluster), client, 10);
    printRow(QStringLiteral("--top 10"), 1000, topFew);
    rejectSubjects(client, 1000, 50000);
    printRow(QStringLiteral("totals only"), 51000, measure(primariesOf(cluster), client, 0));
    const Cost topMany = measure(primariesOf(cluster), client, 10);
    printRow(QStringLiteral("--top 10"), 51000, topMany);
    out() << "commands per scrape with 51,000 subjects / with 1,000: " << topMany.commands << " / " << topFew.commands
          << (topMany.commands == topFew.commands ? " (the same: they do not grow with subjects)"
                                                  : " (they grew with the subjects)")
          << Qt::endl;
    perPrimary();
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    return test::runBenchmark("exporter_bench", run);
}
