// SPDX-License-Identifier: GPL-3.0-or-later
// CSV logs with a header line: time,subject[,cost] or any columns named by the options.

#include "model/replay/log_parsers.h"

#include <QCoreApplication>

namespace sluice::model {

namespace {

struct Text {
    Q_DECLARE_TR_FUNCTIONS(LogFormat)
};

} // namespace

bool splitCsvLine(QByteArrayView line, QVector<QByteArray> *cells)
{
    cells->clear();
    QByteArray cell;
    bool quoted = false;
    for (qsizetype at = 0; at < line.size(); ++at) {
        const char c = line.at(at);
        if (quoted) {
            if (c != '"')
                cell += c;
            else if (at + 1 < line.size() && line.at(at + 1) == '"')
                cell += line.at(++at);
            else
                quoted = false;
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            cells->append(cell);
            cell.clear();
        } else if (c != '\r') {
            cell += c;
        }
    }
    cells->append(cell);
    return !quoted;
}

std::unique_ptr<CsvLogParser> CsvLogParser::create(QByteArrayView header, const LogFields &fields, QString *problem)
{
    std::unique_ptr<CsvLogParser> parser(new CsvLogParser(fields));
    QVector<QByteArray> names;
    if (!splitCsvLine(header, &names)) {
        *problem = Text::tr("the CSV header leaves a quote open");
        return nullptr;
    }
    parser->m_header = header.toByteArray();
    const auto column = [&](const QString &given, const char *fallback, bool required) -> int {
        const QString wanted = given.isEmpty() ? QLatin1String(fallback) : given;
        for (int i = 0; i < names.size(); ++i)
            if (QString::fromUtf8(names.at(i)).trimmed().compare(wanted, Qt::CaseInsensitive) == 0)
                return i;
        if (required)
            *problem = Text::tr("the CSV header has no \"%1\" column (it has %2)")
                           .arg(wanted, QString::fromUtf8(header.toByteArray()));
        return required ? -2 : -1;
    };
    parser->m_time = column(fields.time, "time", true);
    parser->m_subject = column(fields.subject, "subject", true);
    parser->m_cost = fields.cost.isEmpty() ? -1 : column(fields.cost, "", true);
    parser->m_route = fields.routeFilter.pattern().isEmpty() ? -1 : column(fields.route, "path", true);
    if (parser->m_time == -2 || parser->m_subject == -2 || parser->m_cost == -2 || parser->m_route == -2)
        return nullptr;
    return parser;
}

LineVerdict CsvLogParser::parse(QByteArrayView line, ParsedLine *out, QString *problem)
{
    if (line == QByteArrayView(m_header))
        return LineVerdict::Skipped;
    if (!splitCsvLine(line, &m_cells)) {
        *problem = Text::tr("a quote is left open");
        return LineVerdict::Malformed;
    }
    const int needed = std::max({m_time, m_subject, m_cost, m_route}) + 1;
    if (m_cells.size() < needed) {
        *problem = Text::tr("%1 columns, %2 needed").arg(m_cells.size()).arg(needed);
        return LineVerdict::Malformed;
    }
    const std::optional<LogTime> time = parseLogTime(m_cells.at(m_time).trimmed(), problem);
    if (!time)
        return LineVerdict::Malformed;
    out->time = *time;
    if (m_route >= 0 && !m_rules.routeMatches(m_cells.at(m_route)))
        return LineVerdict::Skipped;
    if (!m_rules.takeSubject(m_cells.at(m_subject), out, problem))
        return LineVerdict::Malformed;
    return m_rules.takeCost(m_cost >= 0 ? QByteArrayView(m_cells.at(m_cost)) : QByteArrayView(), m_cost >= 0, out,
                            problem);
}

QString CsvLogParser::description() const
{
    return QStringLiteral("CSV");
}

} // namespace sluice::model
