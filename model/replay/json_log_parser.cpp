// SPDX-License-Identifier: GPL-3.0-or-later
// JSON access logs, one object a line (envoy's json_format, most gateways'): fields by key, a.b for
// a nested one (a key that itself holds a dot is found too).

#include "model/replay/log_parsers.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>

namespace sluice::model {

namespace {

struct Text {
    Q_DECLARE_TR_FUNCTIONS(LogFormat)
};

QString pathOf(const QString &field, const char *fallback)
{
    return field.isEmpty() ? QLatin1String(fallback) : field;
}

QJsonValue lookUp(const QJsonObject &object, const QString &path)
{
    if (object.contains(path))
        return object.value(path);
    const qsizetype dot = path.indexOf(QLatin1Char('.'));
    if (dot < 0)
        return QJsonValue(QJsonValue::Undefined);
    const QJsonValue inner = object.value(path.left(dot));
    return inner.isObject() ? lookUp(inner.toObject(), path.mid(dot + 1)) : QJsonValue(QJsonValue::Undefined);
}

// A field's text: a string as it stands, a number written out whole when it is whole.
QByteArray textOf(const QJsonValue &value)
{
    if (value.isString())
        return value.toString().toUtf8();
    if (value.isDouble()) {
        const double number = value.toDouble();
        if (std::floor(number) == number && std::fabs(number) < 9e15)
            return QByteArray::number(qint64(number));
        return QByteArray::number(number, 'f', 3);
    }
    return {};
}

} // namespace

JsonLogParser::JsonLogParser(const LogFields &fields)
    : m_rules(fields)
    , m_subjectPath(pathOf(fields.subject, "subject"))
    , m_timePath(pathOf(fields.time, "time"))
    , m_costPath(pathOf(fields.cost, ""))
    , m_routePath(pathOf(fields.route, "path"))
{
}

LineVerdict JsonLogParser::parse(QByteArrayView line, ParsedLine *out, QString *problem)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(line.toByteArray(), &error);
    if (!document.isObject()) {
        *problem = error.error != QJsonParseError::NoError
            ? Text::tr("not JSON (%1 at byte %2)").arg(error.errorString()).arg(error.offset + 1)
            : Text::tr("not a JSON object");
        return LineVerdict::Malformed;
    }
    const QJsonObject object = document.object();
    const QJsonValue time = lookUp(object, m_timePath);
    if (time.isUndefined()) {
        *problem = Text::tr("no \"%1\" field").arg(m_timePath);
        return LineVerdict::Malformed;
    }
    const std::optional<LogTime> parsed = parseLogTime(textOf(time), problem);
    if (!parsed) {
        *problem = QStringLiteral("%1: %2").arg(m_timePath, *problem);
        return LineVerdict::Malformed;
    }
    out->time = *parsed;
    if (m_rules.wantsRoute() && !m_rules.routeMatches(textOf(lookUp(object, m_routePath))))
        return LineVerdict::Skipped;
    if (!m_rules.takeSubject(textOf(lookUp(object, m_subjectPath)), out, problem)) {
        *problem = Text::tr("no subject (\"%1\")").arg(m_subjectPath);
        return LineVerdict::Malformed;
    }
    const QJsonValue cost = m_rules.wantsCost() ? lookUp(object, m_costPath) : QJsonValue();
    return m_rules.takeCost(textOf(cost), !cost.isUndefined() && !cost.isNull(), out, problem);
}

QString JsonLogParser::description() const
{
    return QStringLiteral("JSON lines");
}

} // namespace sluice::model
