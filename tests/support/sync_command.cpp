// SPDX-License-Identifier: GPL-3.0-or-later
#include "support/sync_command.h"

#include <QEventLoop>
#include <QTimer>

namespace sluice::test {

using redis::RedisConnection;
using redis::RedisReply;

namespace {

template <class Sender> RedisReply sendAndWait(Sender &sender, const QByteArrayList &args, int waitMs)
{
    QEventLoop loop;
    RedisReply result;
    result.failure = RedisReply::Failure::Timeout;
    result.failureMessage = QStringLiteral("the test gave up waiting");
    bool answered = false;
    sender.send(args, &loop, [&](const RedisReply &reply) {
        result = reply;
        answered = true;
        loop.quit();
    });
    QTimer::singleShot(waitMs, &loop, &QEventLoop::quit);
    if (!answered)
        loop.exec();
    return result;
}

template <class Opener> bool openAndWaitFor(Opener &opener, int waitMs)
{
    using State = typename Opener::State;
    QEventLoop loop;
    QObject::connect(&opener, &Opener::stateChanged, &loop, [&loop](State state) {
        if (state == State::Ready || state == State::Failed)
            loop.quit();
    });
    QTimer::singleShot(waitMs, &loop, &QEventLoop::quit);
    opener.open();
    if (opener.state() != State::Ready && opener.state() != State::Failed)
        loop.exec();
    return opener.state() == State::Ready;
}

} // namespace

RedisReply syncCommand(RedisConnection &connection, const QByteArrayList &args, int waitMs)
{
    return sendAndWait(connection, args, waitMs);
}

RedisReply syncCommand(redis::RedisClient &client, const QByteArrayList &args, int waitMs)
{
    return sendAndWait(client, args, waitMs);
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
    return openAndWaitFor(connection, waitMs);
}

bool openAndWait(redis::RedisClient &client, int waitMs)
{
    return openAndWaitFor(client, waitMs);
}

} // namespace sluice::test
