// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/deploy/node_order.h"

#include <algorithm>

namespace sluice::model {

bool listedBefore(const QString &a, const QString &b)
{
    const qsizetype aColon = a.lastIndexOf(QLatin1Char(':')), bColon = b.lastIndexOf(QLatin1Char(':'));
    const int hosts = QStringView(a).left(aColon).compare(QStringView(b).left(bColon));
    if (hosts != 0)
        return hosts < 0;
    return QStringView(a).mid(aColon + 1).toInt() < QStringView(b).mid(bColon + 1).toInt();
}

QStringList inAddressOrder(QStringList nodes)
{
    std::sort(nodes.begin(), nodes.end(), listedBefore);
    return nodes;
}

} // namespace sluice::model
