// SPDX-License-Identifier: GPL-3.0-or-later
#include "redis/resp_value.h"

#include <hiredis/hiredis.h>

namespace sluice::redis {

RespValue RespValue::fromHiredis(const redisReply *reply)
{
    RespValue value;
    switch (reply->type) {
    case REDIS_REPLY_INTEGER:
        value.type = Type::Integer;
        value.integer = reply->integer;
        break;
    case REDIS_REPLY_STRING:
    case REDIS_REPLY_STATUS:
    case REDIS_REPLY_ERROR:
        value.type = reply->type == REDIS_REPLY_STRING ? Type::String
            : reply->type == REDIS_REPLY_STATUS        ? Type::Status
                                                       : Type::Error;
        value.bytes = QByteArray(reply->str, static_cast<qsizetype>(reply->len));
        break;
    case REDIS_REPLY_ARRAY:
        value.type = Type::Array;
        value.elements.reserve(static_cast<qsizetype>(reply->elements));
        for (size_t i = 0; i < reply->elements; ++i)
            value.elements.append(fromHiredis(reply->element[i]));
        break;
    default: value.type = Type::Nil; break;
    }
    return value;
}

QString RespValue::toString() const
{
    if (type == Type::Integer)
        return QString::number(integer);
    return QString::fromUtf8(bytes);
}

const RespValue *RespValue::field(const char *name) const
{
    for (qsizetype i = 0; i + 1 < elements.size(); i += 2)
        if (elements.at(i).bytes == name)
            return &elements.at(i + 1);
    return nullptr;
}

} // namespace sluice::redis
