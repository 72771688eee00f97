// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/replay/log_reader.h"

#include "model/format/subject_text.h"

#include <QCoreApplication>

namespace sluice::model {

namespace {

struct Text {
    Q_DECLARE_TR_FUNCTIONS(LogReader)
};

} // namespace

struct LogReader::Input {
    std::unique_ptr<LogSource> source;
    std::unique_ptr<LogParser> parser;
    std::optional<Pending> head;
    ParsedLine parsed;
};

LogReader::LogReader(const LogSpec &spec, qint64 reorderWindowMs, SubjectTable *subjects)
    : m_spec(spec)
    , m_window(reorderWindowMs)
    , m_subjects(subjects)
{
}

LogReader::~LogReader() = default;

std::optional<Failure> LogReader::open(const QStringList &paths)
{
    for (const QString &path : paths) {
        std::optional<Failure> failure;
        auto input = std::make_unique<Input>();
        input->source = LogSource::open(path, &failure);
        if (!input->source)
            return failure;
        m_inputs.push_back(std::move(input));
    }
    for (const auto &input : m_inputs)
        if (!readHead(*input))
            return m_failure;
    return std::nullopt;
}

void LogReader::malformed(const Input &input, const QString &reason)
{
    ++m_stats.malformed;
    if (m_stats.problems.size() < LogReadStats::kProblemsKept)
        m_stats.problems.append({input.source->name(), input.source->lineNumber(), reason});
}

void LogReader::addPreview(const Input &input, QByteArrayView line, LineVerdict verdict, const QString &reason)
{
    if (m_stats.preview.size() >= LogReadStats::kPreviewLines)
        return;
    PreviewLine shown;
    shown.source = input.source->name();
    shown.line = input.source->lineNumber();
    shown.text = subjectText(line.first(std::min<qsizetype>(line.size(), 240)).toByteArray())
                     .replace(QStringLiteral("%20"), QStringLiteral(" "));
    shown.reason = verdict == LineVerdict::Malformed ? reason : QString();
    shown.skipped = verdict == LineVerdict::Skipped;
    if (verdict == LineVerdict::Parsed) {
        shown.ms = input.parsed.time.ms;
        shown.subject = input.parsed.subject;
        shown.cost = input.parsed.cost;
    }
    m_stats.preview.append(shown);
}

// Reads the input's next request into its head (none at its end); false when reading must stop.
bool LogReader::readHead(Input &input)
{
    input.head.reset();
    QByteArrayView line;
    for (;;) {
        const LogSource::Next next = input.source->next(&line);
        if (next == LogSource::Next::End) {
            if (!input.source->problem().isEmpty())
                malformed(input, input.source->problem());
            return true;
        }
        if (next == LogSource::Next::Skipping) {
            if (m_cancel && m_cancel->load())
                return true; // as if the input ended: the caller sees the flag
            continue;
        }
        ++m_stats.lines;
        if (next == LogSource::Next::TooLong) {
            const QString reason = Text::tr("longer than %1 bytes").arg(LogSource::kMaxLineBytes);
            malformed(input, reason);
            addPreview(input, "", LineVerdict::Malformed, reason);
            continue;
        }
        if (line.trimmed().isEmpty()) {
            ++m_stats.skipped;
            continue;
        }
        if (!input.parser) {
            QString problem;
            input.parser = LogParser::create(m_spec, line, &problem);
            if (!input.parser) {
                m_failure = Failure::invalid(QStringLiteral("%1: %2").arg(input.source->name(), problem));
                return false;
            }
            m_stats.formats << QStringLiteral("%1: %2").arg(input.source->name(), input.parser->description());
        }
        QString problem;
        const LineVerdict verdict = input.parser->parse(line, &input.parsed, &problem);
        addPreview(input, line, verdict, problem);
        if (verdict == LineVerdict::Skipped) {
            ++m_stats.skipped;
            continue;
        }
        if (verdict == LineVerdict::Malformed) {
            malformed(input, problem);
            continue;
        }
        const quint32 subject = m_subjects->intern(input.parsed.subject);
        if (subject == SubjectTable::kNone) {
            m_failure = Failure::invalid(
                Text::tr("more than %1 distinct subjects: the replay stops here (raise --max-subjects; each takes "
                         "about 100 bytes)")
                    .arg(m_subjects->capacity()));
            return false;
        }
        input.head = Pending{input.parsed.time.ms, m_sequence++, subject, quint32(input.parsed.cost),
                             input.parsed.time.wholeSecond};
        return true;
    }
}

// Moves the earliest head of all inputs into the reorder buffer; false when every input is done.
bool LogReader::pullOne()
{
    Input *earliest = nullptr;
    for (const auto &input : m_inputs)
        if (input->head && (!earliest || input->head->ms < earliest->head->ms))
            earliest = input.get();
    if (!earliest)
        return false;
    const Pending pending = *earliest->head;
    if (pending.ms < m_releasedMs) {
        const qint64 behind = m_releasedMs - pending.ms;
        malformed(*earliest,
                  Text::tr("%1 s earlier than a line already replayed (the reorder window is %2 s)")
                      .arg(double(behind) / 1000.0, 0, 'f', 3)
                      .arg(double(m_window) / 1000.0));
    } else {
        m_pending.push(pending);
        m_latestMs = std::max(m_latestMs, pending.ms);
    }
    if (!readHead(*earliest))
        m_pending = {};
    return true;
}

// Releases the earliest pending line, or its whole second spread evenly over the second.
void LogReader::release()
{
    m_ready.clear();
    m_readyAt = 0;
    const qint64 at = m_pending.top().ms;
    std::vector<Pending> group;
    if (m_pending.top().wholeSecond) {
        while (!m_pending.empty() && m_pending.top().ms == at) {
            group.push_back(m_pending.top());
            m_pending.pop();
        }
    } else {
        group.push_back(m_pending.top());
        m_pending.pop();
    }
    const qint64 spread
        = qint64(std::count_if(group.begin(), group.end(), [](const Pending &p) { return p.wholeSecond; }));
    qint64 index = 0;
    for (const Pending &pending : group) {
        qint64 ms = pending.ms;
        if (pending.wholeSecond) {
            ms += index++ * 1000 / spread;
            m_stats.secondsSpread = true;
        }
        ms = std::max(ms, m_releasedMs); // a finer line of the same second may have gone first
        m_ready.push_back({ms, pending.subject, pending.cost});
        m_releasedMs = ms;
    }
}

bool LogReader::next(Arrival *arrival)
{
    for (;;) {
        if (m_readyAt < m_ready.size()) {
            *arrival = m_ready[m_readyAt++];
            if (m_stats.requests++ == 0)
                m_stats.firstMs = arrival->ms;
            m_stats.lastMs = arrival->ms;
            return true;
        }
        if (m_failure)
            return false;
        const bool inputsDone
            = std::none_of(m_inputs.begin(), m_inputs.end(), [](const auto &i) { return bool(i->head); });
        if (!m_pending.empty() && (inputsDone || m_pending.top().ms <= m_latestMs - m_window)) {
            release();
            continue;
        }
        if (inputsDone || !pullOne())
            return false;
    }
}

double LogReader::progress() const
{
    qint64 read = 0, total = 0;
    for (const auto &input : m_inputs) {
        if (input->source->size() < 0)
            return -1;
        read += input->source->bytesRead();
        total += input->source->size();
    }
    return total > 0 ? double(read) / double(total) : 1.0;
}

} // namespace sluice::model
