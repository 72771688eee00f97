// SPDX-License-Identifier: GPL-3.0-or-later
// The dashboard's rate history on disk: what is saved comes back exactly, within the retention and
// the size cap; a damaged, cut short, foreign-version or foreign file gives an empty start and a
// logged reason; the keeper hands an earlier run's points to the sampler before this run's and
// saves when it finishes; and a stretch nothing was counted in is told apart from samples in a row.

#include "model/monitor/policy_rate_sampler.h"
#include "model/monitor/rate_history_keeper.h"
#include "model/monitor/rate_history_store.h"
#include "redis/redis_client.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <limits>
#include <sys/stat.h>

using namespace sluice;
using model::RateHistoryStore;
using model::RatePoint;
using model::RateSeries;

namespace {

constexpr qint64 kHour = 60 * 60 * 1000;
const qint64 kNow = 1'800'000'000'000; // a fixed "now": nothing here depends on the clock

RateHistoryStore::Identity identity(const QString &ns = QStringLiteral("shop"))
{
    return {QStringLiteral("prod eu"), ns, 2, QStringLiteral("redis://10.0.0.7:6379/2")};
}

// `count` one-second samples per policy ending at `lastEndMs`, with counts that differ per point.
RateSeries seconds(const QStringList &policies, int count, qint64 lastEndMs)
{
    RateSeries series;
    for (int p = 0; p < policies.size(); ++p)
        for (int i = 0; i < count; ++i)
            series[policies.at(p)] << RatePoint{lastEndMs - (count - 1 - i) * 1000LL, 1000, quint32(i * 7 + p),
                                                quint32(i % 13)};
    return series;
}

bool samePoints(const QVector<RatePoint> &a, const QVector<RatePoint> &b)
{
    return std::equal(a.cbegin(), a.cend(), b.cbegin(), b.cend(), [](const RatePoint &x, const RatePoint &y) {
        return x.endMs == y.endMs && x.spanMs == y.spanMs && x.allowed == y.allowed && x.rejected == y.rejected;
    });
}

bool sameSeries(const RateSeries &a, const RateSeries &b)
{
    if (a.size() != b.size())
        return false;
    for (const auto &[policy, points] : a)
        if (!b.count(policy) || !samePoints(points, b.at(policy)))
            return false;
    return true;
}

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

void writeAll(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(file.write(bytes), bytes.size());
}

} // namespace

class TestRateHistoryStore : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private Q_SLOTS:
    void init()
    {
        QVERIFY(m_dir.isValid());
        for (const QString &name : QDir(m_dir.path()).entryList(QDir::Files))
            QFile::remove(QDir(m_dir.path()).filePath(name));
    }

    void roundTripIsExactAndPrivate()
    {
        RateSeries series
            = seconds({QStringLiteral("api"), QStringLiteral("search.v2"), QStringLiteral("a_b-c")}, 600, kNow - 5000);
        // Saturated counts and a long span (a sum over a step) come back as they were.
        series[QStringLiteral("api")].prepend({kNow - 700000, 60000, std::numeric_limits<quint32>::max(), 0});
        const RateHistoryStore store(m_dir.path(), identity());
        QVERIFY(!store.save(series, kNow, kHour));
        QCOMPARE(QFile::permissions(store.path()),
                 QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadUser | QFileDevice::WriteUser);
        QVERIFY(!readAll(store.path()).contains("10.0.0.7")); // only a digest of where the profile points

        QString reason;
        const RateSeries loaded = RateHistoryStore(m_dir.path(), identity()).load(kNow, kHour, &reason);
        QVERIFY2(reason.isEmpty(), qPrintable(reason));
        QVERIFY(sameSeries(loaded, series));
    }

    // Another local user's plants where the history goes: the file a link to one of this user's files (it was
    // overwritten and made 0600), /dev/zero (it aborted the dashboard), a FIFO (it hung it), the folder a link
    // (its target was made 0700). Loading starts empty at once and says why; saving is refused; each plant and
    // what it points to stay as they were.
    void plantedFilesAreNeitherFollowedNorRead()
    {
        QTemporaryDir home;
        const QString folder = home.filePath(QStringLiteral("rate-history"));
        QVERIFY(QDir().mkpath(folder));
        const RateHistoryStore store(folder, identity());
        const QString precious = home.filePath(QStringLiteral("notes.txt"));
        QVERIFY(QFile(precious).open(QIODevice::WriteOnly));
        QVERIFY(QFile::setPermissions(precious,
                                      QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadGroup
                                          | QFileDevice::ReadOther));
        const RateSeries series = seconds({QStringLiteral("api")}, 10, kNow);
        for (const QString &plant : {precious, QStringLiteral("/dev/zero"), QStringLiteral("fifo")}) {
            QFile::remove(store.path());
            if (plant == QLatin1String("fifo"))
                QVERIFY(::mkfifo(QFile::encodeName(store.path()).constData(), 0600) == 0);
            else
                QVERIFY(QFile::link(plant, store.path()));
            QElapsedTimer timer;
            timer.start();
            QString reason;
            QVERIFY(RateHistoryStore(folder, identity()).load(kNow, kHour, &reason).empty());
            QVERIFY2(reason.contains(QLatin1String("symbolic link")) || reason.contains(QLatin1String("FIFO")),
                     qPrintable(plant + QLatin1String(": ") + reason));
            QVERIFY(timer.elapsed() < 1000);
            const auto refused = store.save(series, kNow, kHour);
            QVERIFY2(refused, qPrintable(plant));
            QVERIFY(timer.elapsed() < 1000);
        }
        QCOMPARE(QFile::permissions(precious) & QFileDevice::ReadOther, QFileDevice::ReadOther);
        QCOMPARE(QFile(precious).size(), 0);

        // The folder itself a link: its target keeps its mode, nothing is written into it.
        const QString shared = home.filePath(QStringLiteral("shared"));
        QVERIFY(QDir().mkdir(shared));
        QVERIFY(QFile::setPermissions(shared,
                                      QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner
                                          | QFileDevice::ReadOther | QFileDevice::ExeOther));
        const QString linked = home.filePath(QStringLiteral("linked-history"));
        QVERIFY(QFile::link(shared, linked));
        const auto refused = RateHistoryStore(linked, identity()).save(series, kNow, kHour);
        QVERIFY2(refused && refused->message.contains(QLatin1String("symbolic link")),
                 qPrintable(refused ? refused->message : QString()));
        QCOMPARE(QFile::permissions(shared) & QFileDevice::ReadOther, QFileDevice::ReadOther);
        QVERIFY(QDir(shared).isEmpty());
    }

    void noFileIsAnEmptyStartWithoutComplaint()
    {
        QString reason = QStringLiteral("stale");
        QVERIFY(RateHistoryStore(m_dir.path(), identity()).load(kNow, kHour, &reason).empty());
        QVERIFY(reason.isEmpty());
    }

    void keepsNoMoreThanTheRetention()
    {
        const RateHistoryStore store(m_dir.path(), identity());
        const RateSeries twoHours = seconds({QStringLiteral("api")}, 7200, kNow);
        QVERIFY(!store.save(twoHours, kNow, kHour));
        QString reason;
        RateSeries loaded = store.load(kNow, kHour, &reason);
        const QVector<RatePoint> &kept = loaded[QStringLiteral("api")];
        QCOMPARE(kept.size(), 3600);
        QCOMPARE(kept.first().endMs, kNow - kHour + 1000);
        QVERIFY(samePoints(kept, twoHours.at(QStringLiteral("api")).mid(3600)));
        // Read later, what has aged past the retention since is left out too.
        loaded = store.load(kNow + 10 * 60 * 1000, kHour, &reason);
        QCOMPARE(loaded[QStringLiteral("api")].size(), 3000);
    }

    void sizeCapDropsTheOldestPoints()
    {
        QStringList policies;
        for (int i = 0; i < 50; ++i)
            policies << QStringLiteral("policy-%1").arg(i);
        // 50 policies of 10,000 samples: 500,000 points, more than the cap holds.
        const RateSeries series = seconds(policies, 10000, kNow);
        const RateHistoryStore store(m_dir.path(), identity());
        QElapsedTimer took;
        took.start();
        QVERIFY(!store.save(series, kNow, 24 * kHour));
        qInfo("saving 50 policies at the %lld MiB cap took %lld ms", RateHistoryStore::kMaxFileBytes >> 20,
              took.elapsed());
        QVERIFY(QFileInfo(store.path()).size() <= RateHistoryStore::kMaxFileBytes);
        QString reason;
        const RateSeries loaded = store.load(kNow, 24 * kHour, &reason);
        QVERIFY2(reason.isEmpty(), qPrintable(reason));
        QCOMPARE(int(loaded.size()), 50);
        for (const QString &policy : policies) {
            const QVector<RatePoint> &all = series.at(policy);
            const QVector<RatePoint> &kept = loaded.at(policy);
            QVERIFY(kept.size() > 5000 && kept.size() < all.size());
            QVERIFY(samePoints(kept, all.mid(all.size() - kept.size()))); // the newest, exactly
        }

        // The dashboard's usual file: 10 policies, an hour of one-second samples.
        const RateHistoryStore usual(m_dir.path(), identity(QStringLiteral("usual")));
        took.restart();
        QVERIFY(!usual.save(seconds(policies.mid(0, 10), 3600, kNow), kNow, kHour));
        qInfo("saving 10 policies x 3600 samples (%lld KiB) took %lld ms", QFileInfo(usual.path()).size() / 1024,
              took.elapsed());

        // A file over the cap is not read at all.
        writeAll(store.path(), QByteArray(RateHistoryStore::kMaxFileBytes + 1, 'x'));
        QVERIFY(store.load(kNow, kHour, &reason).empty());
        QVERIFY2(reason.contains(QLatin1String("larger than")), qPrintable(reason));
    }

    void unusableFilesGiveAnEmptyStart_data()
    {
        QTest::addColumn<QString>("damage");
        QTest::addColumn<QString>("expected");
        QTest::newRow("flipped byte") << "flip"
                                      << "checksum";
        QTest::newRow("cut short (power loss)") << "half"
                                                << "checksum";
        QTest::newRow("last byte lost") << "last"
                                        << "checksum";
        QTest::newRow("a few bytes left") << "stub"
                                          << "not a Sluice";
        QTest::newRow("empty") << "empty"
                               << "not a Sluice";
        QTest::newRow("another format version") << "version"
                                                << "format version 2";
        QTest::newRow("something else") << "text"
                                        << "not a Sluice";
    }

    void unusableFilesGiveAnEmptyStart()
    {
        QFETCH(QString, damage);
        QFETCH(QString, expected);
        const RateHistoryStore store(m_dir.path(), identity());
        QVERIFY(!store.save(seconds({QStringLiteral("api")}, 100, kNow), kNow, kHour));
        QByteArray bytes = readAll(store.path());
        if (damage == QLatin1String("flip"))
            bytes[bytes.size() / 2] = char(bytes.at(bytes.size() / 2) ^ 0x10);
        else if (damage == QLatin1String("half"))
            bytes.truncate(bytes.size() / 2);
        else if (damage == QLatin1String("last"))
            bytes.chop(1);
        else if (damage == QLatin1String("stub"))
            bytes.truncate(3);
        else if (damage == QLatin1String("empty"))
            bytes.clear();
        else if (damage == QLatin1String("version"))
            bytes[5] = 2; // the big-endian format version after the 4-byte magic
        else
            bytes = "time,allowed\n1,2\n";
        writeAll(store.path(), bytes);

        QString reason;
        QVERIFY(store.load(kNow, kHour, &reason).empty());
        QVERIFY2(reason.contains(expected), qPrintable(reason));

        // The dashboard logs why and starts empty; its next save replaces the file.
        redis::RedisClient client(redis::ConnectionOptions{});
        model::PolicyRateSampler sampler(&client, {QStringLiteral("shop"), 2});
        model::RateHistoryKeeper keeper(&sampler, store);
        QSignalSpy restored(&keeper, &model::RateHistoryKeeper::restored);
        QTest::ignoreMessage(QtWarningMsg,
                             QRegularExpression(QStringLiteral("rate history .* not used: .*%1.* the "
                                                               "charts start empty")
                                                    .arg(QRegularExpression::escape(expected))));
        keeper.start();
        QVERIFY(restored.wait(5000));
        QVERIFY(sampler.policies().isEmpty());
        keeper.finish();
        QVERIFY(store.load(kNow, kHour, &reason).empty());
        QVERIFY2(reason.isEmpty(), qPrintable(reason));
    }

    void anotherNamespacesFileIsNotRead()
    {
        const RateHistoryStore shop(m_dir.path(), identity(QStringLiteral("shop")));
        const RateHistoryStore billing(m_dir.path(), identity(QStringLiteral("billing")));
        QVERIFY(shop.path() != billing.path());
        QVERIFY(!shop.save(seconds({QStringLiteral("api")}, 10, kNow), kNow, kHour));
        QString reason;
        QVERIFY(billing.load(kNow, kHour, &reason).empty());
        QVERIFY(reason.isEmpty());

        // Even put in its place, another namespace's, database's or server's file is refused.
        RateHistoryStore::Identity otherDatabase = identity();
        otherDatabase.database = 3;
        RateHistoryStore::Identity otherServer = identity();
        otherServer.address = QStringLiteral("redis://10.0.0.8:6379/2");
        const QByteArray shopFile = readAll(shop.path());
        for (const RateHistoryStore::Identity &other :
             {identity(QStringLiteral("billing")), otherDatabase, otherServer}) {
            const RateHistoryStore store(m_dir.path(), other);
            writeAll(store.path(), shopFile);
            QVERIFY(store.load(kNow, kHour, &reason).empty());
            QVERIFY2(reason.startsWith(QLatin1String("recorded for")), qPrintable(reason));
        }
    }

    void keeperRestoresBeforeThisRunAndSavesOnFinish()
    {
        const RateHistoryStore store(m_dir.path(), identity());
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        const RateSeries earlier = seconds({QStringLiteral("api"), QStringLiteral("gone")}, 300, now - 60000);
        QVERIFY(!store.save(earlier, now, kHour));

        redis::RedisClient client(redis::ConnectionOptions{});
        model::PolicyRateSampler sampler(&client, {QStringLiteral("shop"), 2});
        // This run's first sample came before the file was read back: it stays, after the earlier points.
        const RatePoint live{now - 1000, 1000, 5, 1};
        sampler.restore({{QStringLiteral("api"), {live}}});
        {
            model::RateHistoryKeeper keeper(&sampler, store);
            QSignalSpy restored(&keeper, &model::RateHistoryKeeper::restored);
            keeper.start();
            QVERIFY(restored.wait(5000));
            QCOMPARE(restored.first().at(0).toInt(), 2);
            QVector<RatePoint> expected = earlier.at(QStringLiteral("api"));
            expected << live;
            QVERIFY(samePoints(sampler.series().at(QStringLiteral("api")), expected));
            QVERIFY(samePoints(sampler.series().at(QStringLiteral("gone")), earlier.at(QStringLiteral("gone"))));
            keeper.finish();
        }
        QString reason;
        const RateSeries saved = store.load(now, kHour, &reason);
        QVERIFY2(reason.isEmpty(), qPrintable(reason));
        QVERIFY(sameSeries(saved, sampler.series()));
    }

    void aStretchWithoutSamplesIsAGap()
    {
        const RatePoint first{10000, 1000, 1, 0};
        QVERIFY(model::followsWithoutGap(first, {11000, 1000, 1, 0}));  // end to start
        QVERIFY(model::followsWithoutGap(first, {11900, 1000, 1, 0}));  // a late tick
        QVERIFY(!model::followsWithoutGap(first, {15000, 1000, 1, 0})); // closed for 4 s
        // Sums over a minute's step shift by less than a sample against each other.
        QVERIFY(model::followsWithoutGap({60000, 59000, 1, 0}, {120000, 61000, 1, 0}));
        QVERIFY(!model::followsWithoutGap({60000, 60000, 1, 0}, {300000, 60000, 1, 0}));
    }
};

QTEST_GUILESS_MAIN(TestRateHistoryStore)
#include "tst_rate_history_store.moc"
