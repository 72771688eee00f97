// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArrayView>
#include <QString>

#include <optional>

namespace sluice::model {

// A logged time: milliseconds since the epoch, and whether the log gave whole seconds only (the
// replay then spreads a second's lines evenly over it).
struct LogTime {
    qint64 ms = 0;
    bool wholeSecond = false;
};

// Reads a time in any form an access log writes, told apart by its shape:
//   nginx's $time_local        10/Oct/2000:13:55:36 -0700 (also with the brackets)
//   RFC 3339 / ISO 8601        2000-10-10T13:55:36.123+02:00, a space for the T, Z, +hh:mm, +hhmm or +hh
//   epoch seconds              1700000000 or 1700000000.123 ($msec)
//   epoch milliseconds         1700000000123 (a whole number of 12 digits or more)
std::optional<LogTime> parseLogTime(QByteArrayView text, QString *problem);

} // namespace sluice::model
