// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace sluice::model {

// Who is acting, for audit entries: "user@host (tool)". The user is $USER when set (sudo keeps
// the caller's), else the account the process runs as.
QString operatorIdentity(const QString &tool);

} // namespace sluice::model
