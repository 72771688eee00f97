// Pipelined throughput of RedisClient: `connections` clients, each keeping `depth` commands in flight,
// for `seconds`; prints "ops/s p50_us p99_us" for the command given after the options. The figure is
// set beside redis-benchmark's on the same server by client_bench.sh.
//
// Usage: client_bench PORT SECONDS CONNECTIONS DEPTH COMMAND [ARG...]

#include "redis/redis_client.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QTextStream>
#include <QTimer>

#include <algorithm>
#include <memory>
#include <vector>

using sluice::redis::RedisClient;
using sluice::redis::RedisReply;

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    const QStringList args = QCoreApplication::arguments();
    if (args.size() < 6) {
        QTextStream(stderr) << "usage: client_bench PORT SECONDS CONNECTIONS DEPTH COMMAND [ARG...]\n";
        return 2;
    }
    sluice::redis::ConnectionOptions options;
    options.port = static_cast<quint16>(args.at(1).toUInt());
    const int seconds = args.at(2).toInt();
    const int connections = args.at(3).toInt();
    const int depth = args.at(4).toInt();
    QByteArrayList command;
    for (qsizetype i = 5; i < args.size(); ++i)
        command << args.at(i).toUtf8();

    std::vector<std::unique_ptr<RedisClient>> clients;
    for (int i = 0; i < connections; ++i) {
        clients.push_back(std::make_unique<RedisClient>(options));
        clients.back()->open();
    }
    QElapsedTimer clock;
    qint64 measuredFrom = -1, completed = 0, errors = 0;
    bool measuring = false, stopping = false;
    QString firstError;
    std::vector<qint64> latenciesNs;
    latenciesNs.reserve(4'000'000);

    std::function<void(RedisClient *)> sendOne = [&](RedisClient *client) {
        if (stopping)
            return;
        const qint64 sentAt = clock.nsecsElapsed();
        client->send(command, &app, [&, client, sentAt](const RedisReply &reply) {
            if (!reply.ok() && firstError.isEmpty())
                firstError = reply.errorText();
            if (measuring) {
                ++completed;
                errors += reply.ok() ? 0 : 1;
                latenciesNs.push_back(clock.nsecsElapsed() - sentAt);
            }
            sendOne(client);
        });
    };
    clock.start();
    for (auto &client : clients)
        for (int i = 0; i < depth; ++i)
            sendOne(client.get());
    // Half a second to warm up, then the measured span.
    QTimer::singleShot(500, &app, [&] {
        measuring = true;
        measuredFrom = clock.nsecsElapsed();
    });
    QTimer::singleShot(500 + seconds * 1000, &app, [&] {
        measuring = false;
        stopping = true;
        const double span = (clock.nsecsElapsed() - measuredFrom) / 1e9;
        std::sort(latenciesNs.begin(), latenciesNs.end());
        auto percentileUs = [&](double p) {
            return latenciesNs.empty() ? 0.0 : latenciesNs[static_cast<size_t>(p * (latenciesNs.size() - 1))] / 1000.0;
        };
        QTextStream(stdout) << qRound64(completed / span) << ' ' << percentileUs(0.5) << ' ' << percentileUs(0.99) << '\n';
        if (errors)
            QTextStream(stderr) << errors << " commands failed, first: " << firstError << '\n';
        QCoreApplication::exit(errors || completed == 0 ? 1 : 0);
    });
    return QCoreApplication::exec();
}
