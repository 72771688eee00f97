// SPDX-License-Identifier: GPL-3.0-or-later
// The most-rejected windows from the differences of the library's summaries (sluice_most_rejected)
// between a reader's own polls, the first from the library's load: exact for a subject the summary held
// throughout, bounded for one that entered it in between or left it, afresh after a reload, per primary.

#include "model/monitor/rejected_tally.h"

#include <QTest>

using namespace sluice::model;

namespace {

struct Count {
    QByteArray subject;
    quint64 count;
    quint64 entered;
};

MostRejectedReading reading(qint64 epoch, qint64 now, quint64 least, const QVector<Count> &counts)
{
    MostRejectedReading r;
    r.epochMs = epoch;
    r.nowMs = now;
    r.least = least;
    for (const Count &c : counts)
        r.subjects.insert(c.subject, {c.count, c.entered});
    return r;
}

TopRejected poll(const QHash<QString, MostRejectedReading> &readings)
{
    TopRejected top{QStringLiteral("api"), 0, readings, {}};
    for (const MostRejectedReading &r : readings)
        top.nowMs = std::max(top.nowMs, r.nowMs);
    return top;
}

TopRejected one(const MostRejectedReading &r)
{
    return poll({{QStringLiteral("node"), r}});
}

QVector<std::tuple<QByteArray, quint64, quint64>> rows(const RejectedTally::Result &result)
{
    QVector<std::tuple<QByteArray, quint64, quint64>> out;
    for (const RejectedSubject &s : result.subjects)
        out.append({s.subject, s.rejections, s.shortBy});
    return out;
}

using Rows = QVector<std::tuple<QByteArray, quint64, quint64>>;

} // namespace

class TestRejectedTally : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aSubjectHeldThroughoutIsCountedExactly()
    {
        RejectedTally tally;
        // A first reading counts from the library's load (its epoch).
        tally.add(one(reading(1000, 10000, 0, {{"alice", 4, 0}})));
        QCOMPARE(rows(tally.over(60000)), (Rows{{"alice", 4, 0}}));
        QCOMPARE(tally.over(60000).coveredMs, 9000);
        tally.add(one(reading(1000, 12000, 0, {{"alice", 10, 0}, {"bob", 2, 0}})));
        tally.add(one(reading(1000, 14000, 0, {{"alice", 11, 0}, {"bob", 7, 0}})));
        QCOMPARE(rows(tally.over(60000)), (Rows{{"alice", 11, 0}, {"bob", 7, 0}}));
        QCOMPARE(tally.over(60000).coveredMs, 13000);
        // The last 2 s: only the last interval.
        QCOMPARE(rows(tally.over(2000)), (Rows{{"bob", 5, 0}, {"alice", 1, 0}}));
        tally.add(one(reading(1000, 16000, 0, {{"alice", 11, 0}, {"bob", 7, 0}})));
        QVERIFY(tally.over(2000).subjects.isEmpty()); // nobody in the last interval
    }

    void aSubjectThatEnteredIsCountedFromItsEntryWithABound()
    {
        // A full summary (least 5): carol took someone's place in between, inheriting 8, and then had 3
        // rejections. She may have had up to 8 - 5 = 3 more before, while she was among the least counted.
        RejectedTally tally;
        tally.add(one(reading(1000, 10000, 5, {{"alice", 40, 0}, {"dave", 5, 2}})));
        tally.add(one(reading(1000, 12000, 8, {{"alice", 41, 0}, {"carol", 11, 8}})));
        const RejectedTally::Result result = tally.over(2000);
        QCOMPARE(rows(result), (Rows{{"carol", 3, 3}, {"alice", 1, 0}}));
        QCOMPARE(result.unlistedAtMost, quint64(3)); // dave, gone: at most the least count's growth
        // A subject seen before with another `entered` left and came back: counted from its return.
        tally.add(one(reading(1000, 14000, 9, {{"alice", 42, 0}, {"carol", 14, 10}})));
        QCOMPARE(rows(tally.over(2000)), (Rows{{"carol", 4, 2}, {"alice", 1, 0}}));
    }

    void aSubjectTheSummaryLostMeanwhileSaysByHowMuch()
    {
        // bob becomes the least counted (12), is pushed out, and comes back inheriting 15: in the interval
        // he was out, he had at most the least count's growth (14 - 12); before coming back, at most 15 - 14.
        RejectedTally tally;
        tally.add(one(reading(1000, 10000, 5, {{"bob", 10, 0}})));
        tally.add(one(reading(1000, 12000, 12, {{"bob", 12, 0}})));
        tally.add(one(reading(1000, 14000, 14, {})));
        tally.add(one(reading(1000, 16000, 15, {{"bob", 20, 15}})));
        const RejectedTally::Result result = tally.over(60000);
        QCOMPARE(rows(result), (Rows{{"bob", 17, 3}}));
        QCOMPARE(result.unlistedAtMost, quint64(15));
    }

    void aReloadStartsAfresh()
    {
        RejectedTally tally;
        tally.add(one(reading(1000, 10000, 0, {{"alice", 50, 0}})));
        // Reloaded after the first reading (its epoch is later): everything it counted is new.
        tally.add(one(reading(11000, 12000, 0, {{"alice", 2, 0}})));
        QCOMPARE(rows(tally.over(60000)), (Rows{{"alice", 52, 0}}));
        QCOMPARE(tally.over(60000).coveredMs, 10000); // 1 s between the first reading and the reload unseen
        // An epoch from before the last reading (another copy answering) is no difference: a new baseline.
        tally.add(one(reading(500, 14000, 0, {{"alice", 90, 0}})));
        QCOMPARE(rows(tally.over(60000)), (Rows{{"alice", 52, 0}}));
        tally.add(one(reading(500, 16000, 0, {{"alice", 91, 0}})));
        QCOMPARE(rows(tally.over(60000)), (Rows{{"alice", 53, 0}}));
    }

    void primariesAreDifferencedApart()
    {
        RejectedTally tally;
        tally.add(poll({{QStringLiteral("a"), reading(1, 10000, 0, {{"x", 1, 0}})},
                        {QStringLiteral("b"), reading(2, 10000, 0, {{"y", 1, 0}})}}));
        // b does not answer this time: a's difference counts, b's waits for its next reading.
        tally.add(poll({{QStringLiteral("a"), reading(1, 12000, 0, {{"x", 4, 0}})}}));
        tally.add(poll({{QStringLiteral("a"), reading(1, 14000, 0, {{"x", 5, 0}})},
                        {QStringLiteral("b"), reading(2, 14000, 0, {{"y", 9, 0}})}}));
        const RejectedTally::Result result = tally.over(60000);
        QCOMPARE(rows(result), (Rows{{"y", 9, 0}, {"x", 5, 0}}));
        QCOMPARE(result.subjects.first().node, QStringLiteral("b"));
    }

    void aLongGapIsNotPassedOffAsTheLastSeconds()
    {
        // The tab was hidden for 10 minutes: the interval across the gap is not the last 10 seconds'.
        RejectedTally tally;
        tally.add(one(reading(1, 10000, 0, {{"alice", 1, 0}})));
        tally.add(one(reading(1, 610000, 0, {{"alice", 500, 0}})));
        QVERIFY(tally.over(10000).subjects.isEmpty());
        QCOMPARE(tally.over(10000).coveredMs, 0);
        QCOMPARE(rows(tally.over(60 * 60 * 1000)), (Rows{{"alice", 500, 0}}));
        // Intervals older than the longest window are let go.
        tally.add(one(reading(1, 610000 + RejectedTally::kLongestWindowMs, 0, {{"alice", 501, 0}})));
        tally.add(one(reading(1, 612000 + RejectedTally::kLongestWindowMs, 0, {{"alice", 502, 0}})));
        QCOMPARE(rows(tally.over(RejectedTally::kLongestWindowMs)), (Rows{{"alice", 2, 0}}));
    }
};

QTEST_GUILESS_MAIN(TestRejectedTally)
#include "tst_rejected_tally.moc"
