// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "redis/resp_value.h"

#include <QByteArrayList>

#include <optional>

struct redisReader;

namespace sluice::redis {

// Encodes one command as a RESP array of bulk strings.
QByteArray encodeCommand(const QByteArrayList &args);

// Incremental RESP parser over hiredis' reader: feed bytes as they arrive, take whole replies out.
class RespParser {
public:
    RespParser();
    ~RespParser();
    RespParser(const RespParser &) = delete;
    RespParser &operator=(const RespParser &) = delete;

    void feed(const QByteArray &bytes);
    // The next complete reply, or nothing while more bytes are needed. After a protocol error
    // hasError() is true and the stream cannot be trusted any more.
    std::optional<RespValue> next();
    bool hasError() const { return !m_error.isEmpty(); }
    QString errorString() const { return m_error; }
    void reset();

private:
    redisReader *m_reader = nullptr;
    QString m_error;
};

} // namespace sluice::redis
