// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/format/figure_age.h"

#include "model/format/units.h"

#include <QCoreApplication>

namespace sluice::model {

QString notThePresent(const QString &why, qint64 readAtMs)
{
    return QCoreApplication::translate("sluice::model", "Not the present: %1. These are the figures read at %2.")
        .arg(why, formatClock(readAtMs));
}

} // namespace sluice::model
