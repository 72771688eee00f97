// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "app/ctl/ctl_request.h"

namespace sluice::app {

// Fires the request's test traffic (fire), or as many calls as the server answers (bench), and reports it.
void fireTraffic(const CtlRequest &request, bool bench);

} // namespace sluice::app
