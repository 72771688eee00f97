// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/replay/replay.h"

#include "model/policy/namespace_lists.h"

#include <algorithm>

namespace sluice::model {

struct Replay::Run {
    Run(const Policy &candidate, size_t firstSweepAt, const SubjectTable *subjects,
        const QVector<SubjectOverride> &lists)
        : policy(candidate)
        , decided(withNamespaceLists(candidate, lists))
        , subjects(decided.overrides.isEmpty() ? nullptr : subjects)
        , capacity(algorithmUsesBurst(candidate.algorithm) ? candidate.effectiveBurst() : candidate.limit)
        , minimumSweepAt(firstSweepAt)
        , sweepAt(firstSweepAt)
    {
    }

    bool take(const Arrival &arrival); // admitted
    void sweep(qint64 nowMs);
    void count(qint64 ms, bool rejected);

    Policy policy;
    Policy decided;               // the candidate with the namespace's lists among its overrides
    const SubjectTable *subjects; // for a candidate with overrides or lists: a new bucket is its subject's
    qint64 capacity;
    std::unordered_map<quint32, ReferenceLimiter> live;
    size_t minimumSweepAt;
    size_t sweepAt;
    qint64 dropped = 0;
    std::vector<quint32> rejectedBySubject;
    std::vector<quint8> peakBySubject; // percent of the capacity used at most
    quint64 requests = 0;
    quint64 rejected = 0;
    qint64 firstMs = 0;
    qint64 binMs = 1000;
    QVector<quint64> rejectedPerBin;
    QVector<quint64> requestsPerBin;
};

// Drops the buckets that are as good as new; the next sweep waits until the live ones have doubled.
void Replay::Run::sweep(qint64 nowMs)
{
    const size_t before = live.size();
    for (auto it = live.begin(); it != live.end();)
        it = it->second.isFull(nowMs) ? live.erase(it) : std::next(it);
    dropped += qint64(before - live.size());
    sweepAt = std::max(minimumSweepAt, 2 * live.size());
}

// Counts a request in its time bin, halving the bins' resolution when they would pass kTimeBins.
void Replay::Run::count(qint64 ms, bool wasRejected)
{
    if (requests == 0)
        firstMs = ms;
    qsizetype bin = qsizetype((ms - firstMs) / binMs);
    while (bin >= CandidateOutcome::kTimeBins) {
        for (qsizetype i = 0; i < requestsPerBin.size(); ++i) {
            const qsizetype into = i / 2;
            if (i % 2 == 0) {
                requestsPerBin[into] = requestsPerBin[i];
                rejectedPerBin[into] = rejectedPerBin[i];
            } else {
                requestsPerBin[into] += requestsPerBin[i];
                rejectedPerBin[into] += rejectedPerBin[i];
            }
        }
        requestsPerBin.resize((requestsPerBin.size() + 1) / 2);
        rejectedPerBin.resize(requestsPerBin.size());
        binMs *= 2;
        bin = qsizetype((ms - firstMs) / binMs);
    }
    if (bin >= requestsPerBin.size()) {
        requestsPerBin.resize(bin + 1);
        rejectedPerBin.resize(bin + 1);
    }
    ++requests;
    ++requestsPerBin[bin];
    if (wasRejected) {
        ++rejected;
        ++rejectedPerBin[bin];
    }
}

bool Replay::Run::take(const Arrival &arrival)
{
    if (arrival.subject >= rejectedBySubject.size()) {
        const size_t size = std::max<size_t>(arrival.subject + 1, rejectedBySubject.size() * 3 / 2);
        rejectedBySubject.resize(size, 0);
        peakBySubject.resize(size, 0);
    }
    if (live.size() >= sweepAt)
        sweep(arrival.ms);
    auto found = live.find(arrival.subject);
    if (found == live.end())
        found = live.emplace(arrival.subject,
                             ReferenceLimiter(decided, subjects ? subjects->subject(arrival.subject) : QByteArray()))
                    .first;
    ReferenceLimiter &bucket = found->second;
    const bool admitted = bucket.admit(arrival.ms, arrival.cost);
    count(arrival.ms, !admitted);
    quint8 &peak = peakBySubject[arrival.subject];
    if (!admitted) {
        ++rejectedBySubject[arrival.subject];
        peak = 100;
    } else if (peak < 100) {
        const qint64 used = capacity - bucket.available(arrival.ms);
        peak = std::max<quint8>(peak, quint8(std::clamp<qint64>(used * 100 / capacity, 0, 100)));
    }
    return admitted;
}

Replay::Replay(const QVector<Policy> &candidates, size_t sweepAt, const SubjectTable *subjects,
               const QVector<SubjectOverride> &lists)
{
    for (const Policy &candidate : candidates)
        m_runs.push_back(std::make_unique<Run>(candidate, std::max<size_t>(1, sweepAt), subjects, lists));
}

Replay::~Replay() = default;

void Replay::take(const Arrival &arrival)
{
    for (size_t i = 0; i < m_runs.size(); ++i) {
        const bool admitted = m_runs[i]->take(arrival);
        if (m_observer)
            m_observer(int(i), arrival, admitted);
    }
}

qint64 Replay::liveBuckets() const
{
    qint64 count = 0;
    for (const auto &run : m_runs)
        count += qint64(run->live.size());
    return count;
}

qint64 Replay::droppedBuckets() const
{
    qint64 count = 0;
    for (const auto &run : m_runs)
        count += run->dropped;
    return count;
}

QVector<CandidateOutcome> Replay::outcomes(const SubjectTable &subjects, int top) const
{
    QVector<CandidateOutcome> outcomes;
    for (const auto &run : m_runs) {
        CandidateOutcome outcome;
        outcome.policy = run->policy;
        outcome.requests = run->requests;
        outcome.rejected = run->rejected;
        outcome.subjects = subjects.size();
        outcome.firstMs = run->firstMs;
        outcome.binMs = run->binMs;
        outcome.rejectedPerBin = run->rejectedPerBin;
        outcome.requestsPerBin = run->requestsPerBin;
        std::vector<quint32> rejectedOnes;
        for (quint32 subject = 0; subject < run->rejectedBySubject.size(); ++subject) {
            if (run->rejectedBySubject[subject] > 0)
                rejectedOnes.push_back(subject);
            else if (subject < subjects.size())
                ++outcome.subjectsByPeakUse[std::min(9, run->peakBySubject[subject] / 10)];
        }
        outcome.subjectsRejected = rejectedOnes.size();
        outcome.subjectsByPeakUse[10] = rejectedOnes.size();
        const auto mostRejected = [&](quint32 a, quint32 b) {
            const quint32 ra = run->rejectedBySubject[a], rb = run->rejectedBySubject[b];
            return ra != rb ? ra > rb : a < b;
        };
        const size_t shown = std::min<size_t>(size_t(top), rejectedOnes.size());
        std::partial_sort(rejectedOnes.begin(), rejectedOnes.begin() + qsizetype(shown), rejectedOnes.end(),
                          mostRejected);
        for (size_t i = 0; i < shown; ++i)
            outcome.topRejected.append({subjects.subject(rejectedOnes[i]), run->rejectedBySubject[rejectedOnes[i]]});
        outcomes.append(outcome);
    }
    return outcomes;
}

} // namespace sluice::model
