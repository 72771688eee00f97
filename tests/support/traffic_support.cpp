#include "model/limiter/bucket_key.h"
#include "support/traffic_support.h"

#include "model/limiter/limiter_library.h"
#include "support/sync_command.h"

namespace sluice::test {

Fired fireAcquires(redis::RedisClient &client, const QString &ns, const QString &policy, int calls,
                   const std::function<QByteArray(int)> &subjectOf)
{
    Fired fired;
    int replies = 0;
    QObject context;
    for (int i = 0; i < calls; ++i)
        client.send({"FCALL", "sluice_acquire", "1", model::bucketKey(ns, policy, subjectOf(i)), policy.toUtf8()}, &context,
                    [&](const redis::RedisReply &reply) {
                        ++replies;
                        if (!reply.ok())
                            qWarning("acquire failed: %s", qPrintable(reply.errorText()));
                        else if (reply.value.elements.value(0).integer == 1)
                            ++fired.allowed;
                        else
                            ++fired.rejected;
                    });
    spinUntil([&] { return replies == calls; });
    return fired;
}

} // namespace sluice::test
