// SPDX-License-Identifier: GPL-3.0-or-later
// The asynchronous connection against real redis-server processes: TCP and unix sockets,
// pipelining, timeouts on a frozen server, reconnects, cancellation, and servers that misbehave.

#include "redis/redis_connection.h"
#include "support/redis_process.h"
#include "support/sync_command.h"
#include "support/test_services.h"
#include "support/timing_bounds.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>
#include <QUuid>

using namespace sluice;
using redis::RedisConnection;
using redis::RedisReply;
using test::openAndWait;
using test::syncCommand;

namespace {

// INFO server as a Redis 7 answers it, in a handshake's script.
const QByteArray info7 = "$22\r\nredis_version:7.0.15\r\n\r\n";

QByteArray uniqueKey(const char *prefix)
{
    return QByteArray(prefix) + ':' + QUuid::createUuid().toByteArray(QUuid::WithoutBraces);
}

// A TCP server that answers the n-th read of a connection with answers[n], hangs up after the
// last answer when told to, and stays silent when it has nothing left to say.
class FakeServer : public QTcpServer {
public:
    FakeServer(QByteArrayList answers, bool hangUpAfterLast)
        : m_answers(std::move(answers))
        , m_hangUp(hangUpAfterLast)
    {
        QObject::connect(this, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = nextPendingConnection()) {
                auto reads = std::make_shared<int>(0);
                QObject::connect(socket, &QTcpSocket::readyRead, socket, [this, socket, reads] {
                    socket->readAll();
                    if (*reads >= m_answers.size())
                        return;
                    socket->write(m_answers.at((*reads)++));
                    socket->flush();
                    if (m_hangUp && *reads == m_answers.size())
                        socket->disconnectFromHost();
                });
            }
        });
        listen(QHostAddress::LocalHost, 0);
    }

    redis::ConnectionOptions options() const
    {
        redis::ConnectionOptions options;
        options.port = serverPort();
        options.connectTimeoutMs = 2000;
        options.commandTimeoutMs = 2000;
        return options;
    }

private:
    QByteArrayList m_answers;
    bool m_hangUp;
};

} // namespace

class TestRedisConnection : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void pingsOverTcp()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_REDIS_URL", "Redis standalone");
        RedisConnection connection(test::optionsFor(url));
        QVERIFY2(openAndWait(connection), qPrintable(connection.lastError()));
        const RedisReply reply = syncCommand(connection, {"PING"});
        QVERIFY2(reply.ok(), qPrintable(reply.errorText()));
        QCOMPARE(reply.value.bytes, QByteArray("PONG"));
        // The handshake named the connection.
        const RedisReply name = syncCommand(connection, {"CLIENT", "GETNAME"});
        QCOMPARE(name.value.bytes, QByteArray("sluice"));
    }

    void pingsOverUnixSocket()
    {
        SLUICE_REQUIRE_SERVICE(socket, "SLUICE_TEST_REDIS_SOCKET", "Redis standalone (unix socket)");
        RedisConnection connection(test::optionsFor(QStringLiteral("unix://") + socket));
        QVERIFY2(openAndWait(connection), qPrintable(connection.lastError()));
        const RedisReply reply = syncCommand(connection, {"ECHO", "over a unix socket"});
        QCOMPARE(reply.value.bytes, QByteArray("over a unix socket"));
    }

    void selectsDatabase()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_REDIS_URL", "Redis standalone");
        RedisConnection connection(test::optionsFor(url + QStringLiteral("/5")));
        QVERIFY(openAndWait(connection));
        const RedisReply info = syncCommand(connection, {"CLIENT", "INFO"});
        QVERIFY2(info.value.bytes.contains(" db=5 "), info.value.bytes.constData());
    }

    void pipelinesInOrder()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_REDIS_URL", "Redis standalone");
        RedisConnection connection(test::optionsFor(url));
        const QByteArray key = uniqueKey("pipeline");
        // Sent while the connection is still opening: queued, then pipelined once it is ready.
        connection.open();
        constexpr int count = 20000;
        QVector<qint64> seen;
        seen.reserve(count);
        for (int i = 0; i < count; ++i)
            connection.send({"INCR", key}, this,
                            [&seen](const RedisReply &reply) { seen.append(reply.value.integer); });
        QTRY_COMPARE_WITH_TIMEOUT(seen.size(), count, 20000);
        for (int i = 0; i < count; ++i)
            QCOMPARE(seen.at(i), qint64(i + 1));
        syncCommand(connection, {"DEL", key});
    }

    // Writes larger than the kernel takes at once: the connection sends what it can straight to the
    // socket and leaves the rest to Qt's buffer, so later writes must queue behind it, in order.
    void largeWritesKeepTheirOrder_data()
    {
        QTest::addColumn<QByteArray>("variable");
        QTest::addColumn<QString>("scheme");
        QTest::newRow("tcp") << QByteArray("SLUICE_TEST_REDIS_URL") << QString();
        QTest::newRow("unix socket") << QByteArray("SLUICE_TEST_REDIS_SOCKET") << QStringLiteral("unix://");
    }

    void largeWritesKeepTheirOrder()
    {
        QFETCH(QByteArray, variable);
        QFETCH(QString, scheme);
        SLUICE_REQUIRE_SERVICE(address, variable.constData(), "Redis standalone");
        RedisConnection connection(test::optionsFor(scheme + address));
        QVERIFY2(openAndWait(connection), qPrintable(connection.lastError()));
        const QByteArray key = uniqueKey("large");
        constexpr int rounds = 12;
        constexpr int valueSize = 3 * 1024 * 1024;
        QByteArrayList appended;
        for (int i = 0; i < rounds; ++i) {
            // Each value differs in every byte from the one before, so a reordered write shows.
            QByteArray value(valueSize, char('a' + i % 26));
            value.replace(0, 8, QByteArray::number(i).rightJustified(8, '0'));
            appended << value;
            connection.send({"APPEND", key, value}, this, [](const RedisReply &) {});
            connection.send({"STRLEN", key}, this, [](const RedisReply &) {});
            // Every other round the event loop runs, so some writes start while Qt still holds the tail of
            // the one before.
            if (i % 2)
                QCoreApplication::processEvents();
        }
        const RedisReply whole = syncCommand(connection, {"GET", key}, 30000);
        QVERIFY2(whole.ok(), qPrintable(whole.errorText()));
        QCOMPARE(whole.value.bytes.size(), qsizetype(rounds) * valueSize);
        QVERIFY(whole.value.bytes == appended.join());
        syncCommand(connection, {"DEL", key});
    }

    void refusedPortFailsFast()
    {
        redis::ConnectionOptions options;
        options.port = 1;
        RedisConnection connection(options);
        connection.setAutoReconnect(false);
        QElapsedTimer clock;
        clock.start();
        QVERIFY(!openAndWait(connection));
        const RedisReply reply = syncCommand(connection, {"PING"});
        QCOMPARE(connection.state(), RedisConnection::State::Failed);
        QCOMPARE(reply.failure, RedisReply::Failure::NotConnected);
        QVERIFY2(reply.failureMessage.contains(QLatin1String("refused")), qPrintable(reply.failureMessage));
        QVERIFY2(clock.elapsed() < 2000, "a refused connection must not wait for the timeout");
    }

    void frozenServerTimesOutAndRecovers()
    {
        test::RedisProcess server(test::RedisProcess::Patience::Quick);
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        RedisConnection connection(server.options());
        QVERIFY(openAndWait(connection));
        server.freeze();
        QElapsedTimer clock;
        clock.start();
        const RedisReply frozen = syncCommand(connection, {"PING"});
        QVERIFY(!frozen.ok());
        QVERIFY2(frozen.failureMessage.contains(QLatin1String("1000 ms")), qPrintable(frozen.failureMessage));
        // Both bounds: a timeout that fired at once would report live calls as failed.
        SLUICE_VERIFY_TIMEOUT(clock.elapsed(), server.options().commandTimeoutMs);
        QCOMPARE(connection.state(), RedisConnection::State::Reconnecting);
        server.thaw();
        QTRY_VERIFY_WITH_TIMEOUT(connection.state() == RedisConnection::State::Ready, 15000);
        QVERIFY(syncCommand(connection, {"PING"}).ok());
    }

    void reconnectsAfterRestart()
    {
        test::RedisProcess server(test::RedisProcess::Patience::Quick);
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        RedisConnection connection(server.options());
        QVERIFY(openAndWait(connection));
        QSignalSpy states(&connection, &RedisConnection::stateChanged);
        QVERIFY2(server.restart(), qPrintable(server.errorString()));
        QTRY_VERIFY_WITH_TIMEOUT(connection.state() == RedisConnection::State::Ready && states.size() >= 2, 15000);
        QCOMPARE(states.first().first().value<RedisConnection::State>(), RedisConnection::State::Reconnecting);
        QVERIFY(syncCommand(connection, {"PING"}).ok());
    }

    void commandsWaitThroughReconnect()
    {
        test::RedisProcess server(test::RedisProcess::Patience::Quick);
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        auto options = server.options();
        options.commandTimeoutMs = 10000;
        RedisConnection connection(options);
        QVERIFY(openAndWait(connection));
        server.kill();
        QTRY_COMPARE(connection.state(), RedisConnection::State::Reconnecting);
        // Sent while the server is down: queued, then answered once it is back.
        RedisReply reply;
        bool answered = false;
        connection.send({"PING"}, this, [&](const RedisReply &r) {
            reply = r;
            answered = true;
        });
        QVERIFY(server.restart());
        QTRY_VERIFY_WITH_TIMEOUT(answered, 15000);
        QVERIFY2(reply.ok(), qPrintable(reply.errorText()));
    }

    void dropsRepliesForDestroyedContext()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_REDIS_URL", "Redis standalone");
        RedisConnection connection(test::optionsFor(url));
        QVERIFY(openAndWait(connection));
        bool called = false;
        auto *requester = new QObject;
        connection.send({"PING"}, requester, [&called](const RedisReply &) { called = true; });
        delete requester;
        QVERIFY(syncCommand(connection, {"PING"}).ok()); // the later reply arrives, the earlier one was dropped
        QVERIFY(!called);
    }

    void rejectsNonRedisServer()
    {
        FakeServer web({"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"}, true);
        RedisConnection connection(web.options());
        connection.setAutoReconnect(false);
        QVERIFY(!openAndWait(connection));
        QVERIFY2(connection.lastError().contains(QLatin1String("does not speak RESP")),
                 qPrintable(connection.lastError()));
    }

    void reportsMissingReplyAsNoReply()
    {
        // Answers the handshake (CLIENT SETNAME, INFO server, PING), then never again: the command was sent.
        FakeServer silent({"+OK\r\n" + info7 + "+PONG\r\n"}, false);
        redis::ConnectionOptions options = silent.options();
        options.commandTimeoutMs = 300;
        RedisConnection connection(options);
        connection.setAutoReconnect(false);
        QVERIFY(openAndWait(connection));
        const RedisReply reply = syncCommand(connection, {"INCR", "k"});
        QCOMPARE(reply.failure, RedisReply::Failure::NoReply);
        QVERIFY2(reply.failureMessage.contains(QLatin1String("300 ms")), qPrintable(reply.failureMessage));
    }

    void reportsReplyCutMidway()
    {
        // Answers the handshake (CLIENT SETNAME, INFO server, PING), then half a bulk string, and hangs up.
        FakeServer cut({"+OK\r\n" + info7 + "+PONG\r\n", "$10\r\nabc"}, true);
        RedisConnection connection(cut.options());
        connection.setAutoReconnect(false);
        QVERIFY(openAndWait(connection));
        const RedisReply reply = syncCommand(connection, {"GET", "k"});
        QCOMPARE(reply.failure, RedisReply::Failure::Disconnected);
        QVERIFY2(!reply.failureMessage.isEmpty(), "a cut reply must say why");
        QCOMPARE(connection.state(), RedisConnection::State::Failed);
    }

    void silentServerTimesOut()
    {
        FakeServer silent({}, false);
        auto options = silent.options();
        options.connectTimeoutMs = 500;
        RedisConnection connection(options);
        connection.setAutoReconnect(false);
        QElapsedTimer clock;
        clock.start();
        QVERIFY(!openAndWait(connection));
        QVERIFY2(connection.lastError().contains(QLatin1String("500 ms")), qPrintable(connection.lastError()));
        SLUICE_VERIFY_TIMEOUT(clock.elapsed(), options.connectTimeoutMs);
    }
};

QTEST_GUILESS_MAIN(TestRedisConnection)
#include "tst_redis_connection.moc"
