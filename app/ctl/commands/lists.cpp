// SPDX-License-Identifier: GPL-3.0-or-later
// sluicectl lists: the namespace's allow and deny lists, shown and changed (audited).

#include "app/common/exit_codes.h"
#include "app/ctl/ctl_commands.h"
#include "app/ctl/ctl_request.h"
#include "app/ctl/text_table.h"
#include "model/policy/lists_store.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace sluice::app {

using model::ListsStore;
using model::SubjectOverride;

namespace {

void printLists(const CtlRequest &request, const model::NamespaceLists &lists)
{
    if (request.isSet("json")) {
        const QJsonObject object{{QStringLiteral("version"), static_cast<double>(lists.version)},
                                 {QStringLiteral("updated_at"), static_cast<double>(lists.updatedAtMs)},
                                 {QStringLiteral("updated_by"), lists.updatedBy},
                                 {QStringLiteral("entries"), model::overridesToJson(lists.entries)}};
        ctlOut() << QJsonDocument(object).toJson(QJsonDocument::Indented);
        return;
    }
    if (lists.entries.isEmpty()) {
        ctlOut() << Ctl::tr("the lists of namespace \"%1\" are empty").arg(request.ns) << Qt::endl;
        return;
    }
    const TextTable table({{"PATTERN", -40}, {"LIST", 0}}, 2);
    ctlOut() << table.header() << Qt::endl;
    for (const SubjectOverride &entry : lists.entries)
        ctlOut() << table.row(
            {entry.printablePattern(),
             entry.kind == SubjectOverride::Kind::Allow ? QStringLiteral("allow") : QStringLiteral("deny")})
                 << Qt::endl;
    ctlOut() << Ctl::tr("version %1, saved %2 by %3")
                    .arg(lists.version)
                    .arg(QDateTime::fromMSecsSinceEpoch(lists.updatedAtMs, Qt::UTC).toString(Qt::ISODate),
                         lists.updatedBy)
             << Qt::endl;
}

// The entries after `verb` with `arguments`, or nullopt after reporting a usage error.
std::optional<QVector<SubjectOverride>> changedEntries(const CtlRequest &request, QVector<SubjectOverride> entries,
                                                       const QString &verb, const QStringList &arguments)
{
    if (verb == QLatin1String("import")) {
        QString problem;
        std::optional<QVector<SubjectOverride>> read = model::rulesFromCsvFile(arguments.first(), false, &problem);
        if (!read)
            failUsage(request, problem);
        return read;
    }
    for (const QString &written : arguments) {
        QString problem;
        std::optional<SubjectOverride> pattern = model::patternFromWritten(written, &problem);
        if (!pattern) {
            failUsage(request, problem);
            return std::nullopt;
        }
        const auto same = [&](const SubjectOverride &entry) {
            return entry.pattern == pattern->pattern && entry.prefix == pattern->prefix;
        };
        entries.erase(std::remove_if(entries.begin(), entries.end(), same), entries.end());
        if (verb != QLatin1String("remove")) {
            pattern->kind = verb == QLatin1String("allow") ? SubjectOverride::Kind::Allow : SubjectOverride::Kind::Deny;
            entries.append(*pattern);
        }
    }
    std::sort(entries.begin(), entries.end());
    return entries;
}

void runLists(const CtlRequest &request)
{
    const QString verb = request.args.value(0);
    const QStringList arguments = request.args.mid(1);
    const QStringList verbs{QStringLiteral("allow"), QStringLiteral("deny"), QStringLiteral("remove"),
                            QStringLiteral("import")};
    if (!verb.isEmpty() && !verbs.contains(verb))
        return failUsage(request, Ctl::tr("\"%1\" is not allow, deny, remove or import").arg(verb));
    if (!verb.isEmpty() && (arguments.isEmpty() || (verb == QLatin1String("import") && arguments.size() != 1)))
        return failUsage(request,
                         verb == QLatin1String("import") ? Ctl::tr("import takes one CSV file")
                                                         : Ctl::tr("%1 takes one or more patterns").arg(verb));
    whenReady(request, [=] {
        const ListsStore store(request.client, request.ns);
        store.read(QCoreApplication::instance(), [=](const ListsStore::ReadResult &read) {
            if (read.failure)
                return fail(request, *read.failure);
            if (verb.isEmpty()) {
                printLists(request, read.lists);
                return request.finish(ExitOk);
            }
            const std::optional<QVector<SubjectOverride>> entries
                = changedEntries(request, read.lists.entries, verb, arguments);
            if (!entries)
                return;
            const model::OverrideChanges changes = model::overrideChanges(read.lists.entries, *entries);
            if (changes.isEmpty()) {
                ctlOut() << Ctl::tr("nothing to change: the lists are as asked (version %1)").arg(read.lists.version)
                         << Qt::endl;
                return request.finish(ExitOk);
            }
            store.commit(*entries, read.lists.version, request.who, QCoreApplication::instance(),
                         [=](const ListsStore::CommitResult &saved) {
                if (saved.failure)
                    return fail(request, *saved.failure, Ctl::tr("the lists were not changed"));
                if (!changes.before.isEmpty())
                    ctlOut() << Ctl::tr("removed  %1").arg(changes.before) << Qt::endl;
                if (!changes.after.isEmpty())
                    ctlOut() << Ctl::tr("added    %1").arg(changes.after) << Qt::endl;
                ctlOut() << Ctl::tr("saved the lists as version %1 (recorded in the audit log); publish to put "
                                    "them in force")
                                .arg(saved.version)
                         << Qt::endl;
                request.finish(ExitOk);
            });
        });
    });
}

} // namespace

CtlCommand listsCommand()
{
    CtlCommand command{
        QStringLiteral("lists"),
        CommandGroup::Policies,
        0,
        10'000,
        Access::WritesWhenGivenArguments,
        QStringLiteral("[allow|deny|remove PATTERN... | import FILE.csv]"),
        Ctl::tr("show or change the namespace's allow and deny lists"),
        Ctl::tr("Show the namespace's allow and deny lists: subjects every policy admits without counting, or always "
                "rejects (retry_after_ms -3). A pattern is a subject, or a prefix ending in * (\\* for a subject "
                "ending in *); a policy's own override with a longer pattern wins. allow, deny and remove change "
                "them; import replaces them with a CSV file's lines (pattern,allow or pattern,deny). Each change is "
                "audited; publish puts it in force."),
        optionNames({"json"}),
        {{QStringLiteral("lists"), Ctl::tr("the lists, as a table")},
         {QStringLiteral("lists deny abuser-7 'scraper-*'"), Ctl::tr("reject a subject and a prefix in every policy")},
         {QStringLiteral("lists allow health-check"), Ctl::tr("admit a subject in every policy, uncounted")},
         {QStringLiteral("lists remove abuser-7"), Ctl::tr("take a pattern off the lists")},
         {QStringLiteral("lists import lists.csv"), Ctl::tr("replace the lists with a file's")}},
        runLists};
    command.checkAfterLostAnswer = QStringLiteral("sluicectl lists; sluicectl history");
    return command;
}

} // namespace sluice::app
