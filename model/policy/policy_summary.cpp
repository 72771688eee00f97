// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/policy/policy_summary.h"

#include "model/format/units.h"

#include <QCoreApplication>

namespace sluice::model {

namespace {

// This file's strings, under the context a translator sees them in.
struct Text {
    Q_DECLARE_TR_FUNCTIONS(sluice::model::PolicySummary)
};

QString requests(qint64 n)
{
    return n == 1 ? Text::tr("1 request") : Text::tr("%1 requests").arg(formatCount(n));
}

} // namespace

QString durationText(qint64 ms, bool singular)
{
    struct Unit {
        qint64 ms;
        const char *one;
        const char *many;
    };
    static const Unit units[] = {{86'400'000, "day", "days"},
                                 {3'600'000, "hour", "hours"},
                                 {60'000, "minute", "minutes"},
                                 {1'000, "second", "seconds"}};
    for (const Unit &unit : units) {
        if (ms % unit.ms != 0)
            continue;
        const qint64 n = ms / unit.ms;
        if (n == 1)
            return singular ? Text::tr(unit.one) : Text::tr("1 %1").arg(Text::tr(unit.one));
        return Text::tr("%1 %2").arg(formatCount(n), Text::tr(unit.many));
    }
    return Text::tr("%1 ms").arg(formatCount(ms));
}

namespace {

// The window as a duration, or a calendar's period ("calendar month").
QString periodText(const Policy &policy, bool singular = false)
{
    switch (policy.calendar) {
    case Calendar::None: break;
    case Calendar::Day: return Text::tr("calendar day");
    case Calendar::Week: return Text::tr("calendar week");
    case Calendar::Month: return Text::tr("calendar month");
    }
    return durationText(policy.windowMs, singular);
}

} // namespace

QString describePolicy(const Policy &policy)
{
    const QString per = periodText(policy, true);
    const qint64 burst = policy.effectiveBurst();
    QString text;
    switch (policy.algorithm) {
    case Algorithm::TokenBucket:
        text = Text::tr("Up to %1 at once, then %2 per %3 as tokens refill.")
                   .arg(requests(burst), formatCount(policy.limit), per);
        break;
    case Algorithm::Gcra:
        text = Text::tr("Up to %1 at once, then %2 per %3, evenly spaced.")
                   .arg(requests(burst), formatCount(policy.limit), per);
        break;
    case Algorithm::FixedWindow:
        text = policy.windowStart == WindowStart::FirstCall
            ? Text::tr("At most %1 per %2, counted in windows that open at each subject's first call; up to twice "
                       "that can pass around a window's edge.")
                  .arg(requests(policy.limit), per)
            : Text::tr("At most %1 per %2, counted in windows aligned to the clock; up to twice that can pass "
                       "around a window's edge.")
                  .arg(requests(policy.limit), per);
        break;
    case Algorithm::SlidingLog:
        text = Text::tr("At most %1 in any %2, exactly.").arg(requests(policy.limit), periodText(policy, true));
        break;
    case Algorithm::SlidingWindow:
        text = Text::tr("About %1 in any %2, estimated from the current and previous window.")
                   .arg(requests(policy.limit), periodText(policy, true));
        break;
    case Algorithm::LeakyBucket:
        text = Text::tr("Queues up to %1 and lets %2 through per %3; a queued request is told how long to wait, "
                        "one that does not fit is rejected.")
                   .arg(requests(burst), formatCount(policy.limit), per);
        break;
    case Algorithm::Concurrency:
        text = Text::tr("At most %1 in flight at once; a lease not released ends after %2.")
                   .arg(requests(policy.limit), periodText(policy));
        break;
    }
    if (!policy.overrides.isEmpty())
        text += QLatin1Char(' ')
            + Text::tr("%n subject(s) or prefix(es) have rules of their own (overrides).", nullptr,
                       policy.overrides.size());
    if (policy.blockMs > 0)
        text += QLatin1Char(' ')
            + Text::tr("A rejected subject stays rejected for %1.").arg(durationText(policy.blockMs));
    if (policy.spread > 0)
        text += QLatin1Char(' ')
            + Text::tr("Each subject is spread over %1 buckets in as many Cluster slots, each holding its share: "
                       "callers pick one at random per call.")
                  .arg(policy.spread);
    if (policy.shadow)
        text += QLatin1Char(' ') + Text::tr("Shadow mode: rejections are only counted, every request passes.");
    return text;
}

QString windowInWords(const Policy &policy, bool singular)
{
    const QString window = periodText(policy, singular);
    return policy.windowStart == WindowStart::FirstCall ? Text::tr("%1 from the first call").arg(window) : window;
}

QString windowStartText(const Policy &policy)
{
    if (policy.algorithm != Algorithm::FixedWindow)
        return {};
    return policy.windowStart == WindowStart::FirstCall ? Text::tr("at the first call")
                                                        : Text::tr("aligned to the clock");
}

QString limitInWords(const Policy &policy)
{
    if (policy.algorithm == Algorithm::Concurrency)
        return Text::tr("%1 at once").arg(formatCount(policy.limit));
    const QString rate = Text::tr("%1 per %2").arg(formatCount(policy.limit), periodText(policy, true));
    const QString limit = algorithmUsesBurst(policy.algorithm) && policy.effectiveBurst() != policy.limit
        ? Text::tr("%1, burst %2").arg(rate, formatCount(policy.effectiveBurst()))
        : rate;
    return policy.spread > 0 ? Text::tr("%1, %2 buckets").arg(limit).arg(policy.spread) : limit;
}

QString withShadowMark(const QString &text)
{
    return Text::tr("%1 [shadow]").arg(text);
}

QSet<QString> shadowPolicyNames(const QVector<Policy> &policies)
{
    QSet<QString> names;
    for (const Policy &policy : policies)
        if (policy.shadow)
            names.insert(policy.name);
    return names;
}

QHash<QString, int> spreadPolicies(const QVector<Policy> &policies)
{
    QHash<QString, int> spread;
    for (const Policy &policy : policies)
        if (policy.spread > 0)
            spread.insert(policy.name, policy.spread);
    return spread;
}

QString calendarText(const Policy &policy)
{
    if (policy.calendar == Calendar::None)
        return {};
    const int offset = policy.utcOffsetMinutes;
    const QString zone = offset == 0 ? QStringLiteral("UTC")
                                     : QStringLiteral("UTC%1%2:%3")
                                           .arg(offset < 0 ? QLatin1Char('-') : QLatin1Char('+'))
                                           .arg(std::abs(offset) / 60, 2, 10, QLatin1Char('0'))
                                           .arg(std::abs(offset) % 60, 2, 10, QLatin1Char('0'));
    switch (policy.calendar) {
    case Calendar::None: break;
    case Calendar::Day: return Text::tr("day from midnight, %1").arg(zone);
    case Calendar::Week: return Text::tr("week from Monday, %1").arg(zone);
    case Calendar::Month:
        return policy.anchorDay == 1
            ? Text::tr("month from the 1st, %1").arg(zone)
            : Text::tr("month from day %1 (a shorter month's last day), %2").arg(policy.anchorDay).arg(zone);
    }
    return {};
}

} // namespace sluice::model
