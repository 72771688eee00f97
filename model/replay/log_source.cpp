// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/replay/log_source.h"

#include <QCoreApplication>
#include <QFile>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

namespace sluice::model {

namespace {

struct Text {
    Q_DECLARE_TR_FUNCTIONS(LogSource)
};

constexpr qsizetype kChunk = 1 << 20;

} // namespace

std::unique_ptr<LogSource> LogSource::open(const QString &path, std::optional<Failure> *failure)
{
    std::unique_ptr<LogSource> source(new LogSource);
    const bool standardInput = path == QLatin1String("-");
    source->m_name = standardInput ? Text::tr("standard input") : path;
    // O_NONBLOCK only for the open itself, which a FIFO without a writer would block; reading it then waits
    // for its writer, as standard input does.
    const int fd = standardInput
        ? ::dup(STDIN_FILENO)
        : ::open(QFile::encodeName(path).constData(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd >= 0 && !standardInput)
        ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    if (fd < 0) {
        *failure
            = Failure{Failure::Kind::Invalid,
                      Text::tr("cannot open %1: %2").arg(source->m_name, QString::fromLocal8Bit(std::strerror(errno)))};
        return nullptr;
    }
    struct stat info { };
    if (::fstat(fd, &info) == 0 && S_ISDIR(info.st_mode)) {
        ::close(fd);
        *failure = Failure{Failure::Kind::Invalid, Text::tr("cannot read %1: it is a directory").arg(source->m_name)};
        return nullptr;
    }
    if (S_ISREG(info.st_mode))
        source->m_size = info.st_size;
    gzFile gz = gzdopen(fd, "rb");
    if (!gz) {
        ::close(fd);
        *failure = Failure{Failure::Kind::Invalid, Text::tr("cannot read %1: out of memory").arg(source->m_name)};
        return nullptr;
    }
    gzbuffer(gz, 256 * 1024);
    source->m_gz = gz;
    source->m_buffer.resize(size_t(kChunk + kMaxLineBytes));
    return source;
}

LogSource::~LogSource()
{
    if (m_gz)
        gzclose(static_cast<gzFile>(m_gz)); // closes the descriptor too
}

// Moves what is left of the buffer to its start and reads more after it; false at the end or on error.
bool LogSource::fill()
{
    if (m_eof)
        return false;
    const qsizetype left = m_end - m_begin;
    std::memmove(m_buffer.data(), m_buffer.data() + m_begin, size_t(left));
    m_begin = 0;
    m_end = left;
    const qsizetype room = qsizetype(m_buffer.size()) - m_end;
    const int got = gzread(static_cast<gzFile>(m_gz), m_buffer.data() + m_end, unsigned(std::min(room, kChunk)));
    m_bytesRead = m_size >= 0 ? qint64(gzoffset(static_cast<gzFile>(m_gz))) : m_bytesRead + std::max(got, 0);
    if (got <= 0) {
        m_eof = true;
        int code = Z_OK;
        const char *message = gzerror(static_cast<gzFile>(m_gz), &code);
        if (got < 0 || code != Z_OK)
            m_problem = code == Z_BUF_ERROR ? Text::tr("the compressed data ends early: the file is cut short")
                                            : Text::tr("read error: %1").arg(QString::fromLocal8Bit(message));
        return false;
    }
    m_end += got;
    return true;
}

LogSource::Next LogSource::next(QByteArrayView *line)
{
    for (;;) {
        const char *start = m_buffer.data() + m_begin;
        const void *newline = std::memchr(start, '\n', size_t(m_end - m_begin));
        if (newline) {
            const qsizetype length = static_cast<const char *>(newline) - start;
            m_begin += length + 1;
            if (m_skipping) { // the end of a line reported as too long
                m_skipping = false;
                m_skipped = 0;
                continue;
            }
            ++m_lineNumber;
            *line = QByteArrayView(start, length > 0 && start[length - 1] == '\r' ? length - 1 : length);
            return Next::Line;
        }
        if (m_end - m_begin > kMaxLineBytes || (m_skipping && m_end > m_begin)) {
            m_skipped += m_end - m_begin;
            m_begin = m_end; // drop what is held of the line, keep looking for its end
            if (m_skipping && m_skipped > kGiveUpLineBytes) {
                m_problem = Text::tr("a line goes on past %1 GiB: the rest of the log is not read")
                                .arg(kGiveUpLineBytes >> 30);
                m_eof = true;
                m_skipping = false;
                return Next::End;
            }
            if (m_skipping)
                return Next::Skipping;
            m_skipping = true;
            ++m_lineNumber;
            return Next::TooLong;
        }
        if (!fill()) {
            if (m_end == m_begin || m_skipping) {
                m_begin = m_end;
                m_skipping = false;
                return Next::End;
            }
            ++m_lineNumber; // a last line without an end of line
            *line = QByteArrayView(m_buffer.data() + m_begin, m_end - m_begin);
            m_begin = m_end;
            return Next::Line;
        }
    }
}

} // namespace sluice::model
