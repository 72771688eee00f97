// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/deploy/library_publisher.h"
#include "redis/redis_client.h"

namespace sluice::test {

// The library a namespace publishes on the client's database.
model::LibraryOwner ownerOf(const redis::RedisClient &client, const QString &ns);
// Stores one policy through the policy store and waits; an empty string on success, else the reason.
QString storePolicy(redis::RedisClient &client, const QString &ns, const model::Policy &policy);
// Publishes the stored policies and waits for the result (an error result when nothing answers).
model::PublishResult publishLibrary(redis::RedisClient &client, const QString &ns);
// Stores the policies, then publishes; an empty string on success, else the first reason.
QString storeAndPublish(redis::RedisClient &client, const QString &ns, const QVector<model::Policy> &policies);
// The deployment's library status, waited for.
model::DeploymentStatus libraryStatus(redis::RedisClient &client, const QString &ns);
// The primaries' status alone, as the exporter reads it, with its memo of the code read.
model::DeploymentStatus primaryStatus(redis::RedisClient &client, const QString &ns,
                                      std::shared_ptr<model::RunningCodeMemo> memo);

} // namespace sluice::test
