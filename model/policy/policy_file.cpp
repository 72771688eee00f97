// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/policy/policy_file.h"

#include "model/policy/policy_file_text.h"

#include <QCoreApplication>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>

#include <algorithm>
#include <cmath>

namespace sluice::model {

namespace {

// This file's strings, under the context a translator sees them in.
struct Text {
    Q_DECLARE_TR_FUNCTIONS(sluice::model::PolicyFile)
};

const QStringList &knownFields = definitionFieldNames();

QString jsonTypeName(const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::Null: return QStringLiteral("null");
    case QJsonValue::Bool: return QStringLiteral("a boolean");
    case QJsonValue::Double: return QStringLiteral("a number");
    case QJsonValue::String: return QStringLiteral("a string");
    case QJsonValue::Array: return QStringLiteral("an array");
    case QJsonValue::Object: return QStringLiteral("an object");
    case QJsonValue::Undefined: break;
    }
    return QStringLiteral("nothing");
}

// Reads one policy object; appends its problems to errors.
Policy readPolicy(const QJsonObject &object, int index, QVector<PolicyError> &errors)
{
    Policy policy;
    const QJsonValue nameValue = object.value(QLatin1String("name"));
    policy.name = nameValue.isString() ? nameValue.toString() : QStringLiteral("#%1").arg(index + 1);
    const qsizetype firstError = errors.size();
    auto fail = [&](const QString &field, const QString &message) { errors.append({policy.name, field, message}); };

    for (auto it = object.begin(); it != object.end(); ++it)
        if (!knownFields.contains(it.key()))
            fail(it.key(), Text::tr("is not a policy field (known: %1)").arg(knownFields.join(QStringLiteral(", "))));

    if (!nameValue.isString())
        fail(QStringLiteral("name"), Text::tr("is required and must be a string, not %1").arg(jsonTypeName(nameValue)));

    const QJsonValue algorithmValue = object.value(QLatin1String("algorithm"));
    if (!algorithmValue.isString()) {
        fail(QStringLiteral("algorithm"),
             Text::tr("is required and must be a string, not %1").arg(jsonTypeName(algorithmValue)));
    } else if (const auto algorithm = algorithmFromName(algorithmValue.toString())) {
        policy.algorithm = *algorithm;
    } else {
        fail(QStringLiteral("algorithm"),
             Text::tr("\"%1\" is not one of %2")
                 .arg(algorithmValue.toString(), algorithmNames().join(QStringLiteral(", "))));
    }

    // A calendar sets the window: window_ms is then left out.
    const QJsonValue calendarValue = object.value(QLatin1String("calendar"));
    if (!calendarValue.isUndefined()) {
        if (const auto calendar = calendarFromName(calendarValue.toString())) {
            policy.calendar = *calendar;
            policy.windowMs = calendarNominalMs(*calendar);
        } else {
            fail(QStringLiteral("calendar"),
                 Text::tr("must be \"day\", \"week\" or \"month\", not %1")
                     .arg(calendarValue.isString() ? QStringLiteral("\"%1\"").arg(calendarValue.toString().left(40))
                                                   : jsonTypeName(calendarValue)));
        }
        if (object.contains(QLatin1String("window_ms")))
            fail(QStringLiteral("window_ms"), Text::tr("cannot be set with a calendar, which sets the window"));
    }

    // A whole number, negative too: sign checks are the caller's.
    auto readInteger = [&](const char *field, qint64 *target) {
        const QJsonValue value = object.value(QLatin1String(field));
        const double number = value.toDouble();
        if (!value.isDouble() || std::floor(number) != number || std::fabs(number) > 9007199254740992.0) {
            fail(QLatin1String(field),
                 value.isUndefined() ? Text::tr("is required")
                                     : Text::tr("must be a whole number, not %1")
                                           .arg(value.isDouble() ? QString::number(number) : jsonTypeName(value)));
            return false;
        }
        *target = static_cast<qint64>(number);
        return true;
    };
    auto readWhole = [&](const char *field, bool required, qint64 *target) {
        const QJsonValue value = object.value(QLatin1String(field));
        if (value.isUndefined() && !required)
            return;
        if (!readInteger(field, target))
            return;
        if (*target < 1)
            fail(QLatin1String(field), Text::tr("must be positive, not %1").arg(*target));
    };
    const auto readSmall = [&](const char *field, int *target) {
        qint64 value = 0;
        if (object.contains(QLatin1String(field)) && readInteger(field, &value))
            *target = int(std::clamp<qint64>(value, -100000, 100000)); // out of range: validatePolicy() says so
    };
    readSmall("utc_offset_minutes", &policy.utcOffsetMinutes);
    readSmall("anchor_day", &policy.anchorDay);
    readSmall("spread", &policy.spread);
    readWhole("limit", true, &policy.limit);
    if (calendarValue.isUndefined())
        readWhole("window_ms", true, &policy.windowMs);
    readWhole("burst", false, &policy.burst);
    readWhole("block_ms", false, &policy.blockMs);
    readWhole("reserve_timeout_ms", false, &policy.reserveTimeoutMs);
    if (object.contains(QLatin1String("max_debt")) && readInteger("max_debt", &policy.maxDebt) && policy.maxDebt < 0)
        fail(QStringLiteral("max_debt"), Text::tr("must be 0 or more, not %1").arg(policy.maxDebt));

    const QJsonValue shadowValue = object.value(QLatin1String("shadow"));
    if (!shadowValue.isUndefined() && !shadowValue.isBool())
        fail(QStringLiteral("shadow"), Text::tr("must be true or false, not %1").arg(jsonTypeName(shadowValue)));
    policy.shadow = shadowValue.toBool(false);

    const QJsonValue windowStartValue = object.value(QLatin1String("window_start"));
    if (!windowStartValue.isUndefined()) {
        const auto start = windowStartFromName(windowStartValue.toString());
        if (!start)
            fail(QStringLiteral("window_start"),
                 windowStartValue.isString()
                     ? Text::tr("must be \"aligned\" or \"first_call\", not \"%1\"")
                           .arg(windowStartValue.toString().left(40))
                     : Text::tr("must be \"aligned\" or \"first_call\", not %1").arg(jsonTypeName(windowStartValue)));
        else
            policy.windowStart = *start;
    }

    const QJsonValue shadowOfValue = object.value(QLatin1String("shadow_of"));
    if (!shadowOfValue.isUndefined() && !shadowOfValue.isString())
        fail(QStringLiteral("shadow_of"), Text::tr("must be a policy name, not %1").arg(jsonTypeName(shadowOfValue)));
    policy.shadowOf = shadowOfValue.toString();

    const QJsonValue predictedValue = object.value(QLatin1String("predicted_rejected_share"));
    if (!predictedValue.isUndefined() && !predictedValue.isDouble())
        fail(QStringLiteral("predicted_rejected_share"),
             Text::tr("must be a number from 0 to 1, not %1").arg(jsonTypeName(predictedValue)));
    policy.predictedRejectedShare = predictedValue.toDouble(-1);

    const QJsonValue overridesValue = object.value(QLatin1String("overrides"));
    if (!overridesValue.isUndefined()) {
        QString problem;
        if (const auto overrides = overridesFromJson(overridesValue, &problem))
            policy.overrides = *overrides;
        else
            fail(QStringLiteral("overrides"), problem);
    }

    const QJsonValue descriptionValue = object.value(QLatin1String("description"));
    if (!descriptionValue.isUndefined() && !descriptionValue.isString())
        fail(QStringLiteral("description"), Text::tr("must be a string, not %1").arg(jsonTypeName(descriptionValue)));
    policy.description = descriptionValue.toString();

    // Range and consistency checks of what was read: a field that could not be read holds a default, so it
    // is not judged again, nor what depends on it; with no algorithm, nothing more is judged.
    QSet<QString> unread;
    for (qsizetype at = firstError; at < errors.size(); ++at)
        unread.insert(errors.at(at).field);
    if (unread.contains(QStringLiteral("algorithm")))
        return policy;
    const QHash<QString, QStringList> dependents{
        {QStringLiteral("calendar"),
         {QStringLiteral("window_ms"), QStringLiteral("utc_offset_minutes"), QStringLiteral("anchor_day")}},
        {QStringLiteral("shadow"), {QStringLiteral("shadow_of"), QStringLiteral("predicted_rejected_share")}},
        {QStringLiteral("shadow_of"), {QStringLiteral("predicted_rejected_share")}}};
    for (auto it = dependents.begin(); it != dependents.end(); ++it)
        if (unread.contains(it.key()))
            for (const QString &field : it.value())
                unread.insert(field);
    for (const PolicyError &error : validatePolicy(policy))
        if (!unread.contains(error.field))
            errors.append(error);
    return policy;
}

} // namespace

PolicyFile PolicyFile::parse(const QByteArray &json)
{
    PolicyFile file;
    file.errors = policyFileTextProblems(json);
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        // Bytes that are not UTF-8 stop QJsonDocument there; the text check has named their policy and field.
        if (parseError.error != QJsonParseError::IllegalUTF8String || file.errors.isEmpty())
            file.errors.append(
                {{},
                 {},
                 Text::tr("not valid JSON at byte %1: %2").arg(parseError.offset).arg(parseError.errorString())});
        return file;
    }
    if (!document.isObject()) {
        file.errors.append({{}, {}, Text::tr("the file must hold a JSON object with a \"policies\" array")});
        return file;
    }
    const QJsonObject root = document.object();
    for (auto it = root.begin(); it != root.end(); ++it)
        if (it.key() != QLatin1String("policies"))
            file.errors.append({{}, it.key(), Text::tr("is not known at the top level (only \"policies\")")});
    const QJsonValue list = root.value(QLatin1String("policies"));
    if (!list.isArray()) {
        file.errors.append({{},
                            QStringLiteral("policies"),
                            Text::tr("is required and must be an array, not %1").arg(jsonTypeName(list))});
        return file;
    }

    QSet<QString> seen;
    const QJsonArray array = list.toArray();
    for (int i = 0; i < array.size(); ++i) {
        if (!array.at(i).isObject()) {
            file.errors.append({QStringLiteral("#%1").arg(i + 1),
                                {},
                                Text::tr("must be an object, not %1").arg(jsonTypeName(array.at(i)))});
            continue;
        }
        Policy policy = readPolicy(array.at(i).toObject(), i, file.errors);
        if (seen.contains(policy.name))
            file.errors.append({policy.name, QStringLiteral("name"), Text::tr("appears more than once in the file")});
        seen.insert(policy.name);
        file.policies.append(policy);
    }
    if (!file.ok())
        file.policies.clear();
    return file;
}

QJsonObject policyToJson(const Policy &policy)
{
    QJsonObject object{{QStringLiteral("name"), policy.name},
                       {QStringLiteral("algorithm"), algorithmName(policy.algorithm)},
                       {QStringLiteral("limit"), static_cast<double>(policy.limit)},
                       {QStringLiteral("window_ms"), static_cast<double>(policy.windowMs)},
                       {QStringLiteral("burst"), static_cast<double>(policy.effectiveBurst())},
                       {QStringLiteral("shadow"), policy.shadow}};
    if (policy.algorithm == Algorithm::FixedWindow)
        object.insert(QStringLiteral("window_start"), windowStartName(policy.windowStart));
    if (!policy.shadowOf.isEmpty())
        object.insert(QStringLiteral("shadow_of"), policy.shadowOf);
    if (policy.predictedRejectedShare >= 0)
        object.insert(QStringLiteral("predicted_rejected_share"), policy.predictedRejectedShare);
    if (policy.calendar != Calendar::None) {
        object.remove(QStringLiteral("window_ms"));
        object.remove(QStringLiteral("window_start"));
        object.insert(QStringLiteral("calendar"), calendarName(policy.calendar));
        object.insert(QStringLiteral("utc_offset_minutes"), policy.utcOffsetMinutes);
        if (policy.calendar == Calendar::Month)
            object.insert(QStringLiteral("anchor_day"), policy.anchorDay);
    }
    if (!policy.overrides.isEmpty())
        object.insert(QStringLiteral("overrides"), overridesToJson(policy.overrides));
    if (policy.blockMs > 0)
        object.insert(QStringLiteral("block_ms"), static_cast<double>(policy.blockMs));
    if (policy.maxDebt > 0)
        object.insert(QStringLiteral("max_debt"), static_cast<double>(policy.maxDebt));
    if (policy.reserveTimeoutMs > 0)
        object.insert(QStringLiteral("reserve_timeout_ms"), static_cast<double>(policy.reserveTimeoutMs));
    if (policy.spread != 0)
        object.insert(QStringLiteral("spread"), policy.spread);
    if (!policy.description.isEmpty())
        object.insert(QStringLiteral("description"), policy.description);
    return object;
}

QByteArray writePolicyFile(QVector<Policy> policies)
{
    std::sort(policies.begin(), policies.end(), [](const Policy &a, const Policy &b) { return a.name < b.name; });
    QJsonArray list;
    for (const Policy &policy : policies)
        list.append(policyToJson(policy));
    return QJsonDocument(QJsonObject{{QStringLiteral("policies"), list}}).toJson(QJsonDocument::Indented);
}

} // namespace sluice::model
