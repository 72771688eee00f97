// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/failure.h"

#include <QByteArrayView>
#include <QString>

#include <memory>
#include <optional>
#include <vector>

namespace sluice::model {

// One log read line by line, plain or gzip-compressed (told by its first bytes, so access.log.2.gz
// and a compressed standard input both work), from a file, a pipe or standard input ("-").
// Memory is bounded: a line longer than kMaxLineBytes is skipped and reported, never held.
class LogSource {
public:
    static constexpr qsizetype kMaxLineBytes = 64 * 1024;
    // A line still going past this is no log line (/dev/zero): the rest of the log is not read.
    static constexpr qint64 kGiveUpLineBytes = qint64(4) << 30;

    // Skipping: a chunk of a long line's rest was dropped, no line yet (so a caller may stop between chunks
    // of a line that never ends, such as /dev/zero's).
    enum class Next { Line, TooLong, Skipping, End };

    // The log at `path` ("-" for standard input), or why it cannot be read: a directory, a missing or
    // unreadable file.
    static std::unique_ptr<LogSource> open(const QString &path, std::optional<Failure> *failure);
    ~LogSource();
    LogSource(const LogSource &) = delete;
    LogSource &operator=(const LogSource &) = delete;

    // The next line, without its end of line; valid until the next call. After End, problem() says
    // whether the log ended badly (a read error, a gzip stream cut short).
    Next next(QByteArrayView *line);
    QString name() const { return m_name; }
    qint64 lineNumber() const { return m_lineNumber; } // of the line last returned
    qint64 bytesRead() const { return m_bytesRead; }   // compressed bytes for a gzip file
    qint64 size() const { return m_size; }             // -1 when not known (a pipe)
    QString problem() const { return m_problem; }

private:
    LogSource() = default;
    bool fill();

    void *m_gz = nullptr; // gzFile: zlib reads plain files through unchanged
    QString m_name;
    std::vector<char> m_buffer;
    qsizetype m_begin = 0, m_end = 0;
    bool m_eof = false;
    bool m_skipping = false; // inside a line already reported as too long
    qint64 m_skipped = 0;    // bytes of it dropped
    qint64 m_lineNumber = 0;
    qint64 m_bytesRead = 0;
    qint64 m_size = -1;
    QString m_problem;
};

} // namespace sluice::model
