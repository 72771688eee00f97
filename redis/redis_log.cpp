// SPDX-License-Identifier: GPL-3.0-or-later
#include "redis/redis_log.h"

Q_LOGGING_CATEGORY(lcConnection, "sluice.connection", QtWarningMsg)
Q_LOGGING_CATEGORY(lcRouting, "sluice.routing", QtWarningMsg)
