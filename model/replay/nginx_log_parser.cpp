// SPDX-License-Identifier: GPL-3.0-or-later
// Lines written by an nginx log_format (or Apache's combined): the definition's literal text is
// matched as it stands, and each variable runs to the next literal text (nginx escapes a " inside
// a value as \x22, so a quoted field never holds its closing quote).

#include "model/replay/log_parsers.h"

#include <QCoreApplication>

#include <cstring>

namespace sluice::model {

namespace {

struct Text {
    Q_DECLARE_TR_FUNCTIONS(LogFormat)
};

QString withoutDollar(const QString &name)
{
    return name.startsWith(QLatin1Char('$')) ? name.mid(1) : name;
}

bool isNameCharacter(QChar c)
{
    return c.isLetterOrNumber() || c == QLatin1Char('_');
}

// Where `literal` next starts in `line` at or after `from`, or -1.
qsizetype findLiteral(QByteArrayView line, qsizetype from, const QByteArray &literal)
{
    const char first = literal.front();
    while (from + literal.size() <= line.size()) {
        const void *hit = std::memchr(line.data() + from, first, size_t(line.size() - from));
        if (!hit)
            return -1;
        const qsizetype at = static_cast<const char *>(hit) - line.data();
        if (at + literal.size() > line.size())
            return -1;
        if (std::memcmp(line.data() + at, literal.constData(), size_t(literal.size())) == 0)
            return at;
        from = at + 1;
    }
    return -1;
}

} // namespace

std::unique_ptr<NginxLogParser> NginxLogParser::create(const QString &definition, const LogFields &fields,
                                                       bool combined, QString *problem)
{
    std::unique_ptr<NginxLogParser> parser(new NginxLogParser(fields));
    parser->m_definition = definition;
    parser->m_combined = combined;
    QStringList variables;
    QString literal;
    for (qsizetype at = 0; at < definition.size();) {
        if (definition.at(at) != QLatin1Char('$')) {
            literal += definition.at(at++);
            continue;
        }
        const bool braced = at + 1 < definition.size() && definition.at(at + 1) == QLatin1Char('{');
        qsizetype end = at + (braced ? 2 : 1);
        while (end < definition.size() && isNameCharacter(definition.at(end)))
            ++end;
        const QString name = definition.mid(at + (braced ? 2 : 1), end - at - (braced ? 2 : 1));
        if (name.isEmpty() || (braced && (end >= definition.size() || definition.at(end) != QLatin1Char('}')))) {
            *problem = Text::tr("the log format has a $ that starts no variable name (at character %1)").arg(at + 1);
            return nullptr;
        }
        if (!literal.isEmpty())
            parser->m_tokens.append({literal.toUtf8(), -1});
        else if (!parser->m_tokens.isEmpty()) {
            *problem = Text::tr("the log format puts $%1 right after another variable: nothing tells where one ends")
                           .arg(name);
            return nullptr;
        }
        literal.clear();
        variables << name;
        parser->m_tokens.append({QByteArray(), int(variables.size() - 1)});
        at = end + (braced ? 1 : 0);
    }
    if (!literal.isEmpty())
        parser->m_tokens.append({literal.toUtf8(), -1});

    const auto pick = [&](const QString &given, const QStringList &defaults, const char *role) -> int {
        const QStringList names = given.isEmpty() ? defaults : QStringList{withoutDollar(given)};
        for (const QString &name : names)
            if (variables.contains(name))
                return int(variables.indexOf(name));
        *problem = Text::tr("the log format has no %1 field ($%2; it has %3)")
                       .arg(QLatin1String(role), names.join(QLatin1String(" or $")),
                            QLatin1Char('$') + variables.join(QLatin1String(", $")));
        return -2;
    };
    int roles[FieldCount] = {-1, -1, -1, -1};
    roles[Subject] = pick(fields.subject, {QStringLiteral("remote_addr")}, "subject");
    roles[Time] = pick(fields.time,
                       {QStringLiteral("msec"), QStringLiteral("time_iso8601"), QStringLiteral("time_local")}, "time");
    if (!fields.cost.isEmpty())
        roles[Cost] = pick(fields.cost, {}, "cost");
    if (!fields.routeFilter.pattern().isEmpty())
        roles[Route] = pick(fields.route,
                            {QStringLiteral("request"), QStringLiteral("request_uri"), QStringLiteral("uri")}, "route");
    for (const int role : roles)
        if (role == -2)
            return nullptr;
    parser->m_timeName = variables.at(roles[Time]);
    // A variable token's field becomes a bit set of the roles it plays.
    for (Token &token : parser->m_tokens) {
        if (token.field < 0)
            continue;
        int playing = 0;
        for (int role = 0; role < FieldCount; ++role)
            if (roles[role] == token.field)
                playing |= 1 << role;
        token.field = playing;
    }
    return parser;
}

LineVerdict NginxLogParser::parse(QByteArrayView line, ParsedLine *out, QString *problem)
{
    QByteArrayView values[FieldCount];
    bool present[FieldCount] = {};
    qsizetype at = 0;
    for (qsizetype i = 0; i < m_tokens.size(); ++i) {
        const Token &token = m_tokens.at(i);
        if (!token.literal.isEmpty()) {
            if (line.size() - at < token.literal.size()
                || std::memcmp(line.data() + at, token.literal.constData(), size_t(token.literal.size())) != 0) {
                *problem = Text::tr("\"%1\" expected at byte %2").arg(QString::fromUtf8(token.literal)).arg(at + 1);
                return LineVerdict::Malformed;
            }
            at += token.literal.size();
            continue;
        }
        qsizetype end = line.size();
        if (i + 1 < m_tokens.size()) {
            end = findLiteral(line, at, m_tokens.at(i + 1).literal);
            if (end < 0) {
                *problem = Text::tr("the line ends before \"%1\"").arg(QString::fromUtf8(m_tokens.at(i + 1).literal));
                return LineVerdict::Malformed;
            }
        }
        for (int role = 0; role < FieldCount; ++role) {
            if (token.field & (1 << role)) {
                values[role] = line.sliced(at, end - at);
                present[role] = true;
            }
        }
        at = end;
    }
    const std::optional<LogTime> time = parseLogTime(values[Time], problem);
    if (!time) {
        *problem = Text::tr("$%1: %2").arg(m_timeName, *problem);
        return LineVerdict::Malformed;
    }
    out->time = *time;
    if (m_rules.wantsRoute() && !m_rules.routeMatches(values[Route]))
        return LineVerdict::Skipped;
    if (!m_rules.takeSubject(values[Subject], out, problem))
        return LineVerdict::Malformed;
    return m_rules.takeCost(values[Cost], present[Cost], out, problem);
}

QString NginxLogParser::description() const
{
    return m_combined ? QStringLiteral("combined") : QStringLiteral("nginx log_format '%1'").arg(m_definition);
}

} // namespace sluice::model
