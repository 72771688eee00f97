// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/policy/policy.h"

#include <QCoreApplication>
#include <QRegularExpression>
#include <QStringList>

#include <algorithm>

namespace sluice::model {

namespace {

struct AlgorithmSpelling {
    Algorithm algorithm;
    const char *name;
};

constexpr AlgorithmSpelling spellings[] = {
    {Algorithm::TokenBucket, "token_bucket"}, {Algorithm::FixedWindow, "fixed_window"},
    {Algorithm::SlidingLog, "sliding_log"},   {Algorithm::SlidingWindow, "sliding_window"},
    {Algorithm::LeakyBucket, "leaky_bucket"}, {Algorithm::Gcra, "gcra"},
    {Algorithm::Concurrency, "concurrency"},
};

// This file's strings, under the context a translator sees them in.
struct Text {
    Q_DECLARE_TR_FUNCTIONS(sluice::model::Policy)
};

bool storesOneEntryPerCall(Algorithm algorithm)
{
    return algorithm == Algorithm::SlidingLog || algorithm == Algorithm::Concurrency;
}

} // namespace

QString algorithmName(Algorithm algorithm)
{
    for (const auto &spelling : spellings)
        if (spelling.algorithm == algorithm)
            return QLatin1String(spelling.name);
    return {};
}

std::optional<Algorithm> algorithmFromName(const QString &name)
{
    for (const auto &spelling : spellings)
        if (name == QLatin1String(spelling.name))
            return spelling.algorithm;
    return std::nullopt;
}

QStringList algorithmNames()
{
    QStringList names;
    for (const auto &spelling : spellings)
        names << QLatin1String(spelling.name);
    return names;
}

bool algorithmUsesBurst(Algorithm algorithm)
{
    return algorithm == Algorithm::TokenBucket || algorithm == Algorithm::Gcra || algorithm == Algorithm::LeakyBucket;
}

bool algorithmSettles(Algorithm algorithm)
{
    return algorithm == Algorithm::TokenBucket || algorithm == Algorithm::Gcra || algorithm == Algorithm::FixedWindow
        || algorithm == Algorithm::SlidingWindow;
}

QString windowStartName(WindowStart start)
{
    return start == WindowStart::FirstCall ? QStringLiteral("first_call") : QStringLiteral("aligned");
}

std::optional<WindowStart> windowStartFromName(const QString &name)
{
    if (name == QLatin1String("aligned"))
        return WindowStart::Aligned;
    if (name == QLatin1String("first_call"))
        return WindowStart::FirstCall;
    return std::nullopt;
}

QString calendarName(Calendar calendar)
{
    switch (calendar) {
    case Calendar::None: break;
    case Calendar::Day: return QStringLiteral("day");
    case Calendar::Week: return QStringLiteral("week");
    case Calendar::Month: return QStringLiteral("month");
    }
    return {};
}

std::optional<Calendar> calendarFromName(const QString &name)
{
    for (const Calendar calendar : {Calendar::Day, Calendar::Week, Calendar::Month})
        if (name == calendarName(calendar))
            return calendar;
    return std::nullopt;
}

qint64 calendarNominalMs(Calendar calendar)
{
    constexpr qint64 day = 24 * 3600 * 1000;
    switch (calendar) {
    case Calendar::None: break;
    case Calendar::Day: return day;
    case Calendar::Week: return 7 * day;
    case Calendar::Month: return 31 * day;
    }
    return 0;
}

bool Policy::sameDefinition(const Policy &other) const
{
    return name == other.name && algorithm == other.algorithm && limit == other.limit && windowMs == other.windowMs
        && effectiveBurst() == other.effectiveBurst() && shadow == other.shadow && windowStart == other.windowStart
        && calendar == other.calendar && utcOffsetMinutes == other.utcOffsetMinutes && anchorDay == other.anchorDay
        && shadowOf == other.shadowOf && predictedRejectedShare == other.predictedRejectedShare
        && overrides == other.overrides && blockMs == other.blockMs && maxDebt == other.maxDebt
        && reserveTimeoutMs == other.reserveTimeoutMs && spread == other.spread && description == other.description;
}

QString PolicyError::toString() const
{
    QString where;
    if (!policy.isEmpty() && !field.isEmpty())
        where = Text::tr("policy \"%1\", field \"%2\": ").arg(policy, field);
    else if (!policy.isEmpty())
        where = Text::tr("policy \"%1\": ").arg(policy);
    else if (!field.isEmpty())
        where = Text::tr("field \"%1\": ").arg(field);
    return where + message;
}

bool isValidPolicyName(const QString &name)
{
    // Anchored as a whole: "$" alone would also let a trailing newline through.
    static const QRegularExpression pattern(
        QRegularExpression::anchoredPattern(QStringLiteral("[A-Za-z0-9_.-]{1,64}")));
    return pattern.match(name).hasMatch();
}

const QStringList &definitionFieldNames()
{
    static const QStringList names{QStringLiteral("name"),
                                   QStringLiteral("algorithm"),
                                   QStringLiteral("limit"),
                                   QStringLiteral("window_ms"),
                                   QStringLiteral("burst"),
                                   QStringLiteral("shadow"),
                                   QStringLiteral("window_start"),
                                   QStringLiteral("shadow_of"),
                                   QStringLiteral("predicted_rejected_share"),
                                   QStringLiteral("overrides"),
                                   QStringLiteral("block_ms"),
                                   QStringLiteral("max_debt"),
                                   QStringLiteral("reserve_timeout_ms"),
                                   QStringLiteral("calendar"),
                                   QStringLiteral("utc_offset_minutes"),
                                   QStringLiteral("anchor_day"),
                                   QStringLiteral("spread"),
                                   QStringLiteral("description")};
    return names;
}

namespace {

// What keeps a policy from being spread over policy.spread buckets. Each bucket must hold at least one unit of
// the limit and of the burst; what decides per subject rather than per bucket (overrides, a penalty, twins) and
// what would follow one bucket's call elsewhere (a lease, a reservation) is refused rather than split.
QVector<PolicyError> spreadProblems(const Policy &policy, bool baseInRange)
{
    QVector<PolicyError> errors;
    auto fail = [&](const char *field, const QString &message) {
        errors.append({policy.name, QLatin1String(field), message});
    };
    if (policy.spread < 2 || policy.spread > policy_limits::maxSpread) {
        fail("spread",
             Text::tr("must be a whole number of buckets from 2 to %1, or 0 for one bucket per subject")
                 .arg(policy_limits::maxSpread));
        return errors;
    }
    const qint64 smallest
        = std::min(policy.limit, algorithmUsesBurst(policy.algorithm) ? policy.effectiveBurst() : policy.limit);
    if (baseInRange && smallest < policy.spread)
        fail("spread",
             Text::tr("must be at most %1: each bucket holds a share of at least one unit of the limit "
                      "and the burst")
                 .arg(smallest));
    if (policy.algorithm == Algorithm::Concurrency)
        fail("spread",
             Text::tr("cannot be set for concurrency: a lease must be released in the bucket that "
                      "granted it"));
    if (!policy.overrides.isEmpty())
        fail("spread",
             Text::tr("cannot be combined with overrides: an override's limit is a subject's, not a "
                      "bucket's"));
    if (policy.blockMs != 0)
        fail("spread", Text::tr("cannot be combined with a penalty: a block would hold one bucket, not the subject"));
    if (policy.maxDebt != 0 || policy.reserveTimeoutMs != 0)
        fail("spread",
             Text::tr("cannot be combined with reservations: a settlement must reach the bucket that "
                      "reserved"));
    if (!policy.shadowOf.isEmpty())
        fail("spread", Text::tr("cannot be set on a shadow twin: a twin decides on its live policy's keys"));
    // Each bucket is a policy of its own in the library: one its checks would refuse (a share that takes longer
    // to refill than the whole, past 2^52 ms) must be refused here, before it can stop the library loading.
    for (int bucket = 0; baseInRange && errors.isEmpty() && bucket < policy.spread; ++bucket) {
        const QVector<PolicyError> refused = validatePolicy(spreadPart(policy, bucket));
        if (!refused.isEmpty())
            fail("spread",
                 Text::tr("would give bucket %1 a share its own checks refuse: %2")
                     .arg(bucket)
                     .arg(refused.first().message));
    }
    return errors;
}

} // namespace

QVector<PolicyError> validatePolicy(const Policy &policy)
{
    namespace limits = policy_limits;
    QVector<PolicyError> errors;
    auto fail = [&](const char *field, const QString &message) {
        errors.append({policy.name, QLatin1String(field), message});
    };

    if (!isValidPolicyName(policy.name))
        fail("name", Text::tr("must be 1 to 64 letters, digits, '_', '.' or '-'"));
    if (policy.limit < 1 || policy.limit > limits::maxLimit)
        fail("limit", Text::tr("must be a whole number from 1 to %1").arg(limits::maxLimit));
    if (policy.calendar != Calendar::None) {
        if (policy.algorithm != Algorithm::FixedWindow)
            fail("calendar", Text::tr("is for fixed windows only, not %1").arg(algorithmName(policy.algorithm)));
        else if (policy.windowStart != WindowStart::Aligned)
            fail("calendar", Text::tr("windows start on the calendar, not at the first call"));
        if (policy.windowMs != calendarNominalMs(policy.calendar))
            fail("window_ms", Text::tr("is set by the calendar: leave it out"));
        if (policy.utcOffsetMinutes < limits::minUtcOffsetMinutes
            || policy.utcOffsetMinutes > limits::maxUtcOffsetMinutes)
            fail("utc_offset_minutes",
                 Text::tr("must be a whole number of minutes from %1 to %2")
                     .arg(limits::minUtcOffsetMinutes)
                     .arg(limits::maxUtcOffsetMinutes));
        if (policy.anchorDay < 1 || policy.anchorDay > 31
            || (policy.anchorDay != 1 && policy.calendar != Calendar::Month))
            fail("anchor_day", Text::tr("must be a day of the month from 1 to 31, for a month only"));
    } else if (policy.windowMs < 1 || policy.windowMs > limits::maxWindowMs) {
        fail("window_ms",
             Text::tr("must be a whole number of milliseconds from 1 to %1 (one week)").arg(limits::maxWindowMs));
    } else if (policy.utcOffsetMinutes != 0 || policy.anchorDay != 1) {
        fail(policy.utcOffsetMinutes != 0 ? "utc_offset_minutes" : "anchor_day", Text::tr("needs a calendar"));
    }
    if (policy.burst < 0 || policy.burst > limits::maxBurst)
        fail("burst", Text::tr("must be a whole number from 1 to %1").arg(limits::maxBurst));
    if (policy.description.size() > limits::maxDescriptionLength)
        fail("description", Text::tr("must be at most %1 characters").arg(limits::maxDescriptionLength));
    // Every error is said, not the first: the checks below that compute with the limit, the window and the
    // burst wait for those to be in range; the others run whatever the rest holds.
    const bool baseInRange = errors.isEmpty();

    // Exactness: every wait the limiter replies (and every expiry it sets) is at most the time an empty
    // bucket takes to fill, ceil(burst * window_ms / limit) ms, and must stay within 2^52. (burst * window_ms
    // stays below 2^60; 2^52 * limit is only formed when it is smaller.)
    const qint64 burst = policy.effectiveBurst();
    if (baseInRange && algorithmUsesBurst(policy.algorithm)
        && (burst * policy.windowMs + policy.limit - 1) / policy.limit > limits::maxFillMs)
        fail("burst",
             Text::tr("must be at most %1 with a limit of %2 per %3 ms: an empty bucket must refill within 2^52 "
                      "ms (burst / limit windows, about 142,700 years)")
                 .arg(limits::maxFillMs * policy.limit / policy.windowMs)
                 .arg(policy.limit)
                 .arg(policy.windowMs));
    if (policy.windowStart != WindowStart::Aligned && policy.algorithm != Algorithm::FixedWindow)
        fail("window_start",
             Text::tr("must be aligned for %1: only a fixed window can start at the first call")
                 .arg(algorithmName(policy.algorithm)));
    if (!policy.shadowOf.isEmpty()) {
        if (!isValidPolicyName(policy.shadowOf) || policy.shadowOf == policy.name)
            fail("shadow_of", Text::tr("must name another policy"));
        else if (!policy.shadow)
            fail("shadow_of", Text::tr("needs shadow on: a twin only measures, its live policy decides"));
        else if (policy.algorithm == Algorithm::Concurrency)
            fail("shadow_of", Text::tr("cannot be set for concurrency: no caller would release a twin's leases"));
    }
    if (policy.predictedRejectedShare != -1
        && (policy.shadowOf.isEmpty() || !(policy.predictedRejectedShare >= 0 && policy.predictedRejectedShare <= 1)))
        fail("predicted_rejected_share", Text::tr("must be a share from 0 to 1, on a shadow twin (shadow_of)"));
    if (storesOneEntryPerCall(policy.algorithm) && policy.limit > limits::maxStoredEntries)
        fail("limit",
             Text::tr("must be at most %1 for %2, which keeps one entry per admitted call")
                 .arg(limits::maxStoredEntries)
                 .arg(algorithmName(policy.algorithm)));
    if (policy.blockMs < 0 || policy.blockMs > limits::maxBlockMs)
        fail("block_ms",
             Text::tr("must be a whole number of milliseconds from 1 to %1 (31 days), or 0 for no penalty")
                 .arg(limits::maxBlockMs));
    if ((policy.maxDebt != 0 || policy.reserveTimeoutMs != 0) && !algorithmSettles(policy.algorithm))
        fail(policy.maxDebt != 0 ? "max_debt" : "reserve_timeout_ms",
             Text::tr("applies to token_bucket, gcra, fixed_window and sliding_window, the algorithms that settle "
                      "reservations"));
    else if ((policy.maxDebt != 0 || policy.reserveTimeoutMs != 0) && policy.windowStart == WindowStart::FirstCall)
        fail(policy.maxDebt != 0 ? "max_debt" : "reserve_timeout_ms",
             Text::tr("needs aligned or calendar windows: a window that opens at each subject's first call keeps "
                      "no place for debt"));
    if (policy.maxDebt < 0 || policy.maxDebt > limits::maxBurst)
        fail("max_debt", Text::tr("must be a whole number of units from 0 to %1").arg(limits::maxBurst));
    else if (baseInRange && policy.maxDebt > 0
             && ((algorithmUsesBurst(policy.algorithm) ? burst : 0) + policy.maxDebt) * policy.windowMs / policy.limit
                 > limits::maxFillMs / 2)
        fail("max_debt",
             Text::tr("is too large for a limit of %1 per %2 ms: a bucket in debt must refill within 2^51 ms")
                 .arg(policy.limit)
                 .arg(policy.windowMs));
    if (policy.reserveTimeoutMs < 0 || policy.reserveTimeoutMs > limits::maxBlockMs)
        fail("reserve_timeout_ms",
             Text::tr("must be a whole number of milliseconds from 1 to %1 (31 days), or 0 for the window")
                 .arg(limits::maxBlockMs));
    if (policy.spread != 0)
        errors += spreadProblems(policy, baseInRange);
    if (baseInRange && !policy.overrides.isEmpty()) // each override is checked as the policy it makes
        errors += overrideProblems(policy);
    return errors;
}

Policy spreadPart(const Policy &policy, int index)
{
    Policy part = policy;
    const auto share = [&](qint64 whole) { return whole / policy.spread + (index < whole % policy.spread ? 1 : 0); };
    part.limit = share(policy.limit);
    // An algorithm without a burst ignores it: its buckets' is their limit, whatever the policy holds.
    part.burst = algorithmUsesBurst(policy.algorithm) ? share(policy.effectiveBurst()) : 0;
    part.spread = 0;
    return part;
}

QVector<PolicyError> twinProblems(const QVector<Policy> &policies)
{
    QHash<QString, const Policy *> byName;
    for (const Policy &policy : policies)
        byName.insert(policy.name, &policy);
    QVector<PolicyError> errors;
    for (const Policy &policy : policies) {
        if (policy.shadowOf.isEmpty())
            continue;
        const Policy *live = byName.value(policy.shadowOf);
        const auto fail = [&](const QString &message) {
            errors.append({policy.name, QStringLiteral("shadow_of"), message});
        };
        if (!live)
            fail(Text::tr("names \"%1\", which is not a policy").arg(policy.shadowOf));
        else if (live->shadow)
            fail(Text::tr("names \"%1\", a shadow policy: a twin follows a live one").arg(policy.shadowOf));
        else if (live->spread != 0)
            fail(Text::tr("names \"%1\", a spread policy: its calls reach one bucket of several, not a subject")
                     .arg(policy.shadowOf));
    }
    return errors;
}

PolicyError unknownFieldsProblem(const Policy &stored)
{
    return {stored.name, stored.unknownFields.join(QStringLiteral(", ")),
            Text::tr("was stored by a newer Sluice with fields this version does not know: saving it here would drop "
                     "them; save it with that version")};
}

} // namespace sluice::model
