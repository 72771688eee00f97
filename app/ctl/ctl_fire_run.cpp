// SPDX-License-Identifier: GPL-3.0-or-later
// What sluicectl fire and bench run: the test-fire panel in a terminal, on the same engine.

#include "app/ctl/ctl_fire_run.h"

#include "app/common/exit_codes.h"
#include "app/ctl/ctl_request.h"
#include "app/ctl/text_table.h"
#include "model/files/own_files.h"
#include "model/fire/fire_engine.h"
#include "model/policy/lists_store.h"
#include "model/policy/policy_store.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonObject>

#include <memory>

namespace sluice::app {

namespace {

QString ms(qint64 microseconds)
{
    return QString::number(microseconds / 1000.0, 'f', 3);
}

// The targets the arguments name, seed scripts as given and policies as stored; `done` gets them,
// or the command fails.
// The policy targets with the namespace's lists, which the library applies on their own keys.
void addNamespaceLists(const CtlRequest &request, QVector<model::FireTarget> targets,
                       std::function<void(QVector<model::FireTarget>)> done)
{
    model::ListsStore(request.client, request.ns)
        .read(QCoreApplication::instance(), [=](const model::ListsStore::ReadResult &lists) mutable {
            if (lists.failure)
                return fail(request, *lists.failure);
            for (model::FireTarget &target : targets)
                target.namespaceLists = lists.lists.entries;
            done(targets);
        });
}

void resolveTargets(const CtlRequest &request, std::function<void(QVector<model::FireTarget>)> done)
{
    auto targets = std::make_shared<QVector<model::FireTarget>>(request.args.size());
    auto pending = std::make_shared<int>(0);
    for (int i = 0; i < request.args.size(); ++i) {
        const QString &name = request.args.at(i);
        if (model::FireTarget::looksLikeSeedSpec(name)) {
            QString problem;
            const auto seed = model::FireTarget::fromSeedSpec(name, &problem);
            if (!seed)
                return failUsage(request, problem);
            (*targets)[i] = *seed;
            (*targets)[i].clockSkewMs = model::seedLayoutReadsCallerClock(seed->layout) ? request.fire.clockSkewMs : 0;
        } else if (!model::isValidPolicyName(name)) {
            return failUsage(
                request,
                Ctl::tr("\"%1\" is neither a policy name nor a seed script (scg_token_bucket:RATE:CAPACITY, "
                        "fixed_window_counter:LIMIT:WINDOW_SECONDS, ms_token_bucket:RATE:CAPACITY, "
                        "interval_token_bucket:CAPACITY:ADD:INTERVAL_SECONDS)")
                    .arg(name));
        } else {
            ++*pending;
        }
    }
    if (request.fire.clockSkewMs > 0 && std::none_of(targets->begin(), targets->end(), [](const model::FireTarget &t) {
            return t.kind == model::FireTarget::Kind::SeedScript && model::seedLayoutReadsCallerClock(t.layout);
        }))
        return failUsage(request,
                         Ctl::tr("--clock-skew is for ms_token_bucket and interval_token_bucket targets, which "
                                 "read their callers' clocks"));
    if (*pending == 0)
        return done(*targets);
    const model::PolicyStore store(request.client, request.ns);
    for (int i = 0; i < request.args.size(); ++i) {
        if (model::FireTarget::looksLikeSeedSpec(request.args.at(i)))
            continue;
        store.read(request.args.at(i), QCoreApplication::instance(), [=](const model::PolicyStore::ReadResult &result) {
            if (*pending < 0)
                return; // failed already
            if (result.failure || !result.policy) {
                *pending = -1;
                return fail(request,
                            result.failure.value_or(model::Failure::serverError(
                                Ctl::tr("no policy named \"%1\" is stored").arg(request.args.at(i)))));
            }
            (*targets)[i] = model::FireTarget::forPolicy(*result.policy);
            if (--*pending == 0)
                addNamespaceLists(request, *targets, done);
        });
    }
}

void printProgress(const model::FireReport &report)
{
    QString line = Ctl::tr("%1 s").arg(report.elapsedMs() / 1000.0, 5, 'f', 1);
    for (int target = 0; target < report.targetCount(); ++target) {
        const model::FireSummary s = report.summary(target);
        line += Ctl::tr("  %1: sent %2, allowed %3 (model %4), rejected %5")
                    .arg(report.plan().targets.at(target).policy.name)
                    .arg(s.sent)
                    .arg(s.allowed)
                    .arg(s.expectedAllowed)
                    .arg(s.rejected);
        if (s.errors)
            line += Ctl::tr(", errors %1").arg(s.errors);
    }
    const model::LatencyHistogram latency = report.allLatency();
    ctlErr() << line << Ctl::tr("  p50 %1 ms, p99 %2 ms").arg(ms(latency.percentile(0.5)), ms(latency.percentile(0.99)))
             << Qt::endl;
}

void printSummary(const model::FireReport &report, const QString &keySpace)
{
    ctlOut() << report.plan().describe() << " (" << keySpace << ')' << Qt::endl;
    const TextTable table({{"TARGET", -44},
                           {"SENT", 9},
                           {"ALLOWED", 9},
                           {"MODEL", 9},
                           {"DEVIATION", 9},
                           {"REJECTED", 9},
                           {"ERRORS", 7},
                           {"RATE/S", 10},
                           {"P50_MS", 8},
                           {"P95_MS", 8},
                           {"P99_MS", 8},
                           {"MAX_MS", 8}},
                          1);
    ctlOut() << table.header() << Qt::endl;
    for (int target = 0; target < report.targetCount(); ++target) {
        const model::FireSummary s = report.summary(target);
        const QString deviation = QStringLiteral("%1%2%")
                                      .arg(s.deviationPercent >= 0 ? QStringLiteral("+") : QString())
                                      .arg(s.deviationPercent, 0, 'f', 2);
        ctlOut() << table.row({s.target, QString::number(s.sent), QString::number(s.allowed),
                               QString::number(s.expectedAllowed), deviation, QString::number(s.rejected),
                               QString::number(s.errors), QString::number(s.achievedRate, 'f', 1), ms(s.p50Us),
                               ms(s.p95Us), ms(s.p99Us), ms(s.maxUs)})
                 << Qt::endl;
        if (report.plan().reserve)
            ctlOut() << "  " << s.settlementText() << Qt::endl;
        if (!s.firstError.isEmpty())
            ctlOut() << Ctl::tr("  first error: %1").arg(s.firstError) << Qt::endl;
    }
    if (report.maxLagMs() > 0)
        ctlOut() << Ctl::tr("calls went out up to %1 ms behind their schedule").arg(report.maxLagMs()) << Qt::endl;
}

// Runs the plan on the engine and reports it; `bench` adds the throughput figures.
void run(const CtlRequest &request, bool bench)
{
    resolveTargets(request, [=](const QVector<model::FireTarget> &targets) {
        model::FirePlan plan = request.fire.plan;
        plan.targets = targets;
        const QStringList problems = plan.targetProblems();
        if (!problems.isEmpty())
            return failUsage(request, problems.join(QStringLiteral("; ")));
        auto *engine = new model::FireEngine(QCoreApplication::instance());
        if (const auto refused
            = engine->start(plan, request.client->options(), request.ns, request.client->isReadOnly()))
            return fail(request, *refused);
        const QString keySpace = plan.realKeys
            ? Ctl::tr("real keys")
            : Ctl::tr("test-fire keys %1*").arg(QString::fromUtf8(engine->keyPrefix()));
        auto lastPrintedSecond = std::make_shared<qint64>(0);
        QObject::connect(engine, &model::FireEngine::updated, engine, [=] {
            const qint64 second = engine->report().elapsedMs() / 1000;
            if (!request.isSet("json") && engine->report().connected() && second > *lastPrintedSecond) {
                *lastPrintedSecond = second;
                printProgress(engine->report());
            }
        });
        QObject::connect(engine, &model::FireEngine::finished, engine, [=] {
            const model::FireReport &report = engine->report();
            // The summary still prints; the run fails once it is printed.
            const std::optional<model::Failure> csvFailure = request.fire.csvFile.isEmpty()
                ? std::nullopt
                : model::writeWholeFile(request.fire.csvFile, report.toCsv());
            QJsonObject json = report.toJson();
            const model::FireSummary first = report.summary(0);
            const double answeredPerSecond = report.sendingMs() > 0 ? first.answered * 1000.0 / report.sendingMs() : 0;
            if (bench) {
                json.insert(QStringLiteral("ops_per_second"), answeredPerSecond);
                json.insert(QStringLiteral("command"), QString::fromUtf8(engine->sampleCommand().join(' ')));
            }
            if (request.isSet("json")) {
                ctlOut() << QJsonDocument(json).toJson(QJsonDocument::Compact) << Qt::endl;
            } else {
                printSummary(report, keySpace);
                if (bench)
                    ctlOut() << Ctl::tr("%1 calls answered a second, %2 connections x %3 in flight; command: %4")
                                    .arg(answeredPerSecond, 0, 'f', 0)
                                    .arg(plan.connections)
                                    .arg(plan.pipeline)
                                    .arg(QString::fromUtf8(engine->sampleCommand().join(' ')))
                             << Qt::endl;
            }
            qint64 errors = 0;
            for (int target = 0; target < report.targetCount(); ++target)
                errors += report.summary(target).errors;
            if (const auto failure = report.failure())
                return fail(request, *failure);
            if (csvFailure)
                return fail(request, *csvFailure);
            if (errors > 0)
                return fail(request,
                            model::Failure::serverError(
                                Ctl::tr("%1 calls failed (the first error is shown above)").arg(errors)));
            request.finish(ExitOk);
        });
    });
}

} // namespace

void fireTraffic(const CtlRequest &request, bool bench)
{
    run(request, bench);
}

} // namespace sluice::app
