// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QHash>
#include <QString>

namespace sluice::redis {

// The fields of an INFO reply ("key:value" lines; "# Section" headers and blanks skipped).
QHash<QString, QString> parseInfo(const QByteArray &info);

} // namespace sluice::redis
