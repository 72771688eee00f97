// SPDX-License-Identifier: GPL-3.0-or-later
#include "redis/resp_codec.h"

#include <hiredis/hiredis.h>

#include <QVarLengthArray>

namespace sluice::redis {

QByteArray encodeCommand(const QByteArrayList &args)
{
    // On the stack for the usual handful of arguments: this runs once per command.
    QVarLengthArray<const char *, 16> argv;
    QVarLengthArray<size_t, 16> argvLengths;
    for (const QByteArray &arg : args) {
        argv.push_back(arg.constData());
        argvLengths.push_back(static_cast<size_t>(arg.size()));
    }
    char *formatted = nullptr;
    const int length = redisFormatCommandArgv(&formatted, static_cast<int>(args.size()), argv.data(),
                                              argvLengths.data());
    if (length < 0)
        return {};
    QByteArray encoded(formatted, length);
    redisFreeCommand(formatted);
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
