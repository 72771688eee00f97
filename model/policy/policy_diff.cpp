// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/policy/policy_diff.h"

#include "model/policy/policy_summary.h"

namespace sluice::model {

QVector<QPair<QString, QString>> definitionTexts(const Policy &policy)
{
    return {{QStringLiteral("name"), policy.name},
            {QStringLiteral("algorithm"), algorithmName(policy.algorithm)},
            {QStringLiteral("limit"), QString::number(policy.limit)},
            {QStringLiteral("window_ms"),
             QStringLiteral("%1 (%2)").arg(policy.windowMs).arg(durationText(policy.windowMs))},
            {QStringLiteral("burst"), QString::number(policy.effectiveBurst())},
            {QStringLiteral("shadow"), policy.shadow ? QStringLiteral("on") : QStringLiteral("off")},
            {QStringLiteral("description"), policy.description}};
}

QVector<FieldChange> diffPolicies(const Policy *before, const Policy *after)
{
    const auto beforeTexts = before ? definitionTexts(*before) : QVector<QPair<QString, QString>>{};
    const auto afterTexts = after ? definitionTexts(*after) : QVector<QPair<QString, QString>>{};
    const qsizetype fields = std::max(beforeTexts.size(), afterTexts.size());
    QVector<FieldChange> changes;
    for (qsizetype i = 0; i < fields; ++i) {
        const QString field = i < beforeTexts.size() ? beforeTexts.at(i).first : afterTexts.at(i).first;
        const QString old = i < beforeTexts.size() ? beforeTexts.at(i).second : QString();
        const QString now = i < afterTexts.size() ? afterTexts.at(i).second : QString();
        if (!before || !after || old != now)
            changes.append({field, old, now});
    }
    return changes;
}

} // namespace sluice::model
