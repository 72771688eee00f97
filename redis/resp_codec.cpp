// SPDX-License-Identifier: GPL-3.0-or-later
#include "redis/resp_codec.h"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <charconv>

namespace sluice::redis {

namespace {

// Writes "<marker><count>\r\n", the header of an array or a bulk string, at out; returns its end.
char *writeHeader(char *out, char marker, qsizetype count)
{
    *out++ = marker;
    out = std::to_chars(out, out + 20, count).ptr;
    *out++ = '\r';
    *out++ = '\n';
    return out;
}

} // namespace

QByteArray encodeCommand(const QByteArrayList &args)
{
    // Written here rather than by hiredis's redisFormatCommandArgv, which formats every length with
    // sprintf: that was an eighth of sluicectl bench's CPU per call (docs/benchmarks.md).
    constexpr qsizetype largestHeader = 1 + 20 + 2; // a marker, a 64-bit count, CRLF
    qsizetype largest = largestHeader;
    for (const QByteArray &arg : args)
        largest += largestHeader + arg.size() + 2;
    QByteArray encoded(largest, Qt::Uninitialized);
    char *const begin = encoded.data();
    char *out = writeHeader(begin, '*', args.size());
    for (const QByteArray &arg : args) {
        out = writeHeader(out, '$', arg.size());
        out = std::copy_n(arg.constData(), arg.size(), out);
        *out++ = '\r';
        *out++ = '\n';
    }
    encoded.truncate(out - begin);
    return encoded;
}

RespParser::RespParser()
    : m_reader(redisReaderCreate())
{
}

RespParser::~RespParser()
{
    redisReaderFree(m_reader);
}

void RespParser::feed(const QByteArray &bytes)
{
    if (hasError() || bytes.isEmpty())
        return;
    if (redisReaderFeed(m_reader, bytes.constData(), static_cast<size_t>(bytes.size())) != REDIS_OK)
        m_error = QString::fromUtf8(m_reader->errstr);
}

std::optional<RespValue> RespParser::next()
{
    if (hasError())
        return std::nullopt;
    void *raw = nullptr;
    if (redisReaderGetReply(m_reader, &raw) != REDIS_OK) {
        m_error = QString::fromUtf8(m_reader->errstr);
        return std::nullopt;
    }
    if (!raw)
        return std::nullopt;
    auto *reply = static_cast<redisReply *>(raw);
    RespValue value = RespValue::fromHiredis(reply);
    freeReplyObject(reply);
    return value;
}

void RespParser::reset()
{
    redisReaderFree(m_reader);
    m_reader = redisReaderCreate();
    m_error.clear();
}

} // namespace sluice::redis
