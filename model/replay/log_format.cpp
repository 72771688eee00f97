// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/replay/log_format.h"

#include "model/policy/policy.h"
#include "model/replay/log_parsers.h"

#include <QCoreApplication>

namespace sluice::model {

namespace {

struct Text {
    Q_DECLARE_TR_FUNCTIONS(LogFormat)
};

const QStringList &formatNames()
{
    static const QStringList names{QStringLiteral("auto"), QStringLiteral("combined"), QStringLiteral("nginx"),
                                   QStringLiteral("jsonl"), QStringLiteral("csv")};
    return names;
}

QByteArrayView trimmed(QByteArrayView text)
{
    while (!text.isEmpty() && (text.front() == ' ' || text.front() == '\t'))
        text = text.sliced(1);
    while (!text.isEmpty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
        text.chop(1);
    return text;
}

} // namespace

const char *const kCombinedDefinition = "$remote_addr $remote_ident $remote_user [$time_local] \"$request\" $status "
                                        "$body_bytes_sent \"$http_referer\" \"$http_user_agent\"";

std::optional<LogFormatKind> logFormatFromName(const QString &name)
{
    const qsizetype index = formatNames().indexOf(name);
    if (index < 0)
        return std::nullopt;
    return static_cast<LogFormatKind>(index);
}

QStringList logFormatNames()
{
    return formatNames();
}

FieldRules::FieldRules(const LogFields &fields)
    : m_costField(fields.cost)
    , m_filter(fields.routeFilter)
    , m_forwardedFor(fields.subject.contains(QLatin1String("forwarded_for"), Qt::CaseInsensitive)
                     || fields.subject.contains(QLatin1String("forwarded-for"), Qt::CaseInsensitive))
{
}

bool FieldRules::takeSubject(QByteArrayView text, ParsedLine *out, QString *problem) const
{
    if (m_forwardedFor) {
        const qsizetype comma = text.indexOf(',');
        if (comma >= 0)
            text = text.first(comma);
    }
    text = trimmed(text);
    if (text.isEmpty() || text == QByteArrayView("-")) {
        *problem = Text::tr("no subject");
        return false;
    }
    out->subject = text.toByteArray();
    return true;
}

LineVerdict FieldRules::takeCost(QByteArrayView text, bool present, ParsedLine *out, QString *problem) const
{
    out->cost = 1;
    if (!wantsCost())
        return LineVerdict::Parsed;
    text = trimmed(text);
    if (!present || text.isEmpty() || text == QByteArrayView("-"))
        return LineVerdict::Skipped; // nginx writes "-" or 0 for a response with no body: nothing to count
    qint64 cost = 0;
    bool digitsOnly = text.size() <= 10;
    for (const char c : text) {
        digitsOnly = digitsOnly && c >= '0' && c <= '9';
        cost = cost * 10 + (c - '0');
    }
    if (!digitsOnly || cost > policy_limits::maxLimit) {
        *problem = Text::tr("the cost is not a whole number from 0 to %1").arg(policy_limits::maxLimit);
        return LineVerdict::Malformed;
    }
    out->cost = cost;
    return cost == 0 ? LineVerdict::Skipped : LineVerdict::Parsed;
}

bool FieldRules::routeMatches(QByteArrayView text) const
{
    return m_filter.match(QString::fromUtf8(text)).hasMatch();
}

std::unique_ptr<LogParser> LogParser::create(const LogSpec &spec, QByteArrayView firstLine, QString *problem)
{
    if (!spec.fields.routeFilter.isValid()) {
        *problem
            = Text::tr("the route filter is not a regular expression: %1").arg(spec.fields.routeFilter.errorString());
        return nullptr;
    }
    LogFormatKind kind = spec.format;
    if (kind == LogFormatKind::Auto && !spec.nginxDefinition.isEmpty())
        kind = LogFormatKind::Nginx;
    if (kind == LogFormatKind::Auto) {
        const QByteArrayView line = trimmed(firstLine);
        const QString timeColumn = spec.fields.time.isEmpty() ? QStringLiteral("time") : spec.fields.time;
        if (line.startsWith('{'))
            kind = LogFormatKind::JsonLines;
        else if (QString::fromUtf8(line).split(QLatin1Char(',')).contains(timeColumn, Qt::CaseInsensitive))
            kind = LogFormatKind::Csv;
        else
            kind = LogFormatKind::Combined;
    }
    switch (kind) {
    case LogFormatKind::Combined:
        return NginxLogParser::create(QString::fromLatin1(kCombinedDefinition), spec.fields, true, problem);
    case LogFormatKind::Nginx:
        if (spec.nginxDefinition.trimmed().isEmpty()) {
            *problem = Text::tr("--format nginx needs the log_format definition (--log-format)");
            return nullptr;
        }
        return NginxLogParser::create(spec.nginxDefinition, spec.fields, false, problem);
    case LogFormatKind::JsonLines: return std::make_unique<JsonLogParser>(spec.fields);
    case LogFormatKind::Csv: return CsvLogParser::create(firstLine, spec.fields, problem);
    case LogFormatKind::Auto: break;
    }
    return nullptr;
}

} // namespace sluice::model
