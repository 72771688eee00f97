// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringList>

namespace sluice::model {

// Primaries listed by address, the port as a number (127.0.0.1:9000 before 127.0.0.1:27101), in
// whatever order a deployment names them (Cluster in its own order).
bool listedBefore(const QString &a, const QString &b);
QStringList inAddressOrder(QStringList nodes);

} // namespace sluice::model
