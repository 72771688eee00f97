// SPDX-License-Identifier: GPL-3.0-or-later
#include "support/bench_support.h"

#include "support/sync_command.h"

#include <QTextStream>

#include <climits>
#include <exception>
#include <optional>

namespace sluice::test {

namespace {

RedisProcess *runningServer = nullptr; // withPrivateServer's, while its phase runs

} // namespace

QTextStream &out()
{
    static QTextStream stream(stdout);
    return stream;
}

void die(const QString &why)
{
    throw BenchFailure{why};
}

int runBenchmark(const char *name, const std::function<void()> &body)
{
    QString why;
    try {
        body();
        return 0;
    } catch (const BenchFailure &failure) {
        why = failure.why;
    } catch (const std::exception &error) {
        why = QString::fromLocal8Bit(error.what());
    }
    QTextStream(stderr) << name << ": " << why << Qt::endl;
    return 1;
}

void withPrivateServer(const std::function<void(RedisProcess &)> &phase)
{
    RedisProcess server;
    if (!server.start())
        die(QStringLiteral("cannot start redis-server: %1").arg(server.errorString()));
    server.pinApart();
    struct Watch {
        explicit Watch(RedisProcess *server) { runningServer = server; }
        ~Watch() { runningServer = nullptr; }
    } watch(&server);
    try {
        phase(server);
    } catch (const BenchFailure &failure) {
        // The server's end may be noticed only after the failure it caused (a closed connection).
        server.waitForExit(250);
        const QString ended = server.exitReason();
        if (ended.isEmpty() || failure.why.contains(ended))
            throw;
        die(QStringLiteral("%1 (%2)").arg(failure.why, ended));
    }
}

QString privateServerEnded()
{
    return runningServer ? runningServer->exitReason() : QString();
}

QHash<QByteArray, qint64> commandStat(const QByteArray &commandstats, const QByteArray &field)
{
    QHash<QByteArray, qint64> values;
    const QByteArray name = field + '=';
    for (const QByteArray &line : commandstats.split('\n')) {
        const qsizetype colon = line.indexOf(':');
        const qsizetype at = line.indexOf(name, colon);
        // Whole fields only: "calls=" must not be found inside "rejected_calls=".
        if (line.startsWith("cmdstat_") && colon > 0 && at > colon
            && (line.at(at - 1) == ':' || line.at(at - 1) == ','))
            values[line.mid(8, colon - 8)]
                += line.mid(at + name.size(), line.indexOf(',', at) - at - name.size()).toLongLong();
    }
    return values;
}

QHash<QByteArray, qint64> commandMicroseconds(const QByteArray &commandstats)
{
    return commandStat(commandstats, "usec");
}

redis::RespValue mustRun(redis::RedisClient &client, const QByteArrayList &command)
{
    std::optional<redis::RedisReply> reply;
    QObject context; // a reply after we gave up is dropped
    client.send(command, &context, [&reply](const redis::RedisReply &answer) { reply = answer; });
    // No limit of its own: the client's timeout ends the wait.
    spinUntil([&] { return reply || !privateServerEnded().isEmpty(); }, INT_MAX);
    const QString name = QString::fromUtf8(command.join(' '));
    if (!reply)
        die(QStringLiteral("%1: %2").arg(name, privateServerEnded()));
    if (!reply->ok())
        die(QStringLiteral("%1: %2").arg(name, reply->errorText()));
    return reply->value;
}

} // namespace sluice::test
