#include "support/publish_support.h"

#include "support/sync_command.h"

namespace sluice::test {

QString storePolicy(redis::RedisClient &client, const QString &ns, const model::Policy &policy)
{
    QString error = QStringLiteral("no answer from the policy store");
    bool done = false;
    QObject context;
    model::PolicyStore(&client, ns).commit({{model::PolicyChange::Kind::Put, policy, -1}}, QStringLiteral("carol"), &context,
                                           [&](const model::PolicyStore::CommitResult &result) {
                                               error = result.error;
                                               done = true;
                                           });
    spinUntil([&] { return done; });
    return error;
}

model::PublishResult publishLibrary(redis::RedisClient &client, const QString &ns)
{
    model::PublishResult result;
    result.error = QStringLiteral("no answer from the publisher");
    bool done = false;
    QObject context;
    model::LibraryPublisher(&client, ns).publish(QStringLiteral("carol"), &context, [&](const model::PublishResult &published) {
        result = published;
        done = true;
    });
    spinUntil([&] { return done; });
    return result;
}

model::DeploymentStatus libraryStatus(redis::RedisClient &client, const QString &ns)
{
    model::DeploymentStatus result;
    result.error = QStringLiteral("no answer from the publisher");
    bool done = false;
    QObject context;
    model::LibraryPublisher(&client, ns).status(&context, [&](const model::DeploymentStatus &status) {
        result = status;
        done = true;
    });
    spinUntil([&] { return done; });
    return result;
}

} // namespace sluice::test
