// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/ctl/ctl_log_input.h"

#include "app/common/exit_codes.h"
#include "model/format/units.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QJsonArray>
#include <QTimer>

#include <sys/resource.h>

namespace sluice::app {

namespace {

constexpr int kArrivalsPerSlice = 50000;

void replaySlice(const CtlRequest &request, const std::shared_ptr<model::ReplayJob> &job,
                 const std::function<void()> &done)
{
    if (job->step(kArrivalsPerSlice)) {
        QTimer::singleShot(0, QCoreApplication::instance(), [=] { replaySlice(request, job, done); });
        return;
    }
    if (const auto failure = job->failure())
        return fail(request, *failure);
    done();
}

// The most memory this process has held, in bytes (Linux reports kilobytes).
qint64 peakResidentBytes()
{
    struct rusage usage { };
    return getrusage(RUSAGE_SELF, &usage) == 0 ? qint64(usage.ru_maxrss) * 1024 : -1;
}

QString utcText(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz 'UTC'"));
}

} // namespace

std::optional<model::ReplayRequest> readReplayRequest(const CtlRequest &request, QString *problem)
{
    model::ReplayRequest replay;
    replay.paths = request.args;
    if (request.isSet("format")) {
        const auto format = model::logFormatFromName(request.option("format"));
        if (!format) {
            *problem = Ctl::tr("--format is one of %1, not \"%2\"")
                           .arg(model::logFormatNames().join(QLatin1String(", ")), request.option("format"));
            return std::nullopt;
        }
        replay.spec.format = *format;
    }
    replay.spec.nginxDefinition = request.option("log-format");
    if (replay.spec.format == model::LogFormatKind::Nginx && replay.spec.nginxDefinition.isEmpty()) {
        *problem = Ctl::tr("--format nginx needs --log-format, the log_format definition");
        return std::nullopt;
    }
    if (!replay.spec.nginxDefinition.isEmpty() && replay.spec.format != model::LogFormatKind::Auto
        && replay.spec.format != model::LogFormatKind::Nginx) {
        *problem = Ctl::tr("--log-format goes with --format nginx");
        return std::nullopt;
    }
    replay.spec.fields.subject = request.option("subject");
    replay.spec.fields.time = request.option("time");
    replay.spec.fields.cost = request.option("cost");
    if (request.isSet("route")) {
        replay.spec.fields.routeFilter = QRegularExpression(request.option("route"));
        if (!replay.spec.fields.routeFilter.isValid() || request.option("route").isEmpty()) {
            *problem
                = Ctl::tr("--route is not a regular expression: %1").arg(replay.spec.fields.routeFilter.errorString());
            return std::nullopt;
        }
    }
    if (request.isSet("reorder-window")) {
        bool ok = false;
        const double seconds = request.option("reorder-window").toDouble(&ok);
        if (!ok || seconds < 0 || seconds > 86400) {
            *problem = Ctl::tr("--reorder-window is seconds from 0 to 86400, not \"%1\"")
                           .arg(request.option("reorder-window"));
            return std::nullopt;
        }
        replay.reorderWindowMs = qint64(seconds * 1000);
    }
    if (request.isSet("max-subjects")) {
        bool ok = false;
        const qint64 most = request.option("max-subjects").toLongLong(&ok);
        if (!ok || most < 1 || most > 1'000'000'000) {
            *problem = Ctl::tr("--max-subjects is a whole number from 1 to 1000000000, not \"%1\"")
                           .arg(request.option("max-subjects"));
            return std::nullopt;
        }
        replay.maxSubjects = quint32(most);
    }
    if (replay.paths.count(QStringLiteral("-")) > 1) {
        *problem = Ctl::tr("standard input (-) can be read once");
        return std::nullopt;
    }
    return replay;
}

void runReplay(const CtlRequest &request, const std::shared_ptr<model::ReplayJob> &job, std::function<void()> done)
{
    if (const auto failure = job->open())
        return fail(request, *failure);
    replaySlice(request, job, done);
}

void printReadSummary(const CtlRequest &request, const model::LogReadStats &stats, quint32 subjects)
{
    QTextStream &out = request.isSet("json") ? ctlErr() : ctlOut();
    out << Ctl::tr("read %1 lines (%2 malformed, %3 left out): %4 requests by %5 subjects, %6 to %7")
               .arg(model::formatCount(stats.lines), model::formatCount(stats.malformed),
                    model::formatCount(stats.skipped), model::formatCount(stats.requests), model::formatCount(subjects),
                    utcText(stats.firstMs), utcText(stats.lastMs))
        << Qt::endl;
    for (const QString &format : stats.formats)
        out << Ctl::tr("  read as %1").arg(format) << Qt::endl;
    out << Ctl::tr("  memory: %1 at most, for %2 subjects")
               .arg(model::formatBytes(peakResidentBytes()), model::formatCount(subjects))
        << Qt::endl;
    if (stats.secondsSpread)
        out << Ctl::tr(
            "  the logs give whole seconds: each second's lines were spread evenly over it, in the order read")
            << Qt::endl;
    if (!stats.problems.isEmpty())
        out << Ctl::tr("malformed lines (the first %1):").arg(stats.problems.size()) << Qt::endl;
    for (const model::LineProblem &problem : stats.problems)
        out << QStringLiteral("  %1:%2: %3").arg(problem.source).arg(problem.line).arg(problem.reason) << Qt::endl;
}

QJsonObject readSummaryJson(const model::LogReadStats &stats, quint32 subjects)
{
    QJsonArray problems;
    for (const model::LineProblem &problem : stats.problems)
        problems << QJsonObject{{QStringLiteral("source"), problem.source},
                                {QStringLiteral("line"), problem.line},
                                {QStringLiteral("reason"), problem.reason}};
    return {{QStringLiteral("lines"), stats.lines},
            {QStringLiteral("malformed"), stats.malformed},
            {QStringLiteral("skipped"), stats.skipped},
            {QStringLiteral("requests"), stats.requests},
            {QStringLiteral("subjects"), qint64(subjects)},
            {QStringLiteral("first_ms"), stats.firstMs},
            {QStringLiteral("last_ms"), stats.lastMs},
            {QStringLiteral("seconds_spread"), stats.secondsSpread},
            {QStringLiteral("peak_resident_bytes"), peakResidentBytes()},
            {QStringLiteral("malformed_lines"), problems}};
}

} // namespace sluice::app
