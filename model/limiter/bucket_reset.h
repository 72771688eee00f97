// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/failure.h"
#include "model/limiter/library_owner.h"
#include "redis/redis_commands.h"

#include <functional>

namespace sluice::model {

// Resets one Sluice bucket to full by deleting its key, audited: the bucket's last state goes to
// <ns>:audit (action "reset") first, then the key is deleted. Two steps, because in a Cluster the
// bucket and the audit stream live in different slots; recording first means no reset goes
// unrecorded, and a delete that fails after the record is reported as such.
// `done` gets no failure on success.
void resetBucket(redis::RedisCommands *client, const LibraryOwner &owner, const QString &policy,
                 const QByteArray &subject, const QString &who, QObject *context,
                 std::function<void(const std::optional<Failure> &)> done);

} // namespace sluice::model
