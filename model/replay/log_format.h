// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/replay/log_time.h"

#include <QByteArray>
#include <QRegularExpression>
#include <QStringList>

#include <memory>
#include <optional>

namespace sluice::model {

enum class LogFormatKind { Auto, Combined, Nginx, JsonLines, Csv };

// The spellings of --format: auto, combined, nginx, jsonl, csv.
std::optional<LogFormatKind> logFormatFromName(const QString &name);
QStringList logFormatNames();

// Which fields of a log line make a request, by the names the format gives them: nginx's variables
// (remote_addr, time_local, msec, request...; with or without the $), a JSON object's keys (a.b.c
// for nested ones) or a CSV's header. Empty means the format's default.
struct LogFields {
    QString subject; // default: remote_addr (nginx formats), else "subject"
    QString time;    // default: msec, time_iso8601 or time_local (nginx formats), else "time"
    QString cost;    // default: none, every request costs 1
    QString route;   // the field the route filter reads; default: request, request_uri or uri, else "path"
    QRegularExpression routeFilter; // empty pattern: every line
};

struct LogSpec {
    LogFormatKind format = LogFormatKind::Auto;
    QString nginxDefinition; // the log_format definition for LogFormatKind::Nginx
    LogFields fields;
};

// nginx's combined format, as its documentation defines it (Apache's "combined" has the same shape).
extern const char *const kCombinedDefinition;

// A request as one line tells it; `subject` stays valid until the parser reads the next line.
struct ParsedLine {
    LogTime time;
    QByteArray subject;
    qint64 cost = 1;
};

enum class LineVerdict {
    Parsed,
    Skipped,  // a CSV header, a blank line, a line the route filter leaves out, or a cost of 0
    Malformed // `problem` says why
};

// Reads the lines of one log in one format.
class LogParser {
public:
    virtual ~LogParser() = default;
    // The parser for `spec`; with LogFormatKind::Auto the format is told from the first line (a JSON
    // object, a CSV header naming the time field, else combined). Null and why when the spec cannot
    // read this log (an unknown field, a definition without the field).
    static std::unique_ptr<LogParser> create(const LogSpec &spec, QByteArrayView firstLine, QString *problem);

    virtual LineVerdict parse(QByteArrayView line, ParsedLine *out, QString *problem) = 0;
    virtual QString description() const = 0; // "combined", "JSON lines", ...
};

} // namespace sluice::model
