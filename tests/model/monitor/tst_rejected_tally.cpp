// SPDX-License-Identifier: GPL-3.0-or-later
// The Live tab's longer most-rejected windows: the library's _top replies, each the sum of its
// previous and current 10-second periods, are tiled every other start so no period counts twice.

#include "model/monitor/rejected_tally.h"

#include <QTest>

using namespace sluice::model;

namespace {

TopRejected reply(qint64 since, qint64 now, const QVector<std::pair<QByteArray, quint64>> &counts)
{
    TopRejected top{QStringLiteral("api"), since, now, {}, {}};
    for (const auto &[subject, rejections] : counts)
        top.subjects.append({subject, rejections, 0, QStringLiteral("node")});
    return top;
}

} // namespace

class TestRejectedTally : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void periodsAreCountedOnce()
    {
        // Periods of 10 s: alice 4 then 6, bob 1 then 5, then nobody. Polled every few seconds.
        RejectedTally tally;
        tally.add(reply(0, 5000, {{"alice", 4}}));                  // only the current period yet
        tally.add(reply(0, 13000, {{"alice", 7}}));                 // periods 0 and 1 (so far)
        tally.add(reply(0, 19000, {{"alice", 10}, {"bob", 1}}));    // periods 0 and 1
        tally.add(reply(10000, 29000, {{"alice", 6}, {"bob", 6}})); // periods 1 and 2
        tally.add(reply(20000, 39000, {{"bob", 5}}));               // periods 2 and 3
        const RejectedTally::Result minute = tally.over(60000);
        QCOMPARE(minute.subjects.size(), 2);
        QCOMPARE(minute.subjects.at(0).subject, QByteArray("alice"));
        QCOMPARE(minute.subjects.at(0).rejections, 10u);
        QCOMPARE(minute.subjects.at(1).subject, QByteArray("bob"));
        QCOMPARE(minute.subjects.at(1).rejections, 6u);
        QCOMPARE(minute.coveredMs, 19000 + 19000);
        // A window shorter than the replies kept takes the newest pair alone.
        const RejectedTally::Result recent = tally.over(20000);
        QCOMPARE(recent.subjects.size(), 1);
        QCOMPARE(recent.subjects.first().rejections, 5u);
    }

    void aReplyWithProblemsIsLeftOut()
    {
        RejectedTally tally;
        tally.add(reply(0, 9000, {{"alice", 3}}));
        TopRejected partial = reply(0, 12000, {{"alice", 1}});
        partial.problems << QStringLiteral("node: no answer"); // one primary missing: it would undercount
        tally.add(partial);
        QCOMPARE(tally.over(60000).subjects.first().rejections, 3u);
        tally.clear();
        QVERIFY(tally.over(60000).subjects.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestRejectedTally)
#include "tst_rejected_tally.moc"
