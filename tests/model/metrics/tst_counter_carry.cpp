// SPDX-License-Identifier: GPL-3.0-or-later
// The exporter's counters never go back: across a library reload (a new epoch), a restart whose first
// count lands in the same millisecond, and a failover that moves a primary's slots to another node.
// A primary that does not answer withholds the sums instead of lowering them.

#include "model/metrics/counter_carry.h"

#include <QTest>

using sluice::model::CounterCarry;
using sluice::model::DecisionTotals;
using sluice::model::PolicyTotals;

namespace {

CounterCarry::Reading reading(qint64 epochMs, quint64 allowed, quint64 rejected = 0)
{
    return {epochMs, PolicyTotals{{QStringLiteral("api"), DecisionTotals{allowed, rejected, 0}}}};
}

quint64 allowedOf(const std::optional<PolicyTotals> &totals)
{
    return totals ? totals->value(QStringLiteral("api")).allowed : 0;
}

const QString a = QStringLiteral("10.0.0.1:6379");
const QString b = QStringLiteral("10.0.0.2:6379");
const QString c = QStringLiteral("10.0.0.3:6379");

} // namespace

class TestCounterCarry : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void sumsThePrimaries()
    {
        CounterCarry carry;
        const auto sums = carry.update({a, b}, {{a, reading(1, 5, 2)}, {b, reading(1, 7, 1)}});
        QVERIFY(sums);
        QCOMPARE(sums->value(QStringLiteral("api")), (DecisionTotals{12, 3, 0}));
        QCOMPARE(carry.resetsSeen(), 0);
    }

    void aReloadContinuesWhereTheOldEpochWasLastSeen()
    {
        CounterCarry carry;
        QCOMPARE(allowedOf(carry.update({a}, {{a, reading(1, 40)}})), 40u);
        QCOMPARE(allowedOf(carry.update({a}, {{a, reading(2, 3)}})), 43u); // reloaded: the library counts 3
        QCOMPARE(allowedOf(carry.update({a}, {{a, reading(2, 10)}})), 50u);
        QCOMPARE(carry.resetsSeen(), 1);
    }

    void aCountThatWentDownIsANewEpochEvenWithTheSameEpochTime()
    {
        CounterCarry carry;
        QCOMPARE(allowedOf(carry.update({a}, {{a, reading(7, 40)}})), 40u);
        QCOMPARE(allowedOf(carry.update({a}, {{a, reading(7, 2)}})), 42u);
        QCOMPARE(carry.resetsSeen(), 1);
    }

    void aFailoverKeepsTheDepartedPrimarysShare()
    {
        CounterCarry carry;
        QCOMPARE(allowedOf(carry.update({a, b}, {{a, reading(1, 10)}, {b, reading(1, 20)}})), 30u);
        // b's slots move to c, a replica whose library counted nothing yet.
        QCOMPARE(allowedOf(carry.update({a, c}, {{a, reading(1, 11)}, {c, reading(5, 0)}})), 31u);
        QCOMPARE(allowedOf(carry.update({a, c}, {{a, reading(1, 11)}, {c, reading(5, 4)}})), 35u);
    }

    void aPrimaryThatDoesNotAnswerWithholdsTheSums()
    {
        CounterCarry carry;
        QCOMPARE(allowedOf(carry.update({a, b}, {{a, reading(1, 10)}, {b, reading(1, 20)}})), 30u);
        QVERIFY(!carry.update({a, b}, {{a, reading(1, 12)}}));
        QCOMPARE(allowedOf(carry.update({a, b}, {{a, reading(1, 12)}, {b, reading(1, 25)}})), 37u);
        QVERIFY(!carry.update({}, {})); // no topology at all: nothing to sum
    }
};

QTEST_GUILESS_MAIN(TestCounterCarry)
#include "tst_counter_carry.moc"
