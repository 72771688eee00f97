// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The three readers of log lines behind LogParser::create (log_format.cpp), and what they share.

#include "model/replay/log_format.h"

#include <QVector>

namespace sluice::model {

// What every format does with the text of its fields once it has found them.
class FieldRules {
public:
    explicit FieldRules(const LogFields &fields);
    // The subject from its field's text: the first address when the field is an X-Forwarded-For list.
    bool takeSubject(QByteArrayView text, ParsedLine *out, QString *problem) const;
    // Nothing (cost 1) when no cost field was named; false and why when the text is no cost.
    LineVerdict takeCost(QByteArrayView text, bool present, ParsedLine *out, QString *problem) const;
    bool wantsCost() const { return !m_costField.isEmpty(); }
    bool wantsRoute() const { return !m_filter.pattern().isEmpty(); }
    bool routeMatches(QByteArrayView text) const;

private:
    QString m_costField;
    QRegularExpression m_filter;
    bool m_forwardedFor;
};

class NginxLogParser : public LogParser {
public:
    // Null and why when the definition lacks a named field or puts two fields side by side.
    static std::unique_ptr<NginxLogParser> create(const QString &definition, const LogFields &fields, bool combined,
                                                  QString *problem);
    LineVerdict parse(QByteArrayView line, ParsedLine *out, QString *problem) override;
    QString description() const override;

private:
    struct Token {
        QByteArray literal; // text to match, or empty for a variable
        int field = -1;     // which of the fields below, for a variable
    };
    enum Field { Subject, Time, Cost, Route, FieldCount };
    NginxLogParser(const LogFields &fields)
        : m_rules(fields)
    {
    }

    FieldRules m_rules;
    QVector<Token> m_tokens;
    QString m_definition;
    QString m_timeName;
    bool m_combined = false;
};

class JsonLogParser : public LogParser {
public:
    explicit JsonLogParser(const LogFields &fields);
    LineVerdict parse(QByteArrayView line, ParsedLine *out, QString *problem) override;
    QString description() const override;

private:
    FieldRules m_rules;
    QString m_subjectPath, m_timePath, m_costPath, m_routePath;
};

class CsvLogParser : public LogParser {
public:
    // Null and why when the header lacks a named column.
    static std::unique_ptr<CsvLogParser> create(QByteArrayView header, const LogFields &fields, QString *problem);
    LineVerdict parse(QByteArrayView line, ParsedLine *out, QString *problem) override;
    QString description() const override;

private:
    explicit CsvLogParser(const LogFields &fields)
        : m_rules(fields)
    {
    }
    FieldRules m_rules;
    QByteArray m_header;
    int m_subject = -1, m_time = -1, m_cost = -1, m_route = -1;
    QVector<QByteArray> m_cells;
};

// The cells of one CSV line (RFC 4180 quoting); false when a quote is left open.
bool splitCsvLine(QByteArrayView line, QVector<QByteArray> *cells);

} // namespace sluice::model
