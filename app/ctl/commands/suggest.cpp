// SPDX-License-Identifier: GPL-3.0-or-later
// sluicectl suggest: the smallest limit that would have rejected at most a target share of real traffic.

#include "app/common/exit_codes.h"
#include "app/ctl/ctl_commands.h"
#include "app/ctl/ctl_log_input.h"
#include "app/ctl/ctl_request.h"
#include "model/format/units.h"
#include "model/replay/limit_suggestion.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <cmath>

namespace sluice::app {

namespace {

struct SuggestOptions {
    model::LimitFamily family;
    double target = 0;
    bool ofSubjects = false;
};

// "1%", "0.5%" or "0.01" as a fraction from 0 to 1.
std::optional<double> readShare(const QString &text)
{
    bool ok = false;
    const bool percent = text.trimmed().endsWith(QLatin1Char('%'));
    double value = (percent ? text.trimmed().chopped(1) : text.trimmed()).toDouble(&ok);
    if (percent)
        value /= 100.0;
    if (!ok || !std::isfinite(value) || value < 0 || value > 1)
        return std::nullopt;
    return value;
}

std::optional<SuggestOptions> readSuggestOptions(const CtlRequest &request, QString *problem)
{
    SuggestOptions options;
    const auto algorithm = model::algorithmFromName(request.option("algorithm"));
    if (!algorithm) {
        *problem = Ctl::tr("--algorithm is one of %1").arg(model::algorithmNames().join(QLatin1String(", ")));
        return std::nullopt;
    }
    options.family.algorithm = *algorithm;
    const auto window = model::parseDurationMs(request.option("window"));
    if (!window || *window < 1 || *window > model::policy_limits::maxWindowMs) {
        *problem = Ctl::tr("--window is a duration from 1ms to 7d (500ms, 30s, 1m, 1h), not \"%1\"")
                       .arg(request.option("window"));
        return std::nullopt;
    }
    options.family.windowMs = *window;
    if (request.isSet("burst") && request.isSet("burst-factor")) {
        *problem = Ctl::tr("give --burst or --burst-factor, not both");
        return std::nullopt;
    }
    if (request.isSet("burst")) {
        bool ok = false;
        options.family.burst = request.option("burst").toLongLong(&ok);
        if (!ok || options.family.burst < 1 || options.family.burst > model::policy_limits::maxBurst) {
            *problem = Ctl::tr("--burst is a whole number from 1 to %1").arg(model::policy_limits::maxBurst);
            return std::nullopt;
        }
    }
    if (request.isSet("burst-factor")) {
        bool ok = false;
        options.family.burstFactor = request.option("burst-factor").toDouble(&ok);
        if (!ok || !(options.family.burstFactor >= 0.01 && options.family.burstFactor <= 1000)) {
            *problem = Ctl::tr("--burst-factor is a number from 0.01 to 1000, not \"%1\"")
                           .arg(request.option("burst-factor"));
            return std::nullopt;
        }
    }
    const auto target = readShare(request.option("reject-at-most"));
    if (!target) {
        *problem = Ctl::tr("--reject-at-most is a share from 0 to 1 or a percentage (0.01 or 1%), not \"%1\"")
                       .arg(request.option("reject-at-most"));
        return std::nullopt;
    }
    options.target = *target;
    const QString of = request.isSet("of") ? request.option("of") : QStringLiteral("requests");
    if (of != QLatin1String("requests") && of != QLatin1String("subjects")) {
        *problem = Ctl::tr("--of is requests or subjects, not \"%1\"").arg(of);
        return std::nullopt;
    }
    options.ofSubjects = of == QLatin1String("subjects");
    return options;
}

QJsonObject suggestionJson(const SuggestOptions &options, const model::Suggestion &suggestion)
{
    QJsonArray curve;
    for (const model::CurvePoint &point : suggestion.curve)
        curve << QJsonObject{{QStringLiteral("limit"), point.limit},
                             {QStringLiteral("rejected_share"), point.rejectedShare}};
    const model::RatePercentiles &p = suggestion.percentiles;
    const model::Policy policy = options.family.policyAt(suggestion.limit.value_or(0));
    return {{QStringLiteral("suggested_limit"), suggestion.limit ? QJsonValue(*suggestion.limit) : QJsonValue()},
            {QStringLiteral("algorithm"), model::algorithmName(options.family.algorithm)},
            {QStringLiteral("window_ms"), options.family.windowMs},
            {QStringLiteral("burst"),
             suggestion.limit && model::algorithmUsesBurst(policy.algorithm) ? QJsonValue(policy.effectiveBurst())
                                                                             : QJsonValue()},
            {QStringLiteral("target"), options.target},
            {QStringLiteral("of"), options.ofSubjects ? QStringLiteral("subjects") : QStringLiteral("requests")},
            {QStringLiteral("curve"), curve},
            {QStringLiteral("percentiles"),
             QJsonObject{{QStringLiteral("p50"), p.p50},
                         {QStringLiteral("p90"), p.p90},
                         {QStringLiteral("p99"), p.p99},
                         {QStringLiteral("p99.9"), p.p999},
                         {QStringLiteral("max"), p.max}}},
            {QStringLiteral("passes"), suggestion.passes}};
}

void printSuggestion(const SuggestOptions &options, const model::Suggestion &suggestion)
{
    const QString of = options.ofSubjects ? Ctl::tr("subjects") : Ctl::tr("requests");
    const QString family
        = QStringLiteral("%1 per %2")
              .arg(model::algorithmName(options.family.algorithm), model::formatWait(options.family.windowMs));
    if (suggestion.limit) {
        const model::Policy policy = options.family.policyAt(*suggestion.limit);
        ctlOut() << Ctl::tr("suggested limit: %1 (%2%3), rejecting at most %4 of %5")
                        .arg(model::formatCount(*suggestion.limit), family,
                             model::algorithmUsesBurst(policy.algorithm)
                                 ? Ctl::tr(", burst %1").arg(model::formatCount(policy.effectiveBurst()))
                                 : QString(),
                             model::formatShare(options.target), of)
                 << Qt::endl;
    } else {
        ctlOut() << Ctl::tr("no limit up to the largest a policy takes rejects at most %1 of %2 (%3)")
                        .arg(model::formatShare(options.target), of, family)
                 << Qt::endl;
    }
    const model::RatePercentiles &p = suggestion.percentiles;
    ctlOut() << Ctl::tr("units per subject in its busiest window: p50 %1, p90 %2, p99 %3, p99.9 %4, max %5")
                    .arg(model::formatCount(p.p50), model::formatCount(p.p90), model::formatCount(p.p99),
                         model::formatCount(p.p999), model::formatCount(p.max))
             << Qt::endl
             << Ctl::tr("limit -> share of %1 rejected (%2 replays):").arg(of).arg(suggestion.passes) << Qt::endl;
    for (const model::CurvePoint &point : suggestion.curve)
        ctlOut() << QStringLiteral("  %1  %2%3")
                        .arg(model::formatCount(point.limit), 12)
                        .arg(model::formatShare(point.rejectedShare), 8)
                        .arg(suggestion.limit == point.limit ? Ctl::tr("  <- suggested") : QString())
                 << Qt::endl;
}

void runSuggest(const CtlRequest &request)
{
    QString problem;
    std::optional<model::ReplayRequest> replay = readReplayRequest(request, &problem);
    const std::optional<SuggestOptions> options = replay ? readSuggestOptions(request, &problem) : std::nullopt;
    if (!replay || !options)
        return failUsage(request, problem);
    replay->keepArrivals = true;
    auto job = std::make_shared<model::ReplayJob>(*replay);
    runReplay(request, job, [request, job, options = *options] {
        if (!request.isSet("json"))
            printReadSummary(request, job->stats(), job->subjects().size());
        model::LimitSuggester suggester(job->arrivals(), job->subjects(), options.family);
        const std::optional<model::Suggestion> suggestion = suggester.suggest(options.target, options.ofSubjects);
        if (request.isSet("json")) {
            QJsonObject document = suggestionJson(options, *suggestion);
            document.insert(QStringLiteral("read"), readSummaryJson(job->stats(), job->subjects().size()));
            ctlOut() << QJsonDocument(document).toJson(QJsonDocument::Indented);
        } else {
            printSuggestion(options, *suggestion);
        }
        request.finish(ExitOk);
    });
}

} // namespace

CtlCommand suggestCommand()
{
    return {QStringLiteral("suggest"),
            CommandGroup::Policies,
            1,
            1000,
            Access::Offline,
            QStringLiteral("LOG..."),
            Ctl::tr("suggest a limit from access logs"),
            Ctl::tr("Replay the access logs (read as replay reads them) at many limits of one algorithm, window and "
                    "burst rule, and print the smallest limit that would have rejected at most the target share of "
                    "requests (or of subjects), the curve from limit to share rejected, and the percentiles of "
                    "each subject's busiest window that explain it. Replaying at the suggested limit meets the "
                    "target; one less does not."),
            optionNames({"format", "log-format", "subject", "time", "cost", "route", "reorder-window", "max-subjects",
                         "algorithm", "window", "burst", "burst-factor", "reject-at-most", "of", "json"}),
            {{QStringLiteral("suggest access.log --algorithm token_bucket --window 1m --reject-at-most 0.1% --of "
                             "subjects"),
              Ctl::tr("a per-minute token bucket that would have stopped at most one client in a thousand")},
             {QStringLiteral("suggest api.csv --algorithm fixed_window --window 1h --reject-at-most 1% --json"),
              Ctl::tr("an hourly quota, as JSON for a script")}},
            runSuggest};
}

} // namespace sluice::app
