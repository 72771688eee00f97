// SPDX-License-Identifier: GPL-3.0-or-later
// sluicectl publish, status and acquire: the limiter library on every primary, and one decision.

#include "app/common/exit_codes.h"
#include "app/ctl/ctl_request.h"
#include "app/ctl/text_table.h"
#include "model/deploy/library_publisher.h"
#include "model/limiter/bucket_key.h"
#include "model/limiter/reference_limiter.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace sluice::app {

using model::LibraryPublisher;
using model::NodeLibrary;

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("sluicectl", text);
}

QString persistenceName(NodeLibrary::Persistence persistence)
{
    switch (persistence) {
    case NodeLibrary::Persistence::Persisted: return tr("yes");
    case NodeLibrary::Persistence::None: return tr("NONE");
    case NodeLibrary::Persistence::Unknown: break;
    }
    return tr("unknown");
}

void printNodes(const QVector<NodeLibrary> &nodes)
{
    const TextTable table({{"NODE", -21}, {"STATE", -11}, {"VERSION", 7}, {"DIGEST", -16}, {"PERSISTED", 0}}, 2);
    ctlOut() << table.header() << Qt::endl;
    for (const NodeLibrary &node : nodes) {
        ctlOut() << table.row({node.node, NodeLibrary::stateName(node.state),
                               node.version > 0 ? QString::number(node.version) : QStringLiteral("-"),
                               node.digest.isEmpty() ? QStringLiteral("-") : QString::fromLatin1(node.digest),
                               persistenceName(node.persistence)})
                 << Qt::endl;
        if (!node.detail.isEmpty() && node.state != NodeLibrary::State::Current)
            ctlOut() << "    " << node.detail << Qt::endl;
        for (const model::LoadedLibrary &library : node.libraries)
            ctlOut() << "    " << tr("library %1").arg(library.describe()) << Qt::endl;
    }
    for (const NodeLibrary &node : nodes)
        if (node.persistence == NodeLibrary::Persistence::None)
            ctlErr() << tr("sluicectl: warning: %1 persists nothing (no save points, no append-only file): a restart "
                           "loses the library and every bucket")
                            .arg(node.node)
                     << Qt::endl;
}

QString historyName(model::DeploymentStatus::History history)
{
    switch (history) {
    case model::DeploymentStatus::History::Published: return QStringLiteral("published");
    case model::DeploymentStatus::History::NeverPublished: return QStringLiteral("never_published");
    case model::DeploymentStatus::History::DataLost: return QStringLiteral("data_lost");
    }
    return {};
}

// Every library a primary runs, with its owner (null for a library that is not Sluice's).
QJsonArray librariesToJson(const QVector<model::LoadedLibrary> &libraries)
{
    QJsonArray list;
    for (const model::LoadedLibrary &library : libraries) {
        QJsonValue owner;
        if (library.owner)
            owner = QJsonObject{{QStringLiteral("namespace"), library.owner->ns},
                                {QStringLiteral("database"), library.owner->database},
                                {QStringLiteral("version"), static_cast<double>(library.version)}};
        list.append(
            QJsonObject{{QStringLiteral("name"), QString::fromLatin1(library.name)}, {QStringLiteral("owner"), owner}});
    }
    return list;
}

QJsonArray nodesToJson(const QVector<NodeLibrary> &nodes)
{
    QJsonArray list;
    for (const NodeLibrary &node : nodes)
        list.append(QJsonObject{{QStringLiteral("node"), node.node},
                                {QStringLiteral("state"), NodeLibrary::stateName(node.state)},
                                {QStringLiteral("version"), static_cast<double>(node.version)},
                                {QStringLiteral("digest"), QString::fromLatin1(node.digest)},
                                {QStringLiteral("detail"), node.detail},
                                {QStringLiteral("persisted"), persistenceName(node.persistence)},
                                {QStringLiteral("libraries"), librariesToJson(node.libraries)}});
    return list;
}

void reportPreview(const CtlRequest &request, const model::PublishPreview &preview)
{
    if (preview.failure)
        return fail(request, *preview.failure);
    for (const model::DamagedPolicy &damaged : preview.damaged)
        ctlErr() << tr("sluicectl: publish: warning: policy \"%1\" is damaged (%2) and would be left out")
                        .arg(damaged.name, damaged.problem)
                 << Qt::endl;
    const model::LimiterLibrary &library = preview.library;
    const qint64 published = preview.published.version;
    static const char *const actions[] = {"create", "update", "delete"};
    auto actionOf
        = [](const model::PolicyDelta &delta) { return QLatin1String(actions[static_cast<int>(delta.kind)]); };
    if (request.json) {
        QJsonArray changes;
        for (const model::PolicyDelta &delta : preview.changes)
            changes.append(QJsonObject{{QStringLiteral("name"), delta.name},
                                       {QStringLiteral("action"), actionOf(delta)},
                                       {QStringLiteral("fields"), fieldChangesToJson(delta.fields)}});
        ctlOut() << QJsonDocument(QJsonObject{{QStringLiteral("version"), static_cast<double>(library.version)},
                                              {QStringLiteral("digest"), QString::fromLatin1(library.digest)},
                                              {QStringLiteral("published_version"), static_cast<double>(published)},
                                              {QStringLiteral("changes_known"), preview.changesKnown()},
                                              {QStringLiteral("changes"), changes},
                                              {QStringLiteral("policy_table"), QString::fromUtf8(library.table)}})
                        .toJson(QJsonDocument::Indented);
        request.finish(ExitOk);
        return;
    }
    ctlOut() << (published == 0 ? tr("would publish version %1 (digest %2), the first in this namespace")
                                      .arg(library.version)
                                      .arg(QString::fromLatin1(library.digest))
                                : tr("would publish version %1 (digest %2) over version %3")
                                      .arg(library.version)
                                      .arg(QString::fromLatin1(library.digest))
                                      .arg(published))
             << Qt::endl;
    if (!preview.changesKnown())
        ctlOut() << tr("version %1 was published before its definitions were recorded: every stored policy is "
                       "listed as created")
                        .arg(published)
                 << Qt::endl;
    if (preview.changes.isEmpty())
        ctlOut() << tr("no policy changes: publishing loads version %1 again on every primary").arg(library.version)
                 << Qt::endl;
    for (const model::PolicyDelta &delta : preview.changes)
        printPolicyChange(actionOf(delta), delta.name, delta.fields);
    ctlOut() << tr("dry run: nothing was loaded") << Qt::endl;
    request.finish(ExitOk);
}

// The flag that lets a refused publish through.
QString overrideHint(const model::PublishAllowance &needs)
{
    if (needs.empty)
        return tr("add --allow-empty to publish a library that serves no policy");
    if (needs.dropInUse)
        return tr("add --allow-drop to drop policies in use");
    return tr("add --take-over to replace it");
}

void reportPublish(const CtlRequest &request, const model::PublishResult &result)
{
    for (const model::DamagedPolicy &damaged : result.damaged)
        ctlErr() << tr("sluicectl: publish: warning: policy \"%1\" is damaged (%2) and is not in the library")
                        .arg(damaged.name, damaged.problem)
                 << Qt::endl;
    if (result.failure && result.failure->kind == model::Failure::Kind::Refused)
        return fail(request,
                    {result.failure->kind, tr("%1 (%2)").arg(result.failure->message, overrideHint(result.needs))},
                    tr("nothing was published"));
    if (result.failure)
        return fail(request, *result.failure, tr("nothing was published"));
    if (request.json) {
        ctlOut() << QJsonDocument(QJsonObject{{QStringLiteral("version"), static_cast<double>(result.library.version)},
                                              {QStringLiteral("digest"), QString::fromLatin1(result.library.digest)},
                                              {QStringLiteral("nodes"), nodesToJson(result.nodes)}})
                        .toJson(QJsonDocument::Indented);
    } else {
        ctlOut() << tr("published version %1 (digest %2)")
                        .arg(result.library.version)
                        .arg(QString::fromLatin1(result.library.digest))
                 << Qt::endl;
        printNodes(result.nodes);
    }
    if (!result.ok())
        ctlErr() << tr("sluicectl: not every primary runs the published library") << Qt::endl;
    request.finish(result.ok() ? ExitOk : ExitDrift);
}

void reportStatus(const CtlRequest &request, const model::DeploymentStatus &status)
{
    if (status.failure)
        return fail(request, *status.failure);
    const model::LibraryRecord &published = status.published;
    const model::DeploymentStatus::History history = status.history();
    if (request.json) {
        QJsonArray damaged;
        for (const model::DamagedPolicy &policy : status.damaged)
            damaged.append(
                QJsonObject{{QStringLiteral("name"), policy.name}, {QStringLiteral("damaged"), policy.problem}});
        ctlOut() << QJsonDocument(
                        QJsonObject{{QStringLiteral("history"), historyName(history)},
                                    {QStringLiteral("stored_policies"), static_cast<double>(status.storedPolicies)},
                                    {QStringLiteral("damaged"), damaged},
                                    {QStringLiteral("version"), static_cast<double>(published.version)},
                                    {QStringLiteral("digest"), QString::fromLatin1(published.digest)},
                                    {QStringLiteral("published_at"), static_cast<double>(published.publishedAtMs)},
                                    {QStringLiteral("published_by"), published.publishedBy},
                                    {QStringLiteral("stored_differs"), status.storedDiffers},
                                    {QStringLiteral("drift"), status.drift()},
                                    {QStringLiteral("library"), QString::fromLatin1(request.owner().libraryName())},
                                    {QStringLiteral("nodes"), nodesToJson(status.nodes)}})
                        .toJson(QJsonDocument::Indented);
    } else {
        ctlOut() << tr("library %1 serves %2; services call %3")
                        .arg(QString::fromLatin1(request.owner().libraryName()), request.owner().describe(),
                             QString::fromLatin1(request.owner().function("acquire")))
                 << Qt::endl;
        if (history == model::DeploymentStatus::History::NeverPublished)
            ctlOut() << tr("never published in namespace \"%1\"; %2 policies stored")
                            .arg(request.ns)
                            .arg(status.storedPolicies)
                     << Qt::endl;
        else if (history == model::DeploymentStatus::History::DataLost)
            ctlOut() << tr("the stored policies, audit log and publish record of namespace \"%1\" are gone, but "
                           "primaries still run a published library: the data was flushed or lost in a restart "
                           "without persistence. Restore it with: sluicectl apply LAST_EXPORT.json, then sluicectl "
                           "publish")
                            .arg(request.ns)
                     << Qt::endl;
        else
            ctlOut() << tr("published version %1 (digest %2), %3 policies, at %4 by %5")
                            .arg(published.version)
                            .arg(QString::fromLatin1(published.digest))
                            .arg(published.policyCount)
                            .arg(QDateTime::fromMSecsSinceEpoch(published.publishedAtMs, Qt::UTC).toString(Qt::ISODate),
                                 published.publishedBy)
                     << Qt::endl;
        if (status.storedDiffers)
            ctlOut() << (history == model::DeploymentStatus::History::Published
                             ? tr("the stored policies differ from the published library: publish to apply them")
                             : tr("the stored policies were never published: publish to serve them"))
                     << Qt::endl;
        for (const model::DamagedPolicy &policy : status.damaged)
            ctlOut() << tr("policy \"%1\" is damaged (%2) and cannot be published until apply repairs it")
                            .arg(policy.name, policy.problem)
                     << Qt::endl;
        printNodes(status.nodes);
        if (history == model::DeploymentStatus::History::NeverPublished && status.persistsNothing())
            ctlErr() << tr("sluicectl: status: if policies were published here before a restart, they were lost "
                           "with the data; restore them with sluicectl apply LAST_EXPORT.json, then publish")
                     << Qt::endl;
    }
    if (status.drift())
        ctlErr() << tr("sluicectl: drift: not every primary runs the published library; publish to restore it")
                 << Qt::endl;
    request.finish(status.drift() ? ExitDrift : ExitOk);
}

} // namespace

void runPublish(const CtlRequest &request)
{
    const LibraryPublisher publisher(request.client, request.owner(),
                                     {request.allowEmpty, request.allowDrop, request.takeOver});
    auto *app = QCoreApplication::instance();
    if (request.dryRun)
        publisher.preview(app, [request](const model::PublishPreview &preview) { reportPreview(request, preview); });
    else
        publisher.publish(request.who, app,
                          [request](const model::PublishResult &result) { reportPublish(request, result); });
}

void runStatus(const CtlRequest &request)
{
    LibraryPublisher(request.client, request.owner())
        .status(QCoreApplication::instance(),
                [request](const model::DeploymentStatus &status) { reportStatus(request, status); });
}

void runAcquire(const CtlRequest &request)
{
    const QString policy = request.args.at(0);
    const QByteArray subject = request.args.at(1).toUtf8();
    if (!model::isValidSubject(subject))
        return failUsage(request, tr("a subject is 1 to %1 bytes and has no { or }").arg(model::maxSubjectBytes));
    const QByteArray key = model::bucketKey(request.ns, policy, subject);
    QByteArrayList command{"FCALL", request.owner().function("acquire"), "1", key, policy.toUtf8()};
    if (!request.cost.isEmpty())
        command << request.cost.toUtf8();
    request.client->send(command, QCoreApplication::instance(), [request](const redis::RedisReply &reply) {
        const QVector<redis::RespValue> &fields = reply.value.elements;
        if (!reply.ok() || fields.size() < 6)
            return fail(request, model::Failure::fromWriteReply(reply));
        // One policy: a seventh element is the concurrency lease id or the leaky bucket's delay.
        QStringList names{QStringLiteral("allowed"),        QStringLiteral("remaining"),
                          QStringLiteral("retry_after_ms"), QStringLiteral("reset_after_ms"),
                          QStringLiteral("limit"),          QStringLiteral("policy")};
        if (fields.size() > 6)
            names << (fields.at(6).isInteger() ? QStringLiteral("delay_ms") : QStringLiteral("lease"));
        QJsonObject object;
        for (qsizetype i = 0; i < names.size(); ++i) {
            const redis::RespValue &field = fields.at(i);
            const QJsonValue value = i == 0 ? QJsonValue(field.integer == 1)
                : field.isInteger()         ? QJsonValue(static_cast<double>(field.integer))
                                            : QJsonValue(QString::fromUtf8(field.bytes));
            object.insert(names.at(i), value);
            // retry_after_ms -2 (the JSON keeps it, as the library replies): the call's cost is above what the
            // policy admits at once, so no wait lets it pass.
            const bool never = i == 2 && field.integer == model::retryNeverMs;
            if (!request.json)
                ctlOut() << QStringLiteral("%1  %2")
                                .arg(names.at(i), -15)
                                .arg(never ? tr("never (cost above what the policy admits at once)")
                                           : value.toVariant().toString())
                         << Qt::endl;
        }
        if (request.json)
            ctlOut() << QJsonDocument(object).toJson(QJsonDocument::Compact) << Qt::endl;
        request.finish(fields.at(0).integer == 1 ? ExitOk : ExitRejected);
    });
}

} // namespace sluice::app
