// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "redis/redis_client.h"

#include <functional>

namespace sluice::test {

// How sendBounded keeps a long run of commands right on a busy machine: a busy machine may only make
// the run slower.
struct Pacing {
    int maxInFlight = 1000; // commands sent and not answered yet; the next go out as replies arrive
    int timeoutMs = 60000;  // per command, generous: a server held up for a while is not a failure
    int attempts = 1;       // sends of a call whose reply failed (timeout, dropped connection); 1: no retry
    std::function<QString()> giveUpWhen; // when it returns a reason (say, the server died), stop at once
};

// Sends commandOf(0), commandOf(1), ... commandOf(calls - 1) in that order under `pacing` and hands
// each call's last reply to onReply(call, reply), error replies included (they are never retried).
// Returns an empty string once every call is answered, else why it stopped early: a call that
// failed on its last attempt (nothing more is sent), or giveUpWhen's reason.
QString sendBounded(redis::RedisClient &client, int calls, const std::function<QByteArrayList(int)> &commandOf,
                    const std::function<void(int, const redis::RedisReply &)> &onReply, const Pacing &pacing);

struct Fired {
    quint32 allowed = 0;
    quint32 rejected = 0;
};

// Fires `calls` sluice_acquire at `policy`, the i-th for subjectOf(i), pipelined (in order per
// connection, at most Pacing's 1,000 unanswered), and waits for every reply; counts the decisions.
// Never retries: a call that timed out may have been decided, and sending it again would count it twice.
Fired fireAcquires(redis::RedisClient &client, const QString &ns, const QString &policy, int calls,
                   const std::function<QByteArray(int)> &subjectOf);

struct BucketAddress {
    QString policy;
    QByteArray subject;
};

// Creates the buckets bucketOf(0) ... bucketOf(calls - 1) with one sluice_acquire each, for a
// benchmark's data: bounded in flight, generous timeouts and failed calls sent again, which is
// harmless here (a second acquire only spends one more token of a bucket that exists either way).
// Returns an empty string, or why the data could not be made (an error reply, a call that failed
// every attempt, giveUpWhen's reason).
QString fillBuckets(redis::RedisClient &client, const QString &ns, int calls,
                    const std::function<BucketAddress(int)> &bucketOf, const std::function<QString()> &giveUpWhen = {});

} // namespace sluice::test
