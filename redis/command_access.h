// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArrayList>

namespace sluice::redis {

// Whether a command only reads. A read-only connection lets these through and refuses the rest,
// so a command this list does not know is treated as a write: the safe side for an operator
// who asked for a connection that cannot change anything.
bool isReadOnlyCommand(const QByteArrayList &args);

} // namespace sluice::redis
