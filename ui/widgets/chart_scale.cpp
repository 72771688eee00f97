// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/widgets/chart_scale.h"

#include <QTimeZone>

#include <algorithm>
#include <cmath>

namespace sluice::ui {

TimeTicks timeTicks(qint64 fromMs, qint64 toMs, int maxTicks, qint64 utcOffsetMs)
{
    static const qint64 steps[] = {1000,   2000,   5000,    10000,   15000,   30000,    60000,    120000,   300000,
                                   600000, 900000, 1800000, 3600000, 7200000, 10800000, 21600000, 43200000, 86400000};
    TimeTicks ticks;
    const qint64 span = std::max<qint64>(1, toMs - fromMs);
    ticks.stepMs = steps[std::size(steps) - 1];
    for (qint64 step : steps) {
        if (span <= step * std::max(1, maxTicks)) {
            ticks.stepMs = step;
            break;
        }
    }
    ticks.format = ticks.stepMs < 60000 ? QStringLiteral("HH:mm:ss") : QStringLiteral("HH:mm");
    // The first whole multiple of the step (in local time) at or after the start.
    const qint64 local = fromMs + utcOffsetMs;
    qint64 first = local - ((local % ticks.stepMs) + ticks.stepMs) % ticks.stepMs;
    if (first < local)
        first += ticks.stepMs;
    for (qint64 at = first - utcOffsetMs; at <= toMs; at += ticks.stepMs)
        ticks.at << at;
    return ticks;
}

ValueScale valueScale(double peak, int maxTicks)
{
    ValueScale scale;
    if (!(peak > 0) || !std::isfinite(peak))
        return scale; // 0 to 1 by 0.2
    const double rough = peak / std::max(1, maxTicks);
    const double power = std::pow(10.0, std::floor(std::log10(rough)));
    for (double factor : {1.0, 2.0, 5.0, 10.0}) {
        scale.step = factor * power;
        if (scale.step >= rough)
            break;
    }
    scale.top = std::ceil(peak / scale.step - 1e-9) * scale.step;
    scale.decimals = std::max(0, int(-std::floor(std::log10(scale.step) + 1e-9)));
    return scale;
}

QString timeZoneText(const QDateTime &at)
{
    const QString abbreviation = at.timeZoneAbbreviation();
    if (!abbreviation.isEmpty() && !abbreviation.front().isDigit() && !abbreviation.startsWith(QLatin1Char('+'))
        && !abbreviation.startsWith(QLatin1Char('-')))
        return abbreviation;
    const int offset = at.offsetFromUtc();
    return QStringLiteral("UTC%1%2:%3")
        .arg(offset < 0 ? QLatin1Char('-') : QLatin1Char('+'))
        .arg(std::abs(offset) / 3600, 2, 10, QLatin1Char('0'))
        .arg(std::abs(offset) / 60 % 60, 2, 10, QLatin1Char('0'));
}

} // namespace sluice::ui
