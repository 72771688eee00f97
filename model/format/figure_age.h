// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace sluice::model {

// What a greyed figure says on hover when its last reading failed, the same on every view: "Not the present:
// <why>. These are the figures read at 14:03:27." (`readAtMs`: this machine's clock, ms since the epoch).
QString notThePresent(const QString &why, qint64 readAtMs);

} // namespace sluice::model
