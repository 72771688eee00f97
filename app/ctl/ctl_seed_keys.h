// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "app/ctl/ctl_request.h"

namespace sluice::app {

// keys --layout: a seed layout's buckets (request.args' filter aside), at most `limit` of them.
void runSeedKeys(const CtlRequest &request, int limit);
// reset-key --layout: one seed layout bucket's keys deleted, so it is full again.
void runSeedReset(const CtlRequest &request);

} // namespace sluice::app
