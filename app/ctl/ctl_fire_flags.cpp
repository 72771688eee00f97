// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/ctl/ctl_fire_flags.h"

#include "app/ctl/ctl_tr.h"

#include <QCoreApplication>

#include <cmath>

namespace sluice::app {

namespace {

QCommandLineOption option(const char *name, const char *help, const char *value = nullptr)
{
    return value ? QCommandLineOption(QLatin1String(name), Ctl::tr(help), QLatin1String(value))
                 : QCommandLineOption(QLatin1String(name), Ctl::tr(help));
}

constexpr model::FireShape namedShapes[]
    = {model::FireShape::Constant, model::FireShape::Bursts, model::FireShape::Ramp, model::FireShape::Poisson};

} // namespace

CtlFireFlags::CtlFireFlags()
    : m_subject(option("subject",
                       "fire and bench: the one subject to fire at (default: test-fire). replay and suggest: the log "
                       "field that names the subject: remote_addr (the default for nginx formats), remote_user, a "
                       "logged header such as http_x_forwarded_for (its first address), a JSON key (a.b for a "
                       "nested one) or a CSV column (default: subject).",
                       "name"))
    , m_subjects(option("subjects", "N subjects in rotation (test-fire-1 ... test-fire-N).", "n"))
    , m_random(option("random", "A random one of N subjects for each call.", "n"))
    , m_rate(option("rate", "Calls a second (the mean for poisson, the start of a ramp).", "r"))
    , m_shape(option("shape", "constant, bursts, ramp or poisson. Default: constant.", "shape"))
    , m_burst(option("burst",
                     "fire and bench, with --shape bursts: calls in each burst. suggest: a fixed burst for every "
                     "limit tried (default: the limit itself).",
                     "n"))
    , m_every(option("every", "With --shape bursts: ms from one burst to the next.", "ms"))
    , m_rampTo(option("ramp-to", "With --shape ramp: the rate at the end.", "r"))
    , m_concurrency(option("concurrency", "Connections to send on. Default: 1 (fire), 4 (bench).", "c"))
    , m_pipeline(option("pipeline", "Calls in flight on each connection. Default: 16.", "p"))
    , m_clockSkew(option("clock-skew",
                         "The callers' clocks of ms_token_bucket and interval_token_bucket targets are up to this many "
                         "ms apart.",
                         "ms"))
    , m_realKeys(option("real-keys", "Spend the subjects' real buckets instead of test-fire keys."))
    , m_actual(option("actual",
                      "Reserve each call's cost as an estimate, then settle it with this actual cost, or one drawn "
                      "evenly from MIN-MAX (on real keys only).",
                      "n|min-max"))
    , m_settleAfter(option("settle-after", "With --actual: ms from a reservation's answer to its settlement.", "ms"))
    , m_seed(option("seed", "The seed of random subjects and poisson arrivals, to replay a run.", "n"))
    , m_csv(option("csv", "Also write the run's curves and summary to this CSV file.", "file"))
{
}

QList<QCommandLineOption> CtlFireFlags::options() const
{
    return {m_subject,     m_subjects, m_random,    m_rate,     m_shape,  m_burst,       m_every, m_rampTo,
            m_concurrency, m_pipeline, m_clockSkew, m_realKeys, m_actual, m_settleAfter, m_seed,  m_csv};
}

bool CtlFireFlags::read(const QCommandLineParser &parser, bool saturate, const QString &cost, const QString &duration,
                        CtlFireSettings *settings, QString *error) const
{
    model::FirePlan &plan = settings->plan;
    auto fail = [error](const QString &message) {
        *error = message;
        return false;
    };
    // A flag's whole number (or number), or a usage error naming it.
    auto count = [&](const QCommandLineOption &flag, qint64 *value) {
        bool ok = false;
        *value = parser.value(flag).toLongLong(&ok);
        return ok
            || fail(Ctl::tr("--%1 must be a whole number, not \"%2\"").arg(flag.names().first(), parser.value(flag)));
    };
    auto number = [&](const QCommandLineOption &flag, double *value) {
        bool ok = false;
        *value = parser.value(flag).toDouble(&ok);
        return (ok && std::isfinite(*value))
            || fail(Ctl::tr("--%1 must be a number, not \"%2\"").arg(flag.names().first(), parser.value(flag)));
    };

    const int subjectFlags = int(parser.isSet(m_subject)) + int(parser.isSet(m_subjects)) + int(parser.isSet(m_random));
    if (subjectFlags > 1)
        return fail(Ctl::tr("give one of --subject, --subjects and --random"));
    qint64 value = 0;
    if (parser.isSet(m_subject)) {
        plan.subject = parser.value(m_subject).toUtf8();
    } else if (parser.isSet(m_subjects) || parser.isSet(m_random)) {
        const QCommandLineOption &flag = parser.isSet(m_subjects) ? m_subjects : m_random;
        if (!count(flag, &value))
            return false;
        plan.subjects = parser.isSet(m_subjects) ? model::FireSubjects::Rotation : model::FireSubjects::Random;
        plan.subjectCount = static_cast<int>(std::clamp<qint64>(value, 0, model::fire_limits::maxSubjects + 1));
    }

    if (saturate) {
        plan.shape = model::FireShape::Saturate;
        plan.connections = 4;
        if (parser.isSet(m_pipeline)) {
            if (!count(m_pipeline, &value))
                return false;
            plan.pipeline = static_cast<int>(std::clamp<qint64>(value, 0, model::fire_limits::maxPipeline + 1));
        }
    } else {
        const QString shape = parser.value(m_shape);
        if (parser.isSet(m_shape)) {
            const auto named = std::find_if(std::begin(namedShapes), std::end(namedShapes),
                                            [&](model::FireShape s) { return model::fireShapeName(s) == shape; });
            if (named == std::end(namedShapes))
                return fail(Ctl::tr("--shape must be constant, bursts, ramp or poisson, not \"%1\"").arg(shape));
            plan.shape = *named;
        }
        const bool bursts = plan.shape == model::FireShape::Bursts;
        if (bursts != (parser.isSet(m_burst) && parser.isSet(m_every))
            || (!bursts && (parser.isSet(m_burst) || parser.isSet(m_every))))
            return fail(Ctl::tr("--burst and --every go together, with --shape bursts"));
        if ((plan.shape == model::FireShape::Ramp) != parser.isSet(m_rampTo))
            return fail(Ctl::tr("--ramp-to goes with --shape ramp, and a ramp needs it"));
        if (bursts != !parser.isSet(m_rate))
            return fail(bursts ? Ctl::tr("bursts are paced by --burst and --every, not --rate")
                               : Ctl::tr("fire needs --rate"));
        if (!bursts && !number(m_rate, &plan.rate))
            return false;
        if (plan.shape == model::FireShape::Ramp && !number(m_rampTo, &plan.rampToRate))
            return false;
        if (bursts) {
            if (!count(m_burst, &value))
                return false;
            plan.burstSize = static_cast<int>(std::clamp<qint64>(value, 0, model::fire_limits::maxBurstSize + 1));
            if (!count(m_every, &plan.burstEveryMs))
                return false;
        }
        if (parser.isSet(m_clockSkew) && !count(m_clockSkew, &settings->clockSkewMs))
            return false;
    }
    if (parser.isSet(m_concurrency)) {
        if (!count(m_concurrency, &value))
            return false;
        plan.connections = static_cast<int>(std::clamp<qint64>(value, 0, model::fire_limits::maxConnections + 1));
    }
    if (!cost.isEmpty()) {
        bool ok = false;
        plan.cost = cost.toLongLong(&ok);
        if (!ok)
            return fail(Ctl::tr("--cost must be a whole number, not \"%1\"").arg(cost));
    }
    if (!duration.isEmpty()) {
        bool ok = false;
        const double seconds = duration.toDouble(&ok);
        if (!ok || !std::isfinite(seconds) || seconds <= 0 || seconds > model::fire_limits::maxDurationMs / 1000.0)
            return fail(Ctl::tr("--duration must be a number of seconds from 0.1 to %1, not \"%2\"")
                            .arg(model::fire_limits::maxDurationMs / 1000)
                            .arg(duration));
        plan.durationMs = std::llround(seconds * 1000);
    }
    if (parser.isSet(m_seed)) {
        bool ok = false;
        plan.seed = parser.value(m_seed).toULongLong(&ok);
        if (!ok || plan.seed == 0)
            return fail(Ctl::tr("--seed must be a whole number above 0, not \"%1\"").arg(parser.value(m_seed)));
    }
    plan.realKeys = parser.isSet(m_realKeys);
    if (parser.isSet(m_settleAfter) && !parser.isSet(m_actual))
        return fail(Ctl::tr("--settle-after goes with --actual"));
    if (parser.isSet(m_actual)) {
        plan.reserve = true;
        const QStringList range = parser.value(m_actual).split(QLatin1Char('-'));
        bool minOk = false, maxOk = true;
        plan.actualMin = range.first().toLongLong(&minOk);
        plan.actualMax = range.size() == 2 ? range.last().toLongLong(&maxOk) : plan.actualMin;
        if (!minOk || !maxOk || range.size() > 2)
            return fail(
                Ctl::tr("--actual must be a whole number or a range MIN-MAX, not \"%1\"").arg(parser.value(m_actual)));
        if (parser.isSet(m_settleAfter) && !count(m_settleAfter, &plan.settleAfterMs))
            return false;
    }
    settings->csvFile = parser.value(m_csv);
    const QStringList problems = plan.pacingProblems();
    if (!problems.isEmpty())
        return fail(problems.first());
    return true;
}

} // namespace sluice::app
