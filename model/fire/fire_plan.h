// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/fire/fire_target.h"

#include <QByteArray>
#include <QString>
#include <QVector>

#include <random>

namespace sluice::model {

// How test-fire sends its calls over time.
enum class FireShape {
    Constant, // `rate` calls a second, evenly spaced
    Bursts,   // `burstSize` calls at once every `burstEveryMs`
    Ramp,     // from `rate` to `rampToRate` calls a second, linearly over the duration
    Poisson,  // `rate` calls a second on average, independent arrivals
    Saturate, // as fast as the server answers: each connection keeps `pipeline` calls in flight
};
// Which subject each call is for.
enum class FireSubjects {
    One,      // always `subject`
    Rotation, // `subject`-1 ... `subject`-N in turn
    Random,   // one of `subject`-1 ... `subject`-N at random
};

QString fireShapeName(FireShape shape); // "constant", "bursts", "ramp", "poisson", "saturate"

namespace fire_limits {
constexpr int maxTargets = 4;
constexpr double maxRate = 1'000'000;
constexpr qint64 maxDurationMs = 3'600'000;
constexpr qint64 minDurationMs = 100;
constexpr int maxConnections = 64;
constexpr int maxPipeline = 1000;
constexpr int maxSubjects = 1'000'000;
constexpr int maxBurstSize = 1'000'000;
constexpr qint64 maxActualCost = 1'000'000'000;
constexpr qint64 maxSettleAfterMs = 60'000;
} // namespace fire_limits

// One test-fire run: the same calls go to every target (side by side), each compared with its
// reference model.
struct FirePlan {
    QVector<FireTarget> targets;
    FireSubjects subjects = FireSubjects::One;
    QByteArray subject = "test-fire"; // the subject, or the stem of numbered subjects
    int subjectCount = 1;
    FireShape shape = FireShape::Constant;
    double rate = 100;
    double rampToRate = 0;
    int burstSize = 10;
    qint64 burstEveryMs = 1000;
    int pipeline = 16;
    int connections = 1;
    qint64 cost = 1;
    qint64 durationMs = 10'000;
    bool realKeys = false; // fire at real buckets instead of the test-fire key space
    // Reserve then settle (real keys): each call reserves `cost` (<library>_reserve) and, admitted, is settled
    // `settleAfterMs` later with an actual cost drawn evenly from actualMin to actualMax (an LLM's tokens).
    bool reserve = false;
    qint64 actualMin = 0;
    qint64 actualMax = 0;
    qint64 settleAfterMs = 0;
    quint64 seed = 0; // random subjects and Poisson arrivals; 0 picks one at start

    // Everything wrong with it, one sentence each; empty when it can run.
    QStringList problems() const;
    QStringList targetProblems() const; // the targets, and the cost each admits
    QStringList pacingProblems() const; // everything else
    // Which subject call `index` is for, from 0 to subjectCount - 1 (0 for one subject; random
    // choices come from `random`), and that subject's name.
    int subjectOf(qint64 index, std::mt19937_64 &random) const;
    QByteArray subjectName(int subject) const;
    // What the run asks for, in one line: "2000/s constant for 10 s, 1 subject, 4 connections".
    QString describe() const;
};

// When each call of an open-loop plan is due, in ns from the start; Saturate has no schedule.
class FireSchedule {
public:
    explicit FireSchedule(const FirePlan &plan);
    // The next call's time, or -1 when the plan has no more calls.
    qint64 nextNs();
    // The calls the plan sends in all, for open-loop shapes (Poisson: on average).
    static qint64 expectedCalls(const FirePlan &plan);

private:
    FirePlan m_plan;
    qint64 m_index = 0;
    double m_poissonSeconds = 0;
    std::mt19937_64 m_random;
};

} // namespace sluice::model
