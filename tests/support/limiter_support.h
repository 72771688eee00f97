// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/limiter/bucket_key.h"
#include "model/limiter/limiter_library.h"
#include "model/limiter/reference_limiter.h"
#include "redis/redis_connection.h"

namespace sluice::test {

// 2100-01-01: a test clock this far ahead keeps buckets' absolute expiry times in the future.
constexpr qint64 kTestClockStart = 4102444800000;

// One policy of each algorithm, with small capacities (5, 3, 3, 3, 3, 5, 2) and a shadow fixed window of
// 1, that the limiter's contract tests call: tb, fw, sw, sl, lb, gc, cc, shadow.
QVector<model::Policy> contractPolicies();

// The limiter library with the test clock in place of Redis TIME.
// `lists`: the namespace's allow and deny lists.
model::LimiterLibrary testClockLibrary(const QVector<model::Policy> &policies,
                                       const QString &ns = QStringLiteral("sluice"),
                                       const QVector<model::SubjectOverride> &lists = {});

// FUNCTION LOAD REPLACE; an empty string on success, else the reason.
QString loadLibrary(redis::RedisConnection &connection, const model::LimiterLibrary &library);

model::Policy makePolicy(const QString &name, model::Algorithm algorithm, qint64 limit, qint64 windowMs,
                         qint64 burst = 0, bool shadow = false);

QByteArray bucketKey(const QString &policy, const QByteArray &subject, const QString &ns = QStringLiteral("sluice"));

// Sends `write` and then removes the expiry of `keys` (those it writes), as one transaction; `done` gets
// the write's own reply. Tests that move the library's clock themselves need it: Redis expires keys on
// the real clock, so a machine that stalls for longer than a key's lifetime (about a window) between two
// calls would empty a bucket the model still holds. A transaction cannot be split by a stall (Redis 7
// reads its clock once per EXEC). Key lifetimes are tst_limiter_functions' to check.
void sendKeepingKeys(redis::RedisConnection &connection, QObject *context, const QByteArrayList &write,
                     const QByteArrayList &keys, const redis::RedisConnection::Callback &done);

// A sluice_acquire / sluice_peek reply as a Decision; *why says what is wrong with a malformed one.
bool decisionFromReply(const redis::RespValue &reply, model::Decision *decision, QString *why);

// sluice_allow's reply to a call the model decided, as leanReplyText() writes one: allowed, remaining, and the
// wait (the retry after a rejection; after an admission the leaky bucket's queue delay, else 0).
QByteArray leanReplyExpected(const model::Decision &expected);
// A sluice_allow reply as "allowed remaining wait", or what is wrong with it.
QByteArray leanReplyText(const redis::RespValue &reply);

} // namespace sluice::test
