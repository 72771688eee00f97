// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include <optional>

namespace sluice::model {

// "4,251": a whole number with the locale's grouping, the one format for counts, limits and sizes.
QString formatCount(qint64 n);
// A rate or other measured value: "9.5" below 10, "4,251" above, never "10.0" beside "10".
QString formatDecimal(double value);
// A share of a whole (0..1) as "12.5%".
QString formatShare(double share);
// "1.5 MiB": binary units, one decimal from KiB up.
QString formatBytes(qint64 bytes);
// "3 d 4 h", "5 min 2 s": the two largest units.
QString formatDuration(qint64 seconds);
// A wait as an operator reads it at a glance: "350 ms", "12.5 s", "4 min 10 s", "2 h 5 min".
QString formatWait(qint64 ms);
// The local time of day of an instant (ms since the epoch), "14:03:27": when a figure was read.
QString formatClock(qint64 ms);
// The local date and time of an instant, "2026-11-28 14:03:27": the ends of a range that may span days.
QString formatDateTime(qint64 ms);

// "500ms", "30s", "1.5s", "1m", "2h", "1d" (or a bare number of milliseconds) as milliseconds; none when
// the text is no such duration.
std::optional<qint64> parseDurationMs(const QString &text);

} // namespace sluice::model
