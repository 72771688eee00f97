// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/limiter/lua_source.h"

#include <QFile>

namespace sluice::model {

QByteArray luaSource(const QString &fileName)
{
    // Compiled into the binary: reading it touches no disk.
    QFile file(QStringLiteral(":/lua/") + fileName);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace sluice::model
