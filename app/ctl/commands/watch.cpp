// SPDX-License-Identifier: GPL-3.0-or-later
// sluicectl watch: the dashboard's overview in a terminal, for an operator on SSH.

#include "app/common/exit_codes.h"
#include "app/common/quit_on_signal.h"
#include "app/ctl/ctl_commands.h"
#include "app/ctl/ctl_request.h"
#include "app/ctl/text_table.h"
#include "model/monitor/policy_rate_sampler.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cmath>
#include <unistd.h>

namespace sluice::app {

namespace {

// Most rejections first, then most admissions: what an operator looks at first.
QVector<model::PolicyRate> ranked(QVector<model::PolicyRate> rates)
{
    std::stable_sort(rates.begin(), rates.end(), [](const model::PolicyRate &a, const model::PolicyRate &b) {
        if (a.point.rejected != b.point.rejected)
            return a.point.rejected > b.point.rejected;
        return a.point.allowed > b.point.allowed;
    });
    return rates;
}

QString share(const model::RatePoint &point)
{
    const quint64 decided = quint64(point.allowed) + point.rejected;
    return decided == 0 ? QStringLiteral("-")
                        : QString::number(100.0 * point.rejected / decided, 'f', 1) + QLatin1Char('%');
}

void printTable(const model::RateSample &sample, bool clearScreen)
{
    if (clearScreen)
        ctlClearScreen();
    ctlOut() << QDateTime::fromMSecsSinceEpoch(sample.endMs, Qt::UTC).toString(Qt::ISODateWithMs)
             << Ctl::tr("  (%1 s)").arg(sample.spanMs / 1000.0, 0, 'f', 2) << Qt::endl;
    const TextTable table(
        {{"POLICY", -24}, {"ALLOWED/S", 11}, {"REJECTED/S", 11}, {"REJECTED", 9}, {"ALLOWED", 10}, {"REJECTED", 10}},
        1);
    ctlOut() << table.header() << Qt::endl;
    for (const model::PolicyRate &rate : ranked(sample.policies))
        ctlOut() << table.row({rate.policy, QString::number(rate.point.allowedPerSecond(), 'f', 1),
                               QString::number(rate.point.rejectedPerSecond(), 'f', 1), share(rate.point),
                               QString::number(rate.point.allowed), QString::number(rate.point.rejected)})
                 << Qt::endl;
}

void printJson(const model::RateSample &sample)
{
    for (const model::PolicyRate &rate : sample.policies) {
        const QJsonObject object{{QStringLiteral("policy"), rate.policy},
                                 {QStringLiteral("time"), double(sample.endMs)},
                                 {QStringLiteral("span_ms"), sample.spanMs},
                                 {QStringLiteral("allowed"), double(rate.point.allowed)},
                                 {QStringLiteral("rejected"), double(rate.point.rejected)},
                                 {QStringLiteral("allowed_per_s"), rate.point.allowedPerSecond()},
                                 {QStringLiteral("rejected_per_s"), rate.point.rejectedPerSecond()}};
        ctlOut() << QJsonDocument(object).toJson(QJsonDocument::Compact) << Qt::endl;
    }
}

void runWatch(const CtlRequest &request)
{
    bool ok = false;
    const int intervalMs = request.option("interval").isEmpty() ? 1000 : request.option("interval").toInt(&ok);
    if (!request.option("interval").isEmpty()
        && (!ok || intervalMs < model::PolicyRateSampler::kMinIntervalMs
            || intervalMs > model::PolicyRateSampler::kMaxIntervalMs))
        return failUsage(request,
                         Ctl::tr("--interval must be a whole number of ms from %1 to %2, not \"%3\"")
                             .arg(model::PolicyRateSampler::kMinIntervalMs)
                             .arg(model::PolicyRateSampler::kMaxIntervalMs)
                             .arg(request.option("interval")));
    double durationS = 0; // 0: until interrupted
    if (!request.option("duration").isEmpty()) {
        durationS = request.option("duration").toDouble(&ok);
        if (!ok || !std::isfinite(durationS) || durationS <= 0 || durationS > 366 * 86400.0)
            return failUsage(
                request,
                Ctl::tr("--duration must be a positive number of seconds, not \"%1\"").arg(request.option("duration")));
    }
    // Whole samples: a duration is the number of intervals it covers, at least one.
    const qint64 samplesWanted
        = durationS > 0 ? std::max<qint64>(1, qint64(std::ceil(durationS * 1000 / intervalMs))) : 0;

    quitOnTerminationSignals(QCoreApplication::instance()); // Ctrl-C ends a watch normally
    auto *sampler = new model::PolicyRateSampler(request.client, request.owner(), QCoreApplication::instance());
    sampler->setIntervalMs(intervalMs);
    sampler->setRetentionMs(model::PolicyRateSampler::kMinRetentionMs);
    const bool clearScreen = !request.isSet("json") && ::isatty(STDOUT_FILENO);
    auto samplesSeen = std::make_shared<qint64>(0);
    QObject::connect(sampler, &model::PolicyRateSampler::sampled, sampler, [=](const model::RateSample &sample) {
        for (const QString &node : sample.missingNodes)
            ctlErr() << Ctl::tr("sluicectl: watch: %1 did not answer; its decisions are counted when it does").arg(node)
                     << Qt::endl;
        for (const QString &problem : sample.problems)
            ctlErr() << "sluicectl: watch: " << problem << Qt::endl;
        if (sample.spanMs == 0) { // nothing counted: every primary failed
            if (*samplesSeen == 0 && sample.missingNodes.isEmpty())
                return fail(request,
                            model::Failure::serverError(
                                Ctl::tr("nothing to watch on %1").arg(request.client->options().redactedUrl())));
            return;
        }
        model::RateSample shown = sample;
        if (!request.args.isEmpty()) {
            for (const QString &wanted : request.args)
                if (std::none_of(sample.policies.cbegin(), sample.policies.cend(),
                                 [&](const model::PolicyRate &rate) { return rate.policy == wanted; }))
                    return fail(
                        request,
                        model::Failure::serverError(Ctl::tr("the published library has no policy \"%1\"").arg(wanted)));
            shown.policies.erase(
                std::remove_if(shown.policies.begin(), shown.policies.end(),
                               [&](const model::PolicyRate &rate) { return !request.args.contains(rate.policy); }),
                shown.policies.end());
        }
        if (request.isSet("json"))
            printJson(shown);
        else
            printTable(shown, clearScreen);
        if (samplesWanted > 0 && ++*samplesSeen >= samplesWanted)
            request.finish(ExitOk);
    });
    // Wait for the connection (the first reading is the baseline, so the first sample comes one
    // interval later), then keep going through reconnects.
    auto connected = std::make_shared<bool>(false);
    auto begin = [=] {
        *connected = true;
        request.client->setAutoReconnect(true);
        sampler->start();
    };
    QObject::connect(request.client, &redis::RedisClient::stateChanged, sampler,
                     [=](redis::RedisClient::State state, const QString &reason) {
        using State = redis::RedisClient::State;
        const QString target = request.client->options().redactedUrl();
        if (!*connected && state == State::Ready)
            begin();
        else if (!*connected && (state == State::Failed || state == State::Disconnected)) {
            fail(request, {model::Failure::Kind::Unreachable, reason});
            QObject::disconnect(request.client, nullptr, sampler, nullptr);
        } else if (*connected && state == State::Ready)
            ctlErr() << Ctl::tr("sluicectl: watch: connected to %1 again").arg(target) << Qt::endl;
        else if (*connected && state == State::Reconnecting)
            ctlErr() << Ctl::tr("sluicectl: watch: lost %1 (%2); reconnecting").arg(target, reason) << Qt::endl;
    });
    if (request.client->state() == redis::RedisClient::State::Ready)
        begin();
}

} // namespace

CtlCommand watchCommand()
{
    return {QStringLiteral("watch"),
            CommandGroup::Live,
            0,
            64,
            Access::Reads,
            QStringLiteral("[POLICY...]"),
            Ctl::tr("show allowed and rejected calls per second, live"),
            Ctl::tr("Show each policy's allowed and rejected decisions per second, live, most rejections first. --json "
                    "prints one object per policy per sample."),
            optionNames({"interval", "duration", "json"}),
            {{QStringLiteral("watch"), Ctl::tr("every policy, once a second, until interrupted")},
             {QStringLiteral("watch login --interval 250 --duration 30 --json"), Ctl::tr("one policy, as JSON lines")}},
            runWatch};
}

} // namespace sluice::app
