// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDateTime>
#include <QString>
#include <QVector>

namespace sluice::ui {

// Round ticks for a time axis: every stepMs (1 s, 2 s, 5 s, 10 s, 15 s, 30 s, 1 min ... 1 day, the
// smallest that gives at most maxTicks), at whole multiples of the step in local time, labelled
// "HH:mm:ss" below a minute and "HH:mm" from there.
struct TimeTicks {
    qint64 stepMs = 0;
    QVector<qint64> at; // ms since the epoch, within the span
    QString format;
};
TimeTicks timeTicks(qint64 fromMs, qint64 toMs, int maxTicks, qint64 utcOffsetMs);

// A value axis from 0 to a round top: a step of 1, 2 or 5 times a power of ten giving at most
// maxTicks intervals, and the smallest multiple of it at or above the peak (95 gives 0 to 100 by 20).
struct ValueScale {
    double top = 1;
    double step = 0.2;
    int decimals = 1; // for labels: as many as the step needs
};
ValueScale valueScale(double peak, int maxTicks = 5);

// The time zone the axis speaks, as its title says it: "CET", or "UTC+05:30" when it has no name.
QString timeZoneText(const QDateTime &at);

} // namespace sluice::ui
