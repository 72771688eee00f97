// SPDX-License-Identifier: GPL-3.0-or-later
#include "support/traffic_support.h"

#include "model/limiter/bucket_key.h"
#include "model/limiter/library_owner.h"
#include "model/limiter/limiter_library.h"
#include "support/sync_command.h"

#include <QTimer>

#include <climits>

namespace sluice::test {

namespace {

constexpr int retryDelayMs = 200; // times the attempt: a connection dropped on a timeout reopens meanwhile
constexpr int fillAttempts = 5;

QByteArrayList acquireCommand(const redis::RedisClient &client, const QString &ns, const QString &policy,
                              const QByteArray &subject)
{
    return {"FCALL", model::LibraryOwner{ns, client.options().database}.function("acquire"), "1",
            model::bucketKey(ns, policy, subject), policy.toUtf8()};
}

} // namespace

QString sendBounded(redis::RedisClient &client, int calls, const std::function<QByteArrayList(int)> &commandOf,
                    const std::function<void(int, const redis::RedisReply &)> &onReply, const Pacing &pacing)
{
    QObject context; // gone on return, and with it every reply or retry still due: dropped, never run
    int next = 0;
    int unanswered = 0;
    int answered = 0;
    QString stopped;
    std::function<void(int, int)> sendCall;
    const auto topUp = [&] {
        while (stopped.isEmpty() && next < calls && unanswered < pacing.maxInFlight) {
            ++unanswered;
            sendCall(next++, 1);
        }
    };
    sendCall = [&](int call, int attempt) {
        client.send(
            commandOf(call), &context,
            [&, call, attempt](const redis::RedisReply &reply) {
            const bool failed = reply.failure != redis::RedisReply::Failure::None;
            if (failed && attempt < pacing.attempts) {
                QTimer::singleShot(retryDelayMs * attempt, &context,
                                   [&, call, attempt] { sendCall(call, attempt + 1); });
                return;
            }
            --unanswered;
            ++answered;
            if (failed && stopped.isEmpty())
                stopped = QStringLiteral("%1 failed (attempt %2 of %3): %4")
                              .arg(QString::fromUtf8(commandOf(call).join(' ')))
                              .arg(attempt)
                              .arg(pacing.attempts)
                              .arg(reply.errorText());
            onReply(call, reply);
            topUp();
            },
            pacing.timeoutMs);
    };
    topUp();
    // No overall limit: every command has its own deadline, so the run ends.
    spinUntil(
        [&] {
        if (stopped.isEmpty() && pacing.giveUpWhen)
            stopped = pacing.giveUpWhen();
        return answered == calls || !stopped.isEmpty();
        },
        INT_MAX);
    return stopped;
}

Fired fireAcquires(redis::RedisClient &client, const QString &ns, const QString &policy, int calls,
                   const std::function<QByteArray(int)> &subjectOf)
{
    Fired fired;
    const QString stopped = sendBounded(
        client, calls, [&](int i) { return acquireCommand(client, ns, policy, subjectOf(i)); },
        [&](int, const redis::RedisReply &reply) {
        if (!reply.ok())
            qWarning("acquire failed: %s", qPrintable(reply.errorText()));
        else if (reply.value.elements.value(0).integer == 1)
            ++fired.allowed;
        else
            ++fired.rejected;
        },
        Pacing{});
    if (!stopped.isEmpty())
        qWarning("fired %u of %d acquires: %s", fired.allowed + fired.rejected, calls, qPrintable(stopped));
    return fired;
}

QString fillBuckets(redis::RedisClient &client, const QString &ns, int calls,
                    const std::function<BucketAddress(int)> &bucketOf, const std::function<QString()> &giveUpWhen)
{
    QString refused; // the first error reply: wrong data, which no retry mends, so the fill stops there
    Pacing pacing;
    pacing.attempts = fillAttempts;
    pacing.giveUpWhen = [&] { return refused.isEmpty() && giveUpWhen ? giveUpWhen() : refused; };
    return sendBounded(
        client, calls,
        [&](int i) {
        const BucketAddress bucket = bucketOf(i);
        return acquireCommand(client, ns, bucket.policy, bucket.subject);
        },
        [&](int call, const redis::RedisReply &reply) {
        if (reply.failure == redis::RedisReply::Failure::None && reply.value.isError() && refused.isEmpty())
            refused = QStringLiteral("acquire %1 refused: %2").arg(call).arg(reply.errorText());
    },
        pacing);
}

} // namespace sluice::test
