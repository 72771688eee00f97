// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/fire/fire_plan.h"

#include <QCommandLineOption>
#include <QCommandLineParser>

namespace sluice::app {

// What sluicectl fire and bench were asked for, before their targets are looked up.
struct CtlFireSettings {
    model::FirePlan plan;   // everything but the targets
    qint64 clockSkewMs = 0; // for ms_token_bucket and interval_token_bucket targets
    QString csvFile;
};

// The flags of sluicectl fire and bench: --subject NAME | --subjects N | --random N, --rate R,
// --shape constant|bursts|ramp|poisson with --burst N --every MS and --ramp-to R, --concurrency C,
// --pipeline P (bench), --clock-skew MS, --real-keys, --seed N, --csv FILE; --cost and --duration
// are shared with other commands and handed in as given.
class CtlFireFlags {
public:
    CtlFireFlags();
    QList<QCommandLineOption> options() const;

    // `saturate`: bench's pacing (as fast as the server answers). False and *error naming the flag
    // on bad input, before anything connects.
    bool read(const QCommandLineParser &parser, bool saturate, const QString &cost, const QString &duration,
              CtlFireSettings *settings, QString *error) const;

private:
    QCommandLineOption m_subject, m_subjects, m_random, m_rate, m_shape, m_burst, m_every, m_rampTo, m_concurrency,
        m_pipeline, m_clockSkew, m_realKeys, m_actual, m_settleAfter, m_seed, m_csv;
};

} // namespace sluice::app
