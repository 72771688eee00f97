// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>

namespace sluice::model {

// The text of a Lua file from lua/, compiled into the core library as a resource.
QByteArray luaSource(const QString &fileName);

} // namespace sluice::model
