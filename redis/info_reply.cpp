// SPDX-License-Identifier: GPL-3.0-or-later
#include "redis/info_reply.h"

namespace sluice::redis {

QHash<QString, QString> parseInfo(const QByteArray &info)
{
    QHash<QString, QString> fields;
    for (const QByteArray &rawLine : info.split('\n')) {
        const QByteArray line = rawLine.trimmed();
        if (line.isEmpty() || line.startsWith('#'))
            continue;
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0)
            continue;
        fields.insert(QString::fromUtf8(line.left(colon)), QString::fromUtf8(line.mid(colon + 1)));
    }
    return fields;
}

} // namespace sluice::redis
