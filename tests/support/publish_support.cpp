// SPDX-License-Identifier: GPL-3.0-or-later
#include "support/publish_support.h"

#include "support/sync_command.h"

namespace sluice::test {

namespace {

template <typename Result> Result noAnswer(const QString &from)
{
    Result result;
    result.failure = model::Failure{model::Failure::Kind::TimedOut, QStringLiteral("no answer from the %1").arg(from)};
    return result;
}

} // namespace

model::LibraryOwner ownerOf(const redis::RedisClient &client, const QString &ns)
{
    return {ns, client.options().database};
}

QString storePolicy(redis::RedisClient &client, const QString &ns, const model::Policy &policy)
{
    using Commit = model::PolicyStore::CommitResult;
    return model::messageOf(awaitCallback<Commit>(
                                [&](QObject *context, auto done) {
        model::PolicyStore(&client, ns)
            .commit({{model::PolicyChange::Kind::Put, policy, -1}}, QStringLiteral("carol"), context, done);
                                },
                                noAnswer<Commit>(QStringLiteral("policy store")))
                                .failure);
}

model::PublishResult publishLibrary(redis::RedisClient &client, const QString &ns)
{
    return awaitCallback<model::PublishResult>(
        [&](QObject *context, auto done) {
        // Tests publish whatever they stored, nothing included: the publisher's refusals have tests of their own.
        model::LibraryPublisher(&client, ownerOf(client, ns), {true, true})
            .publish(QStringLiteral("carol"), context, done);
        },
        noAnswer<model::PublishResult>(QStringLiteral("publisher")));
}

QString storeAndPublish(redis::RedisClient &client, const QString &ns, const QVector<model::Policy> &policies)
{
    for (const model::Policy &policy : policies)
        if (const QString error = storePolicy(client, ns, policy); !error.isEmpty())
            return error;
    return model::messageOf(publishLibrary(client, ns).failure);
}

model::DeploymentStatus libraryStatus(redis::RedisClient &client, const QString &ns)
{
    return awaitCallback<model::DeploymentStatus>(
        [&](QObject *context, auto done) {
        model::LibraryPublisher(&client, ownerOf(client, ns)).status(context, done);
        },
        noAnswer<model::DeploymentStatus>(QStringLiteral("publisher")));
}

model::DeploymentStatus primaryStatus(redis::RedisClient &client, const QString &ns,
                                      std::shared_ptr<model::RunningCodeMemo> memo)
{
    return awaitCallback<model::DeploymentStatus>(
        [&](QObject *context, auto done) {
        model::LibraryPublisher(&client, ownerOf(client, ns)).primaryStatus(context, done, memo);
        },
        noAnswer<model::DeploymentStatus>(QStringLiteral("publisher")));
}

} // namespace sluice::test
