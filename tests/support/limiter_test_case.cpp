// SPDX-License-Identifier: GPL-3.0-or-later
#include "support/limiter_test_case.h"

#include "support/limiter_support.h"
#include "support/sync_command.h"

#include <QTest>

namespace sluice::test {

void LimiterTestCase::startServer()
{
    QVERIFY2(m_redis.start(), qPrintable(m_redis.errorString()));
    m_connection = std::make_unique<redis::RedisConnection>(m_redis.options());
    QVERIFY(openAndWait(*m_connection));
}

redis::RedisReply LimiterTestCase::call(const QByteArrayList &args)
{
    return syncCommand(*m_connection, args);
}

void LimiterTestCase::setClock(qint64 ms)
{
    QVERIFY(call({"FCALL", "sluice_test_set_clock", "0", QByteArray::number(ms)}).ok());
}

void LimiterTestCase::loadLibrary(const model::LimiterLibrary &library)
{
    const QString error = test::loadLibrary(*m_connection, library);
    QVERIFY2(error.isEmpty(), qPrintable(error));
}

QVector<qint64> LimiterTestCase::integers(const redis::RedisReply &reply)
{
    QVector<qint64> values;
    for (const redis::RespValue &element : reply.value.elements)
        values << (element.isInteger() ? element.integer : -999);
    if (!reply.ok())
        qWarning("call failed: %s", qPrintable(reply.errorText()));
    return values;
}

} // namespace sluice::test
