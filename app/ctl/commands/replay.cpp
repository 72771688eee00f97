// SPDX-License-Identifier: GPL-3.0-or-later
// sluicectl replay: what candidate policies would have done with the requests of real access logs.

#include "app/common/exit_codes.h"
#include "app/ctl/ctl_commands.h"
#include "app/ctl/ctl_log_input.h"
#include "app/ctl/ctl_policies.h"
#include "app/ctl/ctl_request.h"
#include "app/ctl/text_table.h"
#include "model/format/subject_text.h"
#include "model/format/units.h"
#include "model/policy/lists_store.h"
#include "model/policy/policy_file.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>

namespace sluice::app {

namespace {

const TextTable candidateTable({{"CANDIDATE", -16},
                                {"ALGORITHM", -14},
                                {"LIMIT", 10},
                                {"WINDOW", 9},
                                {"BURST", 10},
                                {"REJECTED", 20},
                                {"SUBJECTS REJECTED", 20}},
                               2);

QString countAndShare(quint64 count, double share)
{
    return QStringLiteral("%1 (%2)").arg(model::formatCount(qint64(count)), model::formatShare(share));
}

QJsonObject outcomeJson(const model::CandidateOutcome &outcome)
{
    QJsonArray top;
    for (const model::ReplayedSubject &subject : outcome.topRejected)
        top << QJsonObject{{QStringLiteral("subject"), model::subjectText(subject.subject)},
                           {QStringLiteral("rejected"), qint64(subject.rejected)}};
    QJsonArray overTime;
    for (qsizetype bin = 0; bin < outcome.requestsPerBin.size(); ++bin)
        overTime << QJsonObject{{QStringLiteral("from_ms"), outcome.firstMs + bin * outcome.binMs},
                                {QStringLiteral("requests"), qint64(outcome.requestsPerBin.at(bin))},
                                {QStringLiteral("rejected"), qint64(outcome.rejectedPerBin.at(bin))}};
    QJsonArray peakUse;
    for (const quint64 count : outcome.subjectsByPeakUse)
        peakUse << qint64(count);
    const model::Policy &policy = outcome.policy;
    return {{QStringLiteral("name"), policy.name},
            {QStringLiteral("algorithm"), model::algorithmName(policy.algorithm)},
            {QStringLiteral("limit"), policy.limit},
            {QStringLiteral("window_ms"), policy.windowMs},
            {QStringLiteral("burst"), policy.effectiveBurst()},
            {QStringLiteral("requests"), qint64(outcome.requests)},
            {QStringLiteral("rejected"), qint64(outcome.rejected)},
            {QStringLiteral("rejected_share"), outcome.rejectedShare()},
            {QStringLiteral("subjects_rejected"), qint64(outcome.subjectsRejected)},
            {QStringLiteral("subjects_rejected_share"), outcome.subjectsRejectedShare()},
            {QStringLiteral("top_rejected"), top},
            {QStringLiteral("bin_ms"), outcome.binMs},
            {QStringLiteral("over_time"), overTime},
            {QStringLiteral("subjects_by_peak_use"), peakUse}};
}

void printOutcomes(const CtlRequest &request, const model::ReplayJob &job)
{
    const QVector<model::CandidateOutcome> outcomes = job.outcomes();
    if (request.isSet("json")) {
        QJsonObject document = readSummaryJson(job.stats(), job.subjects().size());
        QJsonArray candidates;
        for (const model::CandidateOutcome &outcome : outcomes)
            candidates << outcomeJson(outcome);
        document.insert(QStringLiteral("candidates"), candidates);
        ctlOut() << QJsonDocument(document).toJson(QJsonDocument::Indented);
        return;
    }
    printReadSummary(request, job.stats(), job.subjects().size());
    ctlOut() << Qt::endl << candidateTable.header() << Qt::endl;
    for (const model::CandidateOutcome &outcome : outcomes) {
        const model::Policy &policy = outcome.policy;
        ctlOut() << candidateTable.row({policy.name, model::algorithmName(policy.algorithm),
                                        model::formatCount(policy.limit), model::formatWait(policy.windowMs),
                                        model::algorithmUsesBurst(policy.algorithm)
                                            ? model::formatCount(policy.effectiveBurst())
                                            : QStringLiteral("-"),
                                        countAndShare(outcome.rejected, outcome.rejectedShare()),
                                        countAndShare(outcome.subjectsRejected, outcome.subjectsRejectedShare())})
                 << Qt::endl;
    }
    for (const model::CandidateOutcome &outcome : outcomes) {
        if (outcome.topRejected.isEmpty())
            continue;
        QStringList most;
        for (const model::ReplayedSubject &subject : outcome.topRejected)
            most << QStringLiteral("%1 (%2)").arg(model::subjectText(subject.subject),
                                                  model::formatCount(qint64(subject.rejected)));
        ctlOut() << Ctl::tr("%1: most rejected: %2").arg(outcome.policy.name, most.join(QLatin1String(", ")))
                 << Qt::endl;
    }
}

void replayAgainst(const CtlRequest &request, model::ReplayRequest replay, const QVector<model::Policy> &candidates)
{
    if (candidates.isEmpty())
        return failUsage(request, Ctl::tr("name the candidates: --policy NAME or --define FILE"));
    replay.candidates = candidates;
    auto job = std::make_shared<model::ReplayJob>(replay);
    runReplay(request, job, [request, job] {
        printOutcomes(request, *job);
        request.finish(ExitOk);
    });
}

// The policies of a policy file, or the problems that make it unusable.
std::optional<QVector<model::Policy>> definedPolicies(const CtlRequest &request)
{
    const QString path = request.option("define");
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        fail(request, model::Failure::invalid(Ctl::tr("cannot read %1: %2").arg(path, file.errorString())));
        return std::nullopt;
    }
    const model::PolicyFile parsed = model::PolicyFile::parse(file.read(16 * 1024 * 1024));
    if (!parsed.ok()) {
        QStringList problems;
        for (const model::PolicyError &error : parsed.errors)
            problems << Ctl::tr("%1: %2").arg(path, error.toString());
        fail(request, model::Failure::invalid(problems.join(QLatin1Char('\n'))));
        return std::nullopt;
    }
    return parsed.policies;
}

void runReplayCommand(const CtlRequest &request)
{
    QString problem;
    const std::optional<model::ReplayRequest> replay = readReplayRequest(request, &problem);
    if (!replay)
        return failUsage(request, problem);
    QVector<model::Policy> candidates;
    if (request.isSet("define")) {
        const auto defined = definedPolicies(request);
        if (!defined)
            return;
        candidates = *defined;
    }
    const QStringList named = request.optionValues("policy");
    if (named.isEmpty())
        return replayAgainst(request, *replay, candidates);
    withStoredPolicies(request, [request, replay = *replay, candidates, named](const auto &stored) mutable {
        for (const QString &name : named) {
            const auto found = std::find_if(stored.policies.cbegin(), stored.policies.cend(),
                                            [&](const model::Policy &policy) { return policy.name == name; });
            if (found == stored.policies.cend())
                return fail(request,
                            model::Failure::invalid(
                                Ctl::tr("no stored policy is named \"%1\" in namespace %2").arg(name, request.ns)));
            candidates.append(*found);
        }
        // Connected: the namespace's lists too, which the stored policies apply once published.
        model::ListsStore(request.client, request.ns)
            .read(QCoreApplication::instance(),
                  [request, replay, candidates](const model::ListsStore::ReadResult &lists) mutable {
            if (lists.failure)
                return fail(request, *lists.failure);
            replay.namespaceLists = lists.lists.entries;
            replayAgainst(request, replay, candidates);
            });
    });
}

} // namespace

CtlCommand replayCommand()
{
    return {QStringLiteral("replay"),
            CommandGroup::Policies,
            1,
            1000,
            Access::ReadsWhenNamed,
            QStringLiteral("LOG..."),
            Ctl::tr("replay access logs against candidate policies"),
            Ctl::tr("Replay every request of the access logs (nginx or Apache combined, an nginx log_format, JSON "
                    "lines or CSV; gzip-compressed or not; - for standard input) at its logged time through the "
                    "exact model of each candidate policy, and say what each would have rejected: requests and "
                    "subjects, the most rejected subjects, rejections over time. Candidates are stored policies "
                    "(--policy) or a policy file's (--define, which needs no server)."),
            optionNames({"format", "log-format", "subject", "time", "cost", "route", "reorder-window", "max-subjects",
                         "policy", "define", "json"}),
            {{QStringLiteral("replay access.log --define candidates.json"),
              Ctl::tr("what the file's policies would have done with yesterday's traffic")},
             {QStringLiteral("replay access.log.2.gz access.log.1 access.log --policy api --route '^POST /login'"),
              Ctl::tr("the stored policy api against the login requests of three rotated logs")},
             {QStringLiteral("replay gateway.jsonl --subject request.user --time ts --policy api --json"),
              Ctl::tr("a JSON gateway log, by user")}},
            runReplayCommand};
}

} // namespace sluice::app
