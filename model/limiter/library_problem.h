// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace sluice::model {

// What an error reply to one of the library's functions means for a dashboard: a server without
// the library (or with one too old to have the function) says so; anything else as Redis said it.
QString libraryCallProblem(const QString &error);

} // namespace sluice::model
