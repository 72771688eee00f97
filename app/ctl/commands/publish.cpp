// SPDX-License-Identifier: GPL-3.0-or-later
// sluicectl publish: the stored policies compiled into the limiter library, loaded on every primary.

#include "app/common/exit_codes.h"
#include "app/ctl/ctl_commands.h"
#include "app/ctl/ctl_nodes.h"
#include "app/ctl/ctl_policies.h"
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

void reportPreview(const CtlRequest &request, const model::PublishPreview &preview)
{
    if (preview.failure)
        return fail(request, *preview.failure);
    for (const model::DamagedPolicy &damaged : preview.damaged)
        ctlErr() << Ctl::tr("sluicectl: publish: warning: policy \"%1\" is damaged (%2) and would be left out")
                        .arg(damaged.name, damaged.problem)
                 << Qt::endl;
    const model::LimiterLibrary &library = preview.library;
    const qint64 published = preview.published.version;
    static const char *const actions[] = {"create", "update", "delete"};
    auto actionOf
        = [](const model::PolicyDelta &delta) { return QLatin1String(actions[static_cast<int>(delta.kind)]); };
    if (request.isSet("json")) {
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
                                              {QStringLiteral("lists_removed"), preview.listChanges.before},
                                              {QStringLiteral("lists_added"), preview.listChanges.after},
                                              {QStringLiteral("policy_table"), QString::fromUtf8(library.table)}})
                        .toJson(QJsonDocument::Indented);
        request.finish(ExitOk);
        return;
    }
    ctlOut() << (published == 0 ? Ctl::tr("would publish version %1 (digest %2), the first in this namespace")
                                      .arg(library.version)
                                      .arg(QString::fromLatin1(library.digest))
                                : Ctl::tr("would publish version %1 (digest %2) over version %3")
                                      .arg(library.version)
                                      .arg(QString::fromLatin1(library.digest))
                                      .arg(published))
             << Qt::endl;
    if (!preview.changesKnown())
        ctlOut() << Ctl::tr("version %1 was published before its definitions were recorded: every stored policy is "
                            "listed as created")
                        .arg(published)
                 << Qt::endl;
    const model::OverrideChanges &lists = preview.listChanges;
    if (preview.changes.isEmpty() && lists.isEmpty())
        ctlOut()
            << Ctl::tr("no policy changes: publishing loads version %1 again on every primary").arg(library.version)
            << Qt::endl;
    for (const model::PolicyDelta &delta : preview.changes)
        printPolicyChange(actionOf(delta), delta.name, delta.fields);
    if (!lists.before.isEmpty())
        ctlOut() << Ctl::tr("lists    removed %1").arg(lists.before) << Qt::endl;
    if (!lists.after.isEmpty())
        ctlOut() << Ctl::tr("lists    added %1").arg(lists.after) << Qt::endl;
    ctlOut() << Ctl::tr("dry run: nothing was loaded") << Qt::endl;
    request.finish(ExitOk);
}

// The flag that lets a refused publish through.
QString overrideHint(const model::PublishAllowance &needs)
{
    if (needs.empty)
        return Ctl::tr("add --allow-empty to publish a library that serves no policy");
    if (needs.dropInUse)
        return Ctl::tr("add --allow-drop to drop policies in use");
    return Ctl::tr("add --take-over to replace it");
}

void reportPublish(const CtlRequest &request, const model::PublishResult &result)
{
    for (const model::DamagedPolicy &damaged : result.damaged)
        ctlErr() << Ctl::tr("sluicectl: publish: warning: policy \"%1\" is damaged (%2) and is not in the library")
                        .arg(damaged.name, damaged.problem)
                 << Qt::endl;
    if (result.failure && result.failure->kind == model::Failure::Kind::Refused)
        return fail(request,
                    {result.failure->kind, Ctl::tr("%1 (%2)").arg(result.failure->message, overrideHint(result.needs))},
                    Ctl::tr("nothing was published"));
    if (result.failure)
        return fail(request, *result.failure, Ctl::tr("nothing was published"));
    if (request.isSet("json")) {
        ctlOut() << QJsonDocument(QJsonObject{{QStringLiteral("version"), static_cast<double>(result.library.version)},
                                              {QStringLiteral("digest"), QString::fromLatin1(result.library.digest)},
                                              {QStringLiteral("nodes"), nodesToJson(result.nodes)}})
                        .toJson(QJsonDocument::Indented);
    } else {
        ctlOut() << Ctl::tr("published version %1 (digest %2)")
                        .arg(result.library.version)
                        .arg(QString::fromLatin1(result.library.digest))
                 << Qt::endl;
        printNodes(result.nodes);
    }
    if (!result.ok())
        ctlErr() << Ctl::tr("sluicectl: not every primary runs the published library") << Qt::endl;
    request.finish(result.ok() ? ExitOk : ExitDrift);
}

void runPublish(const CtlRequest &request)
{
    const LibraryPublisher publisher(
        request.client, request.owner(),
        {request.isSet("allow-empty"), request.isSet("allow-drop"), request.isSet("take-over")});
    auto *app = QCoreApplication::instance();
    if (request.isSet("dry-run"))
        publisher.preview(app, [request](const model::PublishPreview &preview) { reportPreview(request, preview); });
    else
        publisher.publish(request.who, app,
                          [request](const model::PublishResult &result) { reportPublish(request, result); });
}

} // namespace

CtlCommand publishCommand()
{
    CtlCommand command{
        QStringLiteral("publish"),
        CommandGroup::Deployment,
        0,
        0,
        Access::WritesUnlessDryRun,
        QString(),
        Ctl::tr("load the policies' limiter library on every primary"),
        Ctl::tr(
            "Compile the stored policies into the namespace's limiter library and load it on every primary. Refuses "
            "a library that serves no policy, drops policies in use or replaces a library it did not publish, "
            "unless allowed (exit 8)."),
        optionNames({"dry-run", "allow-empty", "allow-drop", "take-over", "json"}),
        {{QStringLiteral("publish --dry-run"),
          Ctl::tr("show what a publish would change against the published version, field by field (--json adds "
                  "the generated policy table)")},
         {QStringLiteral("publish"), Ctl::tr("load it on every primary")},
         {QStringLiteral("publish --take-over"), Ctl::tr("replace a library another owner published")}},
        runPublish};
    command.checkAfterLostAnswer = QStringLiteral("sluicectl status");
    return command;
}

} // namespace sluice::app
