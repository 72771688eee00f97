// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/policy/policy_diff.h"

#include "model/format/terminal_text.h"
#include "model/format/units.h"
#include "model/policy/policy_summary.h"

#include <QCoreApplication>
#include <QMap>

namespace sluice::model {

namespace {

// This file's strings, under the context a translator sees them in.
struct Text {
    Q_DECLARE_TR_FUNCTIONS(sluice::model::PolicyDiff)
};

} // namespace

QVector<DefinitionField> definitionFields(const Policy &policy)
{
    return {{QStringLiteral("name"), Text::tr("Name"), policy.name},
            {QStringLiteral("algorithm"), Text::tr("Algorithm"), algorithmName(policy.algorithm)},
            {QStringLiteral("limit"), Text::tr("Limit"), formatCount(policy.limit)},
            {QStringLiteral("window_ms"), Text::tr("Window"), durationText(policy.windowMs)},
            {QStringLiteral("burst"), Text::tr("Burst"), formatCount(policy.effectiveBurst())},
            {QStringLiteral("shadow"), Text::tr("Shadow"), policy.shadow ? Text::tr("on") : Text::tr("off")},
            {QStringLiteral("window_start"), Text::tr("Window start"), windowStartText(policy)},
            {QStringLiteral("shadow_of"), Text::tr("Shadow of"), policy.shadowOf},
            {QStringLiteral("predicted_rejected_share"), Text::tr("Predicted rejected"),
             policy.predictedRejectedShare >= 0 ? formatShare(policy.predictedRejectedShare) : QString()},
            {QStringLiteral("calendar"), Text::tr("Calendar"), calendarText(policy)},
            {QStringLiteral("overrides"), Text::tr("Overrides"),
             policy.overrides.isEmpty() ? QString() : Text::tr("%n override(s)", nullptr, policy.overrides.size())},
            {QStringLiteral("block_ms"), Text::tr("Penalty"),
             policy.blockMs > 0 ? durationText(policy.blockMs) : QString()},
            {QStringLiteral("max_debt"), Text::tr("Most debt"),
             policy.maxDebt > 0 ? formatCount(policy.maxDebt) : QString()},
            {QStringLiteral("reserve_timeout_ms"), Text::tr("Reservations wait"),
             policy.reserveTimeoutMs > 0 ? durationText(policy.reserveTimeoutMs) : QString()},
            {QStringLiteral("spread"), Text::tr("Spread"),
             policy.spread > 0 ? Text::tr("%1 buckets").arg(policy.spread) : QString()},
            // One line, whatever a file or another writer put in it: a line break could forge a line of the plan.
            {QStringLiteral("description"), Text::tr("Description"), terminalText(policy.description)}};
}

QVector<FieldChange> diffPolicies(const Policy *before, const Policy *after)
{
    const auto beforeFields = before ? definitionFields(*before) : QVector<DefinitionField>{};
    const auto afterFields = after ? definitionFields(*after) : QVector<DefinitionField>{};
    const qsizetype fields = std::max(beforeFields.size(), afterFields.size());
    QVector<FieldChange> changes;
    for (qsizetype i = 0; i < fields; ++i) {
        const DefinitionField &named = i < beforeFields.size() ? beforeFields.at(i) : afterFields.at(i);
        const QString old = i < beforeFields.size() ? beforeFields.at(i).text : QString();
        const QString now = i < afterFields.size() ? afterFields.at(i).text : QString();
        // A field empty on both sides does not apply (a window start of no fixed window, no description).
        if (old.isEmpty() && now.isEmpty())
            continue;
        if (named.field == QLatin1String("overrides") && before && after) {
            // Only the overrides that differ: a policy may hold 10,000.
            const OverrideChanges differing = overrideChanges(before->overrides, after->overrides);
            if (!differing.before.isEmpty() || !differing.after.isEmpty())
                changes.append({named.field, named.label, differing.before, differing.after});
        } else if (!before || !after || old != now) {
            changes.append({named.field, named.label, old, now});
        }
    }
    return changes;
}

QVector<PolicyDelta> policyDeltas(const QVector<Policy> &from, const QVector<Policy> &to)
{
    QMap<QString, const Policy *> before;
    for (const Policy &policy : from)
        before.insert(policy.name, &policy);
    QMap<QString, const Policy *> after;
    for (const Policy &policy : to)
        after.insert(policy.name, &policy);
    QVector<PolicyDelta> deltas;
    for (auto it = after.cbegin(); it != after.cend(); ++it) {
        const Policy *old = before.value(it.key());
        const QVector<FieldChange> fields = diffPolicies(old, it.value());
        if (!old)
            deltas.append({it.key(), PolicyDelta::Kind::Added, fields});
        else if (!fields.isEmpty())
            deltas.append({it.key(), PolicyDelta::Kind::Changed, fields});
    }
    for (auto it = before.cbegin(); it != before.cend(); ++it)
        if (!after.contains(it.key()))
            deltas.append({it.key(), PolicyDelta::Kind::Removed, {}});
    return deltas;
}

} // namespace sluice::model
