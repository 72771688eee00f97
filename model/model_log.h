// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLoggingCategory>

// What the domain does, for -v and QT_LOGGING_RULES: off by default (warnings only), never a secret.
Q_DECLARE_LOGGING_CATEGORY(lcPublish) // sluice.publish: what each primary runs, what is refused, loaded, recorded
Q_DECLARE_LOGGING_CATEGORY(lcFire)    // sluice.fire: test traffic runs, their connections and results
Q_DECLARE_LOGGING_CATEGORY(lcHistory) // sluice.history: the rate history kept on disk, read back, saved, refused
