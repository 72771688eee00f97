#include "support/sync_command.h"

#include <QEventLoop>
#include <QTimer>

namespace sluice::test {

using redis::RedisConnection;
using redis::RedisReply;

RedisReply syncCommand(RedisConnection &connection, const QByteArrayList &args, int waitMs)
{
    QEventLoop loop;
    RedisReply result;
    result.failure = RedisReply::Failure::Timeout;
    result.failureMessage = QStringLiteral("the test gave up waiting");
    bool answered = false;
    connection.send(args, &loop, [&](const RedisReply &reply) {
        result = reply;
        answered = true;
        loop.quit();
    });
    QTimer::singleShot(waitMs, &loop, &QEventLoop::quit);
    if (!answered)
        loop.exec();
    return result;
}

bool spinUntil(const std::function<bool()> &condition, int waitMs)
{
    if (condition())
        return true;
    QEventLoop loop;
    QTimer check;
    check.setTimerType(Qt::PreciseTimer);
    QObject::connect(&check, &QTimer::timeout, &loop, [&] {
        if (condition())
            loop.quit();
    });
    check.start(1);
    QTimer::singleShot(waitMs, &loop, &QEventLoop::quit);
    loop.exec();
    return condition();
}

bool openAndWait(RedisConnection &connection, int waitMs)
{
    QEventLoop loop;
    QObject::connect(&connection, &RedisConnection::stateChanged, &loop, [&loop](RedisConnection::State state) {
        if (state == RedisConnection::State::Ready || state == RedisConnection::State::Failed)
            loop.quit();
    });
    QTimer::singleShot(waitMs, &loop, &QEventLoop::quit);
    connection.open();
    if (connection.state() != RedisConnection::State::Ready && connection.state() != RedisConnection::State::Failed)
        loop.exec();
    return connection.state() == RedisConnection::State::Ready;
}

} // namespace sluice::test
