// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/replay/replay_runner.h"

#include <QElapsedTimer>

namespace sluice::model {

namespace {

constexpr int kSlice = 20000; // arrivals between two looks at the cancel flag
constexpr qint64 kProgressEveryMs = 100;

} // namespace

ReplayRunner::ReplayRunner(QObject *parent)
    : QObject(parent)
{
    qRegisterMetaType<ReplayProgress>();
    qRegisterMetaType<ReplayResult>();
}

ReplayRunner::~ReplayRunner()
{
    stop();
}

void ReplayRunner::stop()
{
    if (!m_thread)
        return;
    m_cancel->store(true);
    m_thread->wait();
    m_thread.reset();
}

void ReplayRunner::cancel()
{
    if (m_cancel)
        m_cancel->store(true);
}

void ReplayRunner::start(const ReplayRequest &request, const std::optional<SuggestRequest> &suggest)
{
    stop();
    auto cancel = m_cancel = std::make_shared<std::atomic<bool>>(false);
    // Signals emitted from the worker reach the runner's thread queued; the runner outlives the thread.
    m_thread.reset(QThread::create([this, request, suggest, cancel] {
        QElapsedTimer clock;
        clock.start();
        ReplayRequest replay = request;
        replay.keepArrivals = suggest.has_value();
        ReplayJob job(replay);
        job.setCancelFlag(cancel.get());
        ReplayResult result;
        result.failure = job.open();
        qint64 lastProgress = -kProgressEveryMs;
        const auto report = [&](bool suggesting) {
            ReplayProgress progress;
            progress.stats = job.stats();
            progress.fraction = job.progress();
            progress.linesPerSecond
                = double(progress.stats.lines) * 1000.0 / double(std::max<qint64>(1, clock.elapsed()));
            progress.suggesting = suggesting;
            Q_EMIT progressed(progress);
            lastProgress = clock.elapsed();
        };
        while (!result.failure && !cancel->load() && job.step(kSlice)) {
            if (clock.elapsed() - lastProgress >= kProgressEveryMs)
                report(false);
        }
        if (!result.failure)
            result.failure = job.failure();
        result.cancelled = cancel->load();
        if (!result.failure && !result.cancelled) {
            report(suggest.has_value());
            result.outcomes = job.outcomes();
            if (suggest) {
                LimitSuggester suggester(job.arrivals(), job.subjects(), suggest->family);
                result.suggestion
                    = suggester.suggest(suggest->target, suggest->ofSubjects, [&] { return cancel->load(); });
                result.cancelled = !result.suggestion;
                if (result.suggestion && result.suggestion->limit) {
                    Policy policy = suggest->family.policyAt(*result.suggestion->limit);
                    policy.name = QStringLiteral("suggested-%1").arg(policy.limit);
                    Replay replayed({policy});
                    for (const Arrival &arrival : job.arrivals())
                        replayed.take(arrival);
                    result.suggested = replayed.outcomes(job.subjects()).first();
                }
            }
        }
        result.stats = job.stats();
        result.subjects = job.subjects().size();
        result.liveBuckets = job.liveBuckets();
        result.elapsedMs = clock.elapsed();
        Q_EMIT finished(result);
    }));
    m_thread->start(QThread::LowPriority);
}

} // namespace sluice::model
