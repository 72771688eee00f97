// SPDX-License-Identifier: GPL-3.0-or-later
// Policy definitions and the JSON policy file: what is accepted, and a clear error naming the policy
// and field for everything that is not.

#include "model/policy/policy_file.h"
#include "model/policy/policy_summary.h"
#include "support/test_services.h"

#include <QTest>

using namespace sluice::model;
using sluice::test::js;

class TestPolicyFile : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void parsesTheDocumentedExample()
    {
        const PolicyFile file = PolicyFile::parse(js("{'policies': [{'name': 'api', 'algorithm': 'token_bucket', "
                                                     "'limit': 100, 'window_ms': 60000, 'burst': 150}]}"));
        QVERIFY2(file.ok(), qPrintable(file.errors.value(0).toString()));
        QCOMPARE(file.policies.size(), 1);
        const Policy &api = file.policies.first();
        QCOMPARE(api.name, QStringLiteral("api"));
        QCOMPARE(api.algorithm, Algorithm::TokenBucket);
        QCOMPARE(api.limit, 100);
        QCOMPARE(api.windowMs, 60000);
        QCOMPARE(api.effectiveBurst(), 150);
        QVERIFY(!api.shadow);
    }

    void burstDefaultsToLimit()
    {
        const PolicyFile file = PolicyFile::parse(js("{'policies': [{'name': 'daily', 'algorithm': 'fixed_window', "
                                                     "'limit': 5, 'window_ms': 86400000, 'shadow': true}]}"));
        QVERIFY(file.ok());
        QCOMPARE(file.policies.first().effectiveBurst(), 5);
        QVERIFY(file.policies.first().shadow);
    }

    void acceptsEveryAlgorithmAndTheExtremes()
    {
        QByteArray json = js("{'policies': [");
        const QStringList names = algorithmNames();
        for (int i = 0; i < names.size(); ++i) {
            // Quotas of a day and a week at 1e8 and 1e9, those keeping an entry per call at their cap.
            const bool keepsEntries
                = names.at(i) == QLatin1String("sliding_log") || names.at(i) == QLatin1String("concurrency");
            json += QString::fromUtf8(js("{'name': 'p%1', 'algorithm': '%2', 'limit': 1, 'window_ms': 3600000},"
                                         "{'name': 'day%1', 'algorithm': '%2', 'limit': %3, 'window_ms': 86400000},"
                                         "{'name': 'week%1', 'algorithm': '%2', 'limit': %4, 'window_ms': 604800000},"))
                        .arg(i)
                        .arg(names.at(i))
                        .arg(keepsEntries ? 100000 : 100000000)
                        .arg(keepsEntries ? 100000 : 1000000000)
                        .toUtf8();
        }
        json += js("{'name': 'huge', 'algorithm': 'gcra', 'limit': 1e9, 'window_ms': 1000}]}");
        const PolicyFile file = PolicyFile::parse(json);
        QVERIFY2(file.ok(), qPrintable(file.errors.value(0).toString()));
        QCOMPARE(file.policies.size(), 3 * names.size() + 1);
        QCOMPARE(file.policies.last().limit, qint64(1'000'000'000));
    }

    void roundTripsThroughWriter()
    {
        Policy a;
        a.name = QStringLiteral("zeta");
        a.algorithm = Algorithm::LeakyBucket;
        a.limit = 10;
        a.windowMs = 1000;
        a.burst = 20;
        a.description = QStringLiteral("quotes \" and \\ and ünïcode");
        Policy b = a;
        b.name = QStringLiteral("alpha");
        b.algorithm = Algorithm::Concurrency;
        b.shadow = true;
        Policy c = a;
        c.name = QStringLiteral("mid");
        c.algorithm = Algorithm::FixedWindow;
        c.windowStart = WindowStart::FirstCall;
        Policy twin = a;
        twin.name = QStringLiteral("zeta-twin");
        twin.shadow = true;
        twin.shadowOf = QStringLiteral("zeta");
        const QByteArray written = writePolicyFile({a, b, c, twin});
        QVERIFY(written.contains("\"window_start\": \"first_call\""));
        QVERIFY(written.contains("\"shadow_of\": \"zeta\""));
        const PolicyFile file = PolicyFile::parse(written);
        QVERIFY2(file.ok(), qPrintable(file.errors.value(0).toString()));
        QCOMPARE(file.policies.size(), 4);
        QVERIFY(file.policies.at(3).sameDefinition(twin));
        QVERIFY(!file.policies.at(3).sameDefinition([&] {
            Policy plain = twin;
            plain.shadowOf.clear();
            return plain;
        }()));
        QVERIFY(sluice::model::twinProblems(file.policies).isEmpty());
        QCOMPARE(sluice::model::twinProblems({twin}).value(0).toString(),
                 QStringLiteral("policy \"zeta-twin\", field \"shadow_of\": names \"zeta\", which is not a policy"));
        QCOMPARE(sluice::model::twinProblems({b,
                                              [&] {
            Policy ofShadow = twin;
            ofShadow.shadowOf = b.name;
            return ofShadow;
                                              }()})
                     .value(0)
                     .message,
                 QStringLiteral("names \"alpha\", a shadow policy: a twin follows a live one"));
        QCOMPARE(file.policies.at(0).name, QStringLiteral("alpha")); // sorted by name
        QVERIFY(file.policies.at(0).sameDefinition(b));
        QVERIFY(file.policies.at(1).sameDefinition(c));
        Policy aligned = c;
        aligned.windowStart = WindowStart::Aligned;
        QVERIFY(!file.policies.at(1).sameDefinition(aligned));
        QVERIFY(file.policies.at(2).sameDefinition(a));
    }

    void rejectsMalformedFiles_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("expected");
        auto policy = [](const QByteArray &fields) {
            return js("{'policies': [{'name': 'api', 'algorithm': 'token_bucket', ") + fields + "}]}";
        };
        QTest::newRow("empty file") << QByteArray() << "not valid JSON";
        QTest::newRow("truncated") << (js("{'policies': [{'name': 'api'")) << "not valid JSON";
        QTest::newRow("trailing comma") << (js("{'policies': [],}")) << "not valid JSON";
        QTest::newRow("top-level array") << QByteArray("[]") << "JSON object";
        QTest::newRow("no policies") << QByteArray("{}") << "field \"policies\": is required";
        QTest::newRow("policies not array") << (js("{'policies': {}}")) << "must be an array";
        QTest::newRow("unknown top-level") << (js("{'policies': [], 'version': 2}")) << "field \"version\"";
        QTest::newRow("policy not object") << (js("{'policies': [42]}")) << "policy \"#1\": must be an object";
        QTest::newRow("missing name") << (js("{'policies': [{'algorithm': 'gcra', 'limit': 1, 'window_ms': 1}]}"))
                                      << "policy \"#1\", field \"name\": is required";
        QTest::newRow("name number") << (js(
            "{'policies': [{'name': 7, 'algorithm': 'gcra', 'limit': 1, 'window_ms': 1}]}"))
                                     << "field \"name\": is required and must be a string";
        QTest::newRow("name with brace") << (js(
            "{'policies': [{'name': 'a{b}', 'algorithm': 'gcra', 'limit': 1, 'window_ms': 1}]}"))
                                         << "policy \"a{b}\", field \"name\": must be 1 to 64";
        QTest::newRow("name with trailing newline")
            << (js("{'policies': [{'name': 'api\\n', 'algorithm': 'gcra', 'limit': 1, 'window_ms': 1}]}"))
            << "field \"name\": must be 1 to 64";
        QTest::newRow("name too long") << ((js("{'policies': [{'name': '")) + QByteArray(65, 'n')
                                           + js("', 'algorithm': 'gcra', 'limit': 1, 'window_ms': 1}]}"))
                                       << "field \"name\": must be 1 to 64";
        QTest::newRow("unknown algorithm")
            << (js("{'policies': [{'name': 'api', 'algorithm': 'magic', 'limit': 1, 'window_ms': 1}]}"))
            << "field \"algorithm\": \"magic\" is not one of";
        QTest::newRow("missing algorithm") << (js("{'policies': [{'name': 'api', 'limit': 1, 'window_ms': 1}]}"))
                                           << "field \"algorithm\": is required";
        QTest::newRow("limit as string") << policy(js("'limit': '100', 'window_ms': 1000"))
                                         << "field \"limit\": must be a whole number, not a string";
        QTest::newRow("limit fractional")
            << policy(js("'limit': 1.5, 'window_ms': 1000")) << "field \"limit\": must be a whole number, not 1.5";
        QTest::newRow("limit zero") << policy(js("'limit': 0, 'window_ms': 1000"))
                                    << "field \"limit\": must be positive";
        QTest::newRow("limit negative") << policy(js("'limit': -3, 'window_ms': 1000"))
                                        << "field \"limit\": must be positive";
        QTest::newRow("limit too large") << policy(js("'limit': 1000000001, 'window_ms': 1000"))
                                         << "field \"limit\": must be a whole number from 1 to";
        QTest::newRow("limit huge") << policy(js("'limit': 1e300, 'window_ms': 1000"))
                                    << "field \"limit\": must be a whole number";
        QTest::newRow("limit null") << policy(js("'limit': null, 'window_ms': 1000"))
                                    << "field \"limit\": must be a whole number, not null";
        QTest::newRow("missing window") << policy(js("'limit': 10")) << "field \"window_ms\": is required";
        QTest::newRow("window too long") << policy(js("'limit': 10, 'window_ms': 604800001"))
                                         << "field \"window_ms\": must be a whole number of milliseconds";
        QTest::newRow("burst bool") << policy(js("'limit': 10, 'window_ms': 1000, 'burst': true"))
                                    << "field \"burst\": must be a whole number, not a boolean";
        QTest::newRow("burst zero") << policy(js("'limit': 10, 'window_ms': 1000, 'burst': 0"))
                                    << "field \"burst\": must be positive";
        QTest::newRow("refills too slowly")
            << policy(js("'limit': 10, 'window_ms': 604800000, 'burst': 1000000000"))
            << "field \"burst\": must be at most 74464279 with a limit of 10 per 604800000 ms: an empty bucket must "
               "refill within 2^52 ms";
        QTest::newRow("shadow string") << policy(js("'limit': 10, 'window_ms': 1000, 'shadow': 'yes'"))
                                       << "field \"shadow\": must be true or false";
        QTest::newRow("shadow number") << policy(js("'limit': 10, 'window_ms': 1000, 'shadow': 1"))
                                       << "field \"shadow\": must be true or false, not a number";
        QTest::newRow("window start of a token bucket")
            << policy(js("'limit': 10, 'window_ms': 1000, 'window_start': 'first_call'"))
            << "field \"window_start\": must be aligned for token_bucket: only a fixed window can start at the "
               "first call";
        QTest::newRow("window start unknown")
            << (js("{'policies': [{'name': 'api', 'algorithm': 'fixed_window', 'limit': 10, 'window_ms': 1000, "
                   "'window_start': 'monday'}]}"))
            << "field \"window_start\": must be \"aligned\" or \"first_call\", not \"monday\"";
        QTest::newRow("window start bool")
            << (js("{'policies': [{'name': 'api', 'algorithm': 'fixed_window', 'limit': 10, 'window_ms': 1000, "
                   "'window_start': true}]}"))
            << "field \"window_start\": must be \"aligned\" or \"first_call\", not a boolean";
        QTest::newRow("twin not in shadow")
            << policy(js("'limit': 10, 'window_ms': 1000, 'shadow_of': 'web'"))
            << "field \"shadow_of\": needs shadow on: a twin only measures, its live policy decides";
        QTest::newRow("twin of itself") << policy(
            js("'limit': 10, 'window_ms': 1000, 'shadow': true, 'shadow_of': 'api'"))
                                        << "field \"shadow_of\": must name another policy";
        QTest::newRow("twin name a number")
            << policy(js("'limit': 10, 'window_ms': 1000, 'shadow': true, 'shadow_of': 7"))
            << "field \"shadow_of\": must be a policy name, not a number";
        QTest::newRow("concurrency twin")
            << (js("{'policies': [{'name': 'api', 'algorithm': 'concurrency', 'limit': 10, 'window_ms': 1000, "
                   "'shadow': true, 'shadow_of': 'web'}]}"))
            << "field \"shadow_of\": cannot be set for concurrency";
        QTest::newRow("description object") << policy(js("'limit': 10, 'window_ms': 1000, 'description': {}"))
                                            << "field \"description\": must be a string";
        QTest::newRow("typo field") << policy(js("'limit': 10, 'windowms': 1000"))
                                    << "field \"windowms\": is not a policy field";
        QTest::newRow("sliding log too large")
            << (js("{'policies': [{'name': 'log', 'algorithm': 'sliding_log', 'limit': 100001, 'window_ms': 1000}]}"))
            << "field \"limit\": must be at most 100000 for sliding_log";
        QTest::newRow("duplicate") << (js(
            "{'policies': [{'name': 'a', 'algorithm': 'gcra', 'limit': 1, 'window_ms': 1},"
            "{'name': 'a', 'algorithm': 'gcra', 'limit': 2, 'window_ms': 1}]}"))
                                   << "policy \"a\", field \"name\": appears more than once";
        // QJsonDocument keeps the last of two equal keys, however the key is spelled.
        QTest::newRow("duplicate field") << policy(js("'limit': 100, 'limit': 7, 'window_ms': 1000"))
                                         << "policy \"api\", field \"limit\": is given more than once";
        QTest::newRow("duplicate by escape") << policy(js("'limit': 100, '\\u006cimit': 7, 'window_ms': 1000"))
                                             << "policy \"api\", field \"limit\": is given more than once";
        QTest::newRow("duplicate name") << (js("{'policies': [{'name': 'a', 'name': 'b', 'algorithm': 'gcra', "
                                               "'limit': 1, 'window_ms': 1}]}"))
                                        << "policy \"b\", field \"name\": is given more than once";
        QTest::newRow("duplicate top level") << (js("{'policies': [], 'policies': []}"))
                                             << "field \"policies\": is given more than once at the top level";
        QTest::newRow("duplicate inside a field")
            << policy(js("'limit': 1, 'window_ms': 1, 'description': {'a': 1, 'a': 2}"))
            << "policy \"api\", field \"description\": holds the key \"a\" more than once";
        // QJsonDocument keeps half a surrogate pair, which has no UTF-8 form: Redis would store '?'.
        QTest::newRow("lone high surrogate") << policy(js("'limit': 1, 'window_ms': 1, 'description': 'a\\ud800'"))
                                             << "policy \"api\", field \"description\": holds \\ud800, half of a";
        QTest::newRow("lone low surrogate") << policy(js("'limit': 1, 'window_ms': 1, 'description': '\\udc00a'"))
                                            << "policy \"api\", field \"description\": holds \\udc00, half of a";
        QTest::newRow("high then not low")
            << policy(js("'limit': 1, 'window_ms': 1, 'description': '\\ud83d\\u0041'"))
            << "field \"description\": holds \\ud83d, half of a UTF-16 surrogate pair, alone";
        QTest::newRow("high then high") << policy(
            js("'limit': 1, 'window_ms': 1, 'description': '\\ud83d\\ud83d\\ude00'"))
                                        << "field \"description\": holds \\ud83d";
        QTest::newRow("lone surrogate in name")
            << (js("{'policies': [{'name': 'a\\udfff', 'algorithm': 'gcra', 'limit': 1, 'window_ms': 1}]}"))
            << "policy \"#1\", field \"name\": holds \\udfff";
        QTest::newRow("lone surrogate in key") << policy(js("'limit': 1, 'window_ms': 1, 'x\\ud800': 1"))
                                               << "policy \"api\", field \"x\ufffd\": this key holds \\ud800";
        // Bytes that are not UTF-8 stop QJsonDocument at an offset; the policy and field are named.
        QTest::newRow("invalid byte") << policy("\"limit\": 1, \"window_ms\": 1, \"description\": \"caf\xe9\"")
                                      << "policy \"api\", field \"description\": holds bytes that are not UTF-8";
        QTest::newRow("overlong") << policy("\"limit\": 1, \"window_ms\": 1, \"description\": \"\xc0\xaf\"")
                                  << "field \"description\": holds bytes that are not UTF-8";
        QTest::newRow("encoded surrogate")
            << policy("\"limit\": 1, \"window_ms\": 1, \"description\": \"\xed\xa0\x80\"")
            << "field \"description\": holds bytes that are not UTF-8";
        QTest::newRow("truncated sequence") << policy("\"limit\": 1, \"window_ms\": 1, \"description\": \"\xe2\x82\"")
                                            << "field \"description\": holds bytes that are not UTF-8";
        // Overrides and the penalty: each bad one named, nothing taken.
        const auto overrides = [&](const QByteArray &object) {
            return policy(js(("'limit': 10, 'window_ms': 1000, 'overrides': " + object).constData()));
        };
        QTest::newRow("overrides not object")
            << overrides("['a']") << "field \"overrides\": must be an object of subjects";
        QTest::newRow("override subject with brace")
            << overrides("{'a{b': 'deny'}") << "\"a{b\" is not a subject (1 to 512 bytes without { or })";
        QTest::newRow("override empty subject") << overrides("{'': 'deny'}") << "\"\" is not a subject";
        QTest::newRow("override subject too long")
            << overrides("{'" + QByteArray(513, 'x') + "': 'deny'}") << "is not a subject (1 to 512 bytes";
        QTest::newRow("override word") << overrides("{'a': 'block'}")
                                       << "\"a\": must be \"allow\", \"deny\" or an object of limit and burst";
        QTest::newRow("override empty object") << overrides("{'a': {}}") << "\"a\": must be \"allow\"";
        QTest::newRow("override unknown field") << overrides("{'a': {'limit': 5, 'window_ms': 10}}")
                                                << "\"window_ms\" is not an override field (known: limit, burst)";
        QTest::newRow("override limit zero")
            << overrides("{'a': {'limit': 0}}") << "\"a\": limit must be a positive whole number";
        QTest::newRow("override limit fraction")
            << overrides("{'a': {'limit': 1.5}}") << "limit must be a positive whole number";
        QTest::newRow("override limit too large")
            << overrides("{'batch-*': {'limit': 1000000001}}")
            << "field \"overrides\": \"batch-*\": limit must be a whole number from 1 to 1000000000";
        QTest::newRow("override burst unused")
            << QByteArray(js("{'policies': [{'name': 'api', 'algorithm': 'fixed_window', 'limit': 10, 'window_ms': "
                             "1000, 'overrides': {'a': {'burst': 5}}}]}"))
            << "\"a\": burst is not used by fixed_window";
        QTest::newRow("override burst past 2^52 ms")
            << policy(js("'limit': 1, 'window_ms': 604800000, 'overrides': {'slow': {'burst': 1000000000}}"))
            << "\"slow\": burst must be at most 7446427 with a limit of 1 per 604800000 ms";
        QTest::newRow("override of sliding_log past its entries")
            << QByteArray(js("{'policies': [{'name': 'api', 'algorithm': 'sliding_log', 'limit': 10, 'window_ms': "
                             "1000, 'overrides': {'a': {'limit': 100001}}}]}"))
            << "\"a\": limit must be at most 100000 for sliding_log";
        QTest::newRow("block_ms negative") << policy(js("'limit': 1, 'window_ms': 1, 'block_ms': -5"))
                                           << "field \"block_ms\": must be positive, not -5";
        QTest::newRow("block_ms text") << policy(js("'limit': 1, 'window_ms': 1, 'block_ms': '10m'"))
                                       << "field \"block_ms\": must be a whole number, not a string";
        QTest::newRow("block_ms past 31 days") << policy(js("'limit': 1, 'window_ms': 1, 'block_ms': 2678400001"))
                                               << "field \"block_ms\": must be a whole number of milliseconds from 1 "
                                                  "to 2678400000 (31 days)";
        // Reserve then settle: debt and the reservations' wait, for the algorithms that settle.
        QTest::newRow("max_debt negative") << policy(js("'limit': 10, 'window_ms': 1000, 'max_debt': -1"))
                                           << "field \"max_debt\": must be 0 or more, not -1";
        QTest::newRow("max_debt text") << policy(js("'limit': 10, 'window_ms': 1000, 'max_debt': 'lots'"))
                                       << "field \"max_debt\": must be a whole number, not a string";
        QTest::newRow("max_debt on a sliding log")
            << QByteArray(js("{'policies': [{'name': 'q', 'algorithm': 'sliding_log', 'limit': 5, 'window_ms': "
                             "1000, 'max_debt': 3}]}"))
            << "field \"max_debt\": applies to token_bucket, gcra, fixed_window and sliding_window";
        QTest::newRow("max_debt on a first-call window")
            << QByteArray(js("{'policies': [{'name': 'q', 'algorithm': 'fixed_window', 'limit': 5, 'window_ms': 1000, "
                             "'window_start': 'first_call', 'max_debt': 3}]}"))
            << "field \"max_debt\": needs aligned or calendar windows";
        QTest::newRow("max_debt past 1e9") << policy(js("'limit': 10, 'window_ms': 1000, 'max_debt': 1000000001"))
                                           << "field \"max_debt\": must be a whole number of units from 0 to";
        QTest::newRow("max_debt too slow to repay")
            << policy(js("'limit': 1, 'window_ms': 604800000, 'max_debt': 4000000"))
            << "field \"max_debt\": is too large for a limit of 1 per 604800000 ms";
        QTest::newRow("reserve_timeout_ms zero")
            << policy(js("'limit': 10, 'window_ms': 1000, 'reserve_timeout_ms': 0"))
            << "field \"reserve_timeout_ms\": must be positive, not 0";
        QTest::newRow("reserve_timeout_ms on a leaky bucket")
            << QByteArray(js("{'policies': [{'name': 'q', 'algorithm': 'leaky_bucket', 'limit': 5, 'window_ms': 1000, "
                             "'reserve_timeout_ms': 3}]}"))
            << "field \"reserve_timeout_ms\": applies to token_bucket, gcra, fixed_window and sliding_window";
        // Calendar quotas: only for fixed windows, which they set; offsets and anchors in range.
        const auto calendar = [&](const char *fields) {
            return QByteArray(js("{'policies': [{'name': 'quota', 'algorithm': 'fixed_window', 'limit': 1000, ")
                              + js(fields) + "}]}");
        };
        QTest::newRow("calendar with a window") << calendar("'calendar': 'month', 'window_ms': 1000")
                                                << "field \"window_ms\": cannot be set with a calendar";
        QTest::newRow("calendar unknown")
            << calendar("'calendar': 'quarter'")
            << "field \"calendar\": must be \"day\", \"week\" or \"month\", not \"quarter\"";
        QTest::newRow("calendar on a token bucket")
            << QByteArray(
                   js("{'policies': [{'name': 'q', 'algorithm': 'token_bucket', 'limit': 5, 'calendar': 'day'}]}"))
            << "field \"calendar\": is for fixed windows only, not token_bucket";
        QTest::newRow("calendar at the first call") << calendar("'calendar': 'day', 'window_start': 'first_call'")
                                                    << "windows start on the calendar, not at the first call";
        QTest::newRow("offset past UTC+14") << calendar("'calendar': 'day', 'utc_offset_minutes': 841")
                                            << "field \"utc_offset_minutes\": must be a whole number of minutes from "
                                               "-720 to 840";
        QTest::newRow("offset fraction") << calendar("'calendar': 'day', 'utc_offset_minutes': 1.5")
                                         << "field \"utc_offset_minutes\": must be a whole number, not 1.5";
        QTest::newRow("anchor for a week") << calendar("'calendar': 'week', 'anchor_day': 3")
                                           << "field \"anchor_day\": must be a day of the month from 1 to 31, for a "
                                              "month only";
        QTest::newRow("anchor 32") << calendar("'calendar': 'month', 'anchor_day': 32") << "field \"anchor_day\"";
        QTest::newRow("offset without calendar")
            << policy(js("'limit': 1, 'window_ms': 1000, 'utc_offset_minutes': 60"))
            << "field \"utc_offset_minutes\": needs a calendar";
        QTest::newRow("spread of one") << policy(js("'limit': 10, 'window_ms': 1000, 'spread': 1"))
                                       << "field \"spread\": must be a whole number of buckets from 2 to 256, or 0";
        QTest::newRow("spread past 256") << policy(js("'limit': 1000, 'window_ms': 1000, 'spread': 257"))
                                         << "field \"spread\": must be a whole number of buckets from 2 to 256";
        QTest::newRow("spread past the burst")
            << policy(js("'limit': 100, 'burst': 4, 'window_ms': 1000, 'spread': 8"))
            << "field \"spread\": must be at most 4: each bucket holds a share of at least one unit";
        QTest::newRow("spread past a bucket's refill bound")
            << policy(js("'limit': 3, 'window_ms': 604800000, 'burst': 22000000, 'spread': 2"))
            << "field \"spread\": would give bucket 1 a share its own checks refuse: must be at most";
        QTest::newRow("spread with a penalty")
            << policy(js("'limit': 100, 'window_ms': 1000, 'spread': 4, 'block_ms': 9"))
            << "cannot be combined with a penalty";
        QTest::newRow("spread with overrides")
            << policy(js("'limit': 100, 'window_ms': 1000, 'spread': 4, 'overrides': {'vip': 'allow'}"))
            << "cannot be combined with overrides";
        QTest::newRow("spread of leases")
            << QByteArray(js("{'policies': [{'name': 'c', 'algorithm': 'concurrency', 'limit': 8, 'window_ms': 1000, "
                             "'spread': 2}]}"))
            << "cannot be set for concurrency";
        QTest::newRow("invalid byte in name")
            << QByteArray("{\"policies\": [{\"name\": \"a\xff\", \"algorithm\": \"gcra\"}]}")
            << "policy \"#1\", field \"name\": holds bytes that are not UTF-8";
    }

    void rejectsMalformedFiles()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, expected);
        const PolicyFile file = PolicyFile::parse(json);
        QVERIFY(!file.ok());
        QVERIFY2(file.policies.isEmpty(), "a file with errors yields no policies to apply");
        QStringList messages;
        for (const PolicyError &error : file.errors)
            messages << error.toString();
        QVERIFY2(messages.join(QLatin1Char('\n')).contains(expected), qPrintable(messages.join(QLatin1Char('\n'))));
    }

    // 10,000 overrides are a policy's most; one more is refused, as is a namespace past 100,000.
    void overridesAreBounded()
    {
        Policy policy;
        policy.name = QStringLiteral("api");
        policy.limit = 10;
        policy.windowMs = 1000;
        for (int i = 0; i < 10000; ++i)
            policy.overrides.append({"subject-" + QByteArray::number(i), false, SubjectOverride::Kind::Deny, 0, 0});
        std::sort(policy.overrides.begin(), policy.overrides.end());
        QVERIFY(validatePolicy(policy).isEmpty());
        const PolicyFile written = PolicyFile::parse(writePolicyFile({policy}));
        QVERIFY2(written.ok(), qPrintable(written.errors.value(0).toString()));
        QVERIFY(written.policies.first().sameDefinition(policy));
        policy.overrides.append({"one-more", false, SubjectOverride::Kind::Deny, 0, 0});
        QCOMPARE(validatePolicy(policy).value(0).toString(),
                 QStringLiteral("policy \"api\", field \"overrides\": holds 10001 overrides; a policy may hold at "
                                "most 10000"));
        QVector<Policy> many(10, policy);
        policy.overrides.removeLast();
        many.fill(policy);
        QVERIFY(namespaceOverrideProblems(many).isEmpty());
        many.append(policy);
        QCOMPARE(namespaceOverrideProblems(many).value(0).toString(),
                 QStringLiteral("field \"overrides\": the policies hold 110000 overrides together; a namespace may "
                                "hold at most 100000"));
    }

    // The written forms: a prefix ends in '*', an exact subject ending in '*' is written "\*"; the longest
    // match wins and an exact subject beats a prefix of its length; a limit alone takes a burst that was
    // the limit along.
    void overridesMatchAsWritten()
    {
        const PolicyFile file = PolicyFile::parse(js(
            "{'policies': [{'name': 'api', 'algorithm': 'token_bucket', 'limit': 10, 'window_ms': 1000, "
            "'block_ms': 60000, 'overrides': {'partner-x': {'limit': 1000, 'burst': 2000}, 'batch-*': {'limit': 50}, "
            "'batch-9*': 'deny', 'batch-9': 'allow', 'star\\\\*': 'deny', '*': {'limit': 5}}}]}"));
        QVERIFY2(file.ok(), qPrintable(file.errors.value(0).toString()));
        const Policy &policy = file.policies.first();
        QCOMPARE(policy.blockMs, 60000);
        QCOMPARE(policy.overrides.size(), 6);
        const auto decided = [&](const QByteArray &subject) {
            const SubjectOverride *match = matchingOverride(policy.overrides, subject);
            return match ? overrideText(*match) : QStringLiteral("none");
        };
        QCOMPARE(decided("partner-x"), QStringLiteral("partner-x: limit 1000, burst 2000"));
        QCOMPARE(decided("batch-1"), QStringLiteral("batch-*: limit 50"));
        QCOMPARE(decided("batch-9"), QStringLiteral("batch-9: allow"));
        QCOMPARE(decided("batch-90"), QStringLiteral("batch-9*: deny"));
        QCOMPARE(decided("star*"), QStringLiteral("star\\*: deny"));
        QCOMPARE(decided("stark"), QStringLiteral("*: limit 5"));
        QCOMPARE(overriddenPolicy(policy, *matchingOverride(policy.overrides, "batch-1")).effectiveBurst(), 50);
        QVERIFY(writePolicyFile({policy}).contains("\"star\\\\*\": \"deny\""));
        Policy withBurst = policy;
        withBurst.burst = 20;
        QCOMPARE(overriddenPolicy(withBurst, *matchingOverride(policy.overrides, "batch-1")).effectiveBurst(), 20);
        // Reviews name only the overrides that differ.
        Policy changed = policy;
        changed.overrides.removeFirst();
        changed.overrides.first().limit = 7;
        const OverrideChanges changes = overrideChanges(policy.overrides, changed.overrides);
        QCOMPARE(changes.before, QStringLiteral("*: limit 5; batch-*: limit 50"));
        QCOMPARE(changes.after, QStringLiteral("batch-*: limit 7"));
    }

    // A calendar quota leaves its window out of the file and takes the nominal one; it round-trips.
    void calendarRoundTrips()
    {
        const PolicyFile file = PolicyFile::parse(
            js("{'policies': [{'name': 'billing', 'algorithm': 'fixed_window', 'limit': 100000, 'calendar': 'month', "
               "'utc_offset_minutes': -300, 'anchor_day': 31}]}"));
        QVERIFY2(file.ok(), qPrintable(file.errors.value(0).toString()));
        const Policy &billing = file.policies.first();
        QCOMPARE(billing.calendar, Calendar::Month);
        QCOMPARE(billing.windowMs, 31LL * 86400000);
        QCOMPARE(calendarText(billing), QStringLiteral("month from day 31 (a shorter month's last day), UTC-05:00"));
        QCOMPARE(limitInWords(billing), QStringLiteral("100,000 per calendar month"));
        const QByteArray written = writePolicyFile({billing});
        QVERIFY(!written.contains("window_ms"));
        QVERIFY(PolicyFile::parse(written).policies.value(0).sameDefinition(billing));
    }

    // A spread policy's field is read, written and compared; each bucket's share of an uneven limit and burst.
    void spreadRoundTripsAndShares()
    {
        const PolicyFile file = PolicyFile::parse(js("{'policies': [{'name': 'search', 'algorithm': 'token_bucket', "
                                                     "'limit': 10, 'burst': 15, 'window_ms': 1000, "
                                                     "'spread': 4}]}"));
        QVERIFY2(file.ok(), qPrintable(file.errors.value(0).toString()));
        const Policy &search = file.policies.first();
        QCOMPARE(search.spread, 4);
        QCOMPARE(limitInWords(search), QStringLiteral("10 per second, burst 15, 4 buckets"));
        const QByteArray written = writePolicyFile({search});
        QVERIFY(written.contains("\"spread\": 4"));
        QVERIFY(PolicyFile::parse(written).policies.value(0).sameDefinition(search));
        Policy unspread = search;
        unspread.spread = 0;
        QVERIFY(!unspread.sameDefinition(search));
        QList<qint64> limits, bursts;
        for (int bucket = 0; bucket < 4; ++bucket) {
            limits << spreadPart(search, bucket).limit;
            bursts << spreadPart(search, bucket).effectiveBurst();
            QCOMPARE(spreadPart(search, bucket).spread, 0);
        }
        QCOMPARE(limits, (QList<qint64>{3, 3, 2, 2}));
        QCOMPARE(bursts, (QList<qint64>{4, 4, 4, 3}));
        // A twin decides on its live policy's keys: a spread policy's name one bucket, not a subject.
        Policy twin = search;
        twin.name = QStringLiteral("search-candidate");
        twin.spread = 0;
        twin.shadow = true;
        twin.shadowOf = search.name;
        QCOMPARE(twinProblems({search, twin}).value(0).toString(),
                 QStringLiteral("policy \"search-candidate\", field \"shadow_of\": names \"search\", a spread policy: "
                                "its calls reach one bucket of several, not a subject"));
    }

    void textThatIsUnicodeIsKept()
    {
        const PolicyFile file = PolicyFile::parse(
            js("{'policies': [{'name': 'api', 'algorithm': 'gcra', 'limit': 1, 'window_ms': 1000, 'description': "
               "'\\ud83d\\ude00 \xf0\x9f\x98\x80 caf\xc3\xa9 \\u00e9'}]}"));
        QVERIFY2(file.ok(), qPrintable(file.errors.value(0).toString()));
        QCOMPARE(file.policies.first().description, QStringLiteral("\U0001F600 \U0001F600 caf\u00e9 \u00e9"));
    }

    // Where QJsonDocument stops at bytes that are not UTF-8, the file's errors say where they are, once.
    void invalidUtf8IsNamedOnce()
    {
        const PolicyFile file = PolicyFile::parse(
            "{\"policies\": [{\"name\": \"api\", \"algorithm\": \"gcra\", \"description\": \"\xff\"}]}");
        QCOMPARE(file.errors.size(), 1);
        QCOMPARE(file.errors.first().policy, QStringLiteral("api"));
        QCOMPARE(file.errors.first().field, QStringLiteral("description"));
    }

    // Every error of a policy is said, the ranges and the consistency too, beside a field that could not be
    // read; what depends on an unread field (its default) is not judged.
    void everyErrorOfAPolicyIsSaid()
    {
        const auto fields = [](const PolicyFile &file) {
            QStringList named;
            for (const PolicyError &error : file.errors)
                named << error.policy + QLatin1Char('.') + error.field;
            return named;
        };
        const PolicyFile many = PolicyFile::parse(
            js("{'policies': [{'name': 'c', 'algorithm': 'token_bucket', 'limit': 99999999999999, 'window_ms': "
               "999999999999, 'window_start': 'first_call', 'block_ms': -3, 'shadow_of': 'c'}]}"));
        QCOMPARE(fields(many).join(QLatin1Char(' ')),
                 QStringLiteral("c.block_ms c.limit c.window_ms c.window_start c.shadow_of"));

        const PolicyFile dependents = PolicyFile::parse(
            js("{'policies': [{'name': 'd', 'algorithm': 'fixed_window', 'limit': 5, 'calendar': 'fortnight', "
               "'utc_offset_minutes': 60, 'shadow': 'yes', 'shadow_of': 'live', 'description': 7}]}"));
        QCOMPARE(fields(dependents).join(QLatin1Char(' ')), QStringLiteral("d.calendar d.shadow d.description"));
    }

    void oneBadPolicySpoilsTheFile()
    {
        const PolicyFile file
            = PolicyFile::parse(js("{'policies': [{'name': 'good', 'algorithm': 'gcra', 'limit': 1, 'window_ms': 1000},"
                                   "{'name': 'bad', 'algorithm': 'gcra', 'limit': 0, 'window_ms': 1000}]}"));
        QVERIFY(!file.ok());
        QVERIFY(file.policies.isEmpty());
        QCOMPARE(file.errors.size(), 1);
        QCOMPARE(file.errors.first().policy, QStringLiteral("bad"));
    }
};

QTEST_GUILESS_MAIN(TestPolicyFile)
#include "tst_policy_file.moc"
