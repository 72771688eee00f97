// SPDX-License-Identifier: GPL-3.0-or-later
// RESP encoding and incremental parsing over hiredis' reader: whole, split and broken input.

#include "redis/resp_codec.h"

#include <QRandomGenerator>
#include <QTest>
#include <hiredis/hiredis.h>

#include <vector>

using sluice::redis::encodeCommand;
using sluice::redis::RespParser;
using sluice::redis::RespValue;

class TestRespCodec : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void encodesBinarySafeBulkStrings()
    {
        const QByteArray encoded = encodeCommand({"SET", QByteArray("k\0ey", 4), "v\r\n"});
        const char expected[] = "*3\r\n$3\r\nSET\r\n$4\r\nk\0ey\r\n$3\r\nv\r\n\r\n";
        QCOMPARE(encoded, QByteArray(expected, sizeof expected - 1));
    }

    void encodesEmptyArgument() { QCOMPARE(encodeCommand({"GET", ""}), QByteArray("*2\r\n$3\r\nGET\r\n$0\r\n\r\n")); }

    // Long arguments and many of them (lengths and counts of several digits), against hiredis's own
    // formatter as the oracle.
    void encodesAsHiredisDoes()
    {
        QRandomGenerator random(25);
        for (int round = 0; round < 200; ++round) {
            QByteArrayList args;
            const int count = 1 + random.bounded(120);
            for (int i = 0; i < count; ++i) {
                QByteArray arg(random.bounded(i % 7 == 0 ? 20000 : 12), Qt::Uninitialized);
                for (char &byte : arg)
                    byte = static_cast<char>(random.bounded(256));
                args << arg;
            }
            std::vector<const char *> argv;
            std::vector<size_t> lengths;
            for (const QByteArray &arg : args) {
                argv.push_back(arg.constData());
                lengths.push_back(static_cast<size_t>(arg.size()));
            }
            char *formatted = nullptr;
            const int length = redisFormatCommandArgv(&formatted, count, argv.data(), lengths.data());
            QVERIFY(length > 0);
            const QByteArray expected(formatted, length);
            redisFreeCommand(formatted);
            QCOMPARE(encodeCommand(args), expected);
        }
    }

    void parsesEveryReplyType()
    {
        RespParser parser;
        parser.feed("+OK\r\n-ERR bad\r\n:42\r\n$5\r\nhello\r\n$-1\r\n*2\r\n:1\r\n$1\r\nx\r\n");
        const auto status = parser.next();
        QVERIFY(status);
        QCOMPARE(status->type, RespValue::Type::Status);
        QCOMPARE(status->bytes, QByteArray("OK"));
        const auto error = parser.next();
        QVERIFY(error && error->isError());
        QCOMPARE(error->toString(), QStringLiteral("ERR bad"));
        const auto integer = parser.next();
        QVERIFY(integer);
        QCOMPARE(integer->integer, 42);
        QCOMPARE(parser.next()->bytes, QByteArray("hello"));
        QVERIFY(parser.next()->isNil());
        const auto array = parser.next();
        QVERIFY(array && array->isArray());
        QCOMPARE(array->elements.size(), 2);
        QCOMPARE(array->elements.at(1).bytes, QByteArray("x"));
        QVERIFY(!parser.next());
        QVERIFY(!parser.hasError());
    }

    void waitsForRepliesSplitAcrossReads()
    {
        RespParser parser;
        const QByteArray whole("*2\r\n$5\r\nhello\r\n:7\r\n");
        for (int i = 0; i < whole.size() - 1; ++i) {
            parser.feed(whole.mid(i, 1));
            QVERIFY2(!parser.next(), "a reply must not appear before its last byte");
        }
        parser.feed(whole.right(1));
        const auto reply = parser.next();
        QVERIFY(reply);
        QCOMPARE(reply->elements.at(1).integer, 7);
    }

    void reportsGarbageAsProtocolError()
    {
        RespParser parser;
        parser.feed("HTTP/1.1 400 Bad Request\r\n");
        QVERIFY(!parser.next());
        QVERIFY(parser.hasError());
        QVERIFY2(parser.errorString().contains(QLatin1String("Protocol error")), qPrintable(parser.errorString()));
        parser.reset();
        parser.feed("+PONG\r\n");
        QVERIFY(parser.next());
    }
};

QTEST_GUILESS_MAIN(TestRespCodec)
#include "tst_resp_codec.moc"
