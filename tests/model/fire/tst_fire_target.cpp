// SPDX-License-Identifier: GPL-3.0-or-later
// Test-fire targets without a server: the seed scripts as the CLI names them (every layout's
// parameters, and clear errors for bad ones), what each may be fired with, and the commands and
// replies of the interval-refill bucket, whose script takes the caller's clock in seconds.

#include "model/fire/fire_target.h"

#include <QTest>

using namespace sluice;
using model::FireCommands;
using model::FireTarget;
using model::SeedLayout;

class TestFireTarget : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void seedSpecsName_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<SeedLayout>("layout");
        QTest::addColumn<qint64>("limit");
        QTest::addColumn<qint64>("windowMs");
        QTest::addColumn<qint64>("burst");
        QTest::addColumn<QString>("label");
        QTest::newRow("scg") << QStringLiteral("scg_token_bucket:10:20") << SeedLayout::ScgTokenBucket << 10LL << 1000LL
                             << 20LL << QStringLiteral("scg_token_bucket (10/s, capacity 20)");
        QTest::newRow("counter") << QStringLiteral("fixed_window_counter:5:60") << SeedLayout::FixedWindowCounter << 5LL
                                 << 60000LL << 5LL << QStringLiteral("fixed_window_counter (5 per minute)");
        QTest::newRow("ms") << QStringLiteral("ms_token_bucket:7:9") << SeedLayout::MsTokenBucket << 7LL << 1000LL
                            << 9LL << QStringLiteral("ms_token_bucket (7/s, capacity 9)");
        QTest::newRow("interval") << QStringLiteral("interval_token_bucket:10:2:5") << SeedLayout::IntervalTokenBucket
                                  << 2LL << 5000LL << 10LL
                                  << QStringLiteral("interval_token_bucket (2 every 5 seconds, capacity 10)");
        QTest::newRow("interval, a week")
            << QStringLiteral("interval_token_bucket:1:1:604800") << SeedLayout::IntervalTokenBucket << 1LL
            << 604800000LL << 1LL << QStringLiteral("interval_token_bucket (1 every 7 days, capacity 1)");
    }

    void seedSpecsName()
    {
        QFETCH(QString, spec);
        QFETCH(SeedLayout, layout);
        QVERIFY(FireTarget::looksLikeSeedSpec(spec));
        QString problem;
        const std::optional<FireTarget> target = FireTarget::fromSeedSpec(spec, &problem);
        QVERIFY2(target, qPrintable(problem));
        QCOMPARE(target->kind, FireTarget::Kind::SeedScript);
        QCOMPARE(target->layout, layout);
        QTEST(target->policy.limit, "limit");
        QTEST(target->policy.windowMs, "windowMs");
        QTEST(target->policy.burst, "burst");
        QTEST(target->label(), "label");
        QCOMPARE(target->problem(1), QString());
    }

    void badSeedSpecsSayWhatIsExpected_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QString>("message");
        const QString interval = QStringLiteral(
            "a seed script is named as interval_token_bucket:CAPACITY:ADD:INTERVAL_SECONDS with whole numbers from 1");
        QTest::newRow("interval, two numbers") << QStringLiteral("interval_token_bucket:10:2") << interval;
        QTest::newRow("interval, four numbers") << QStringLiteral("interval_token_bucket:10:2:5:1") << interval;
        QTest::newRow("interval, no batch") << QStringLiteral("interval_token_bucket:10:0:5") << interval;
        QTest::newRow("interval, no capacity") << QStringLiteral("interval_token_bucket:0:2:5") << interval;
        QTest::newRow("interval, over a week") << QStringLiteral("interval_token_bucket:10:2:604801") << interval;
        QTest::newRow("interval, text") << QStringLiteral("interval_token_bucket:ten:2:5") << interval;
        QTest::newRow("interval, bare") << QStringLiteral("interval_token_bucket") << interval;
        QTest::newRow("scg, three numbers")
            << QStringLiteral("scg_token_bucket:1:2:3")
            << QStringLiteral("a seed script is named as scg_token_bucket:RATE_PER_SECOND:CAPACITY");
        QTest::newRow("counter, window over a week")
            << QStringLiteral("fixed_window_counter:5:604801")
            << QStringLiteral("a seed script is named as fixed_window_counter:LIMIT:WINDOW_SECONDS");
        QTest::newRow("unknown") << QStringLiteral("leaky:1:2")
                                 << QStringLiteral("\"leaky:1:2\" is not a seed script (scg_token_bucket, "
                                                   "fixed_window_counter, ms_token_bucket, interval_token_bucket)");
    }

    void badSeedSpecsSayWhatIsExpected()
    {
        QFETCH(QString, spec);
        QFETCH(QString, message);
        QString problem;
        QVERIFY(!FireTarget::fromSeedSpec(spec, &problem));
        QVERIFY2(problem.startsWith(message), qPrintable(problem));
    }

    void whatATargetCanBeFiredWith()
    {
        QString problem;
        FireTarget interval = *FireTarget::fromSeedSpec(QStringLiteral("interval_token_bucket:10:2:5"), &problem);
        QCOMPARE(interval.problem(11), QStringLiteral("cost 11 exceeds the capacity 10"));
        interval.clockSkewMs = 500; // it reads its callers' clocks
        QCOMPARE(interval.problem(1), QString());
        QVERIFY(interval.label().endsWith(QLatin1String(", clocks 500 ms apart)")));
        FireTarget scg = *FireTarget::fromSeedSpec(QStringLiteral("scg_token_bucket:10:20"), &problem);
        scg.clockSkewMs = 500;
        QVERIFY2(scg.problem(1).startsWith(QLatin1String("scg_token_bucket reads the server's clock")),
                 qPrintable(scg.problem(1)));
    }

    void intervalBucketCommandsTakeTheClockInSeconds()
    {
        QString problem;
        const FireTarget target = *FireTarget::fromSeedSpec(QStringLiteral("interval_token_bucket:10:2:5"), &problem);
        const FireCommands commands(target, 0, {QStringLiteral("ns"), 0}, "run1", false, 3);
        // Test-fire keys: the id a hash tag, so both keys share a Cluster slot.
        QCOMPARE(commands.keys("s"), (QByteArrayList{"{ns-fire:run1:1:s}", "{ns-fire:run1:1:s}_time"}));
        const QByteArrayList command = commands.command("s", 1'700'000'123'999);
        QCOMPARE(command.first(), QByteArray("EVALSHA"));
        QCOMPARE(
            command.mid(2),
            (QByteArrayList{"2", "{ns-fire:run1:1:s}", "{ns-fire:run1:1:s}_time", "10", "2", "5", "1700000123", "3"}));
        QCOMPARE(commands.script(), model::seedScript(SeedLayout::IntervalTokenBucket));
        redis::RespValue left;
        left.type = redis::RespValue::Type::Integer;
        left.integer = 0;
        QCOMPARE(commands.admitted(left), std::optional<bool>(true));
        left.integer = -1;
        QCOMPARE(commands.admitted(left), std::optional<bool>(false));
        // Real keys are the bucket's own.
        const FireCommands real(target, 0, {QStringLiteral("ns"), 0}, "run1", true, 1);
        QCOMPARE(real.keys("quota:7"), (QByteArrayList{"quota:7", "quota:7_time"}));
        // The ms bucket still takes its clock in ms, after the tokens requested.
        const FireTarget ms = *FireTarget::fromSeedSpec(QStringLiteral("ms_token_bucket:10:20"), &problem);
        QCOMPARE(FireCommands(ms, 0, {QStringLiteral("ns"), 0}, "run1", true, 2).command("k", 1'700'000'123'999).mid(3),
                 (QByteArrayList{"k", "k:last", "10", "20", "2", "1700000123999"}));
    }
};

QTEST_GUILESS_MAIN(TestFireTarget)
#include "tst_fire_target.moc"
