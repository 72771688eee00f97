// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>
#include <QVector>

struct redisReply;

namespace sluice::redis {

// One RESP2 value, owned by value so replies can outlive the parser that produced them.
struct RespValue {
    enum class Type { Nil, Integer, String, Status, Error, Array };

    Type type = Type::Nil;
    qint64 integer = 0;
    QByteArray bytes;            // String, Status and Error payloads
    QVector<RespValue> elements; // Array items

    static RespValue fromHiredis(const redisReply *reply);

    bool isError() const { return type == Type::Error; }
    bool isNil() const { return type == Type::Nil; }
    bool isArray() const { return type == Type::Array; }
    bool isInteger() const { return type == Type::Integer; }
    // Status, String and Integer as text; Error as its message.
    QString toString() const;
    // In a flat name/value array (RESP2's form of a map), the value after `name`; nullptr if absent.
    const RespValue *field(const char *name) const;
};

} // namespace sluice::redis
