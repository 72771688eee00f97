// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/replay/replay_job.h"

#include <QCoreApplication>

namespace sluice::model {

namespace {

struct Text {
    Q_DECLARE_TR_FUNCTIONS(ReplayJob)
};

} // namespace

ReplayJob::ReplayJob(ReplayRequest request)
    : m_request(std::move(request))
    , m_reader(m_request.spec, m_request.reorderWindowMs, &m_subjects)
    , m_replay(m_request.candidates, Replay::kFirstSweepAt, &m_subjects, m_request.namespaceLists)
{
    m_subjects.setCapacity(m_request.maxSubjects);
}

ReplayJob::~ReplayJob() = default;

std::optional<Failure> ReplayJob::open()
{
    return m_reader.open(m_request.paths);
}

bool ReplayJob::step(int arrivals)
{
    Arrival arrival;
    for (int i = 0; i < arrivals; ++i) {
        if (!m_reader.next(&arrival)) {
            m_done = true;
            return false;
        }
        m_replay.take(arrival);
        if (m_request.keepArrivals)
            m_arrivals.push_back(arrival);
    }
    return true;
}

std::optional<Failure> ReplayJob::failure() const
{
    if (m_reader.failure())
        return m_reader.failure();
    if (!m_done || m_reader.stats().requests > 0)
        return std::nullopt;
    const LogReadStats &stats = m_reader.stats();
    QString message = stats.lines == 0
        ? Text::tr("the logs hold no line")
        : Text::tr("no line of the logs could be replayed (%1 read, %2 malformed, %3 left out)")
              .arg(stats.lines)
              .arg(stats.malformed)
              .arg(stats.skipped);
    for (const LineProblem &problem : stats.problems.mid(0, 3))
        message += QStringLiteral("\n  %1:%2: %3").arg(problem.source).arg(problem.line).arg(problem.reason);
    return Failure::invalid(message);
}

} // namespace sluice::model
