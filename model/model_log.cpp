// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/model_log.h"

Q_LOGGING_CATEGORY(lcPublish, "sluice.publish", QtWarningMsg)
Q_LOGGING_CATEGORY(lcFire, "sluice.fire", QtWarningMsg)
Q_LOGGING_CATEGORY(lcHistory, "sluice.history", QtWarningMsg)
