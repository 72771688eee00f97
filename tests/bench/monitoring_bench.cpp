// SPDX-License-Identifier: GPL-3.0-or-later
// Monitoring benchmark: the dashboard (the real main window, offscreen) watching 50 policies and
// 100 buckets at 1 Hz on a private redis-server that takes steady traffic from another thread.
// For each tab in view it prints the commands per second the dashboard sends, the Redis time they
// cost (INFO commandstats, the traffic's FCALL left out), the GUI thread's CPU time per tick and
// its longest event-loop stall. Then, on a library with the test clock, it feeds one and then two
// simulated hours of 1 Hz samples for 200 policies and 100 watched buckets and prints the resident
// memory. Then the Overview alone at 10, 100 and 1,000 policies (the scale benchmark's sizes), the same
// figures for each. Targets: under 1% of one Redis core; no stall over 50 ms. Exits non-zero only when it
// cannot measure (a command failed, the server died), never on a figure; each server and its folder
// go on every way out.

#include "model/connection/connection_session.h"
#include "model/limiter/bucket_key.h"
#include "model/monitor/key_watch.h"
#include "support/bench_support.h"
#include "support/event_loop_watchdog.h"
#include "support/limiter_support.h"
#include "support/publish_support.h"
#include "support/sync_command.h"
#include "support/traffic_support.h"
#include "support/window_support.h"
#include "ui/monitor/key_watch_view.h"
#include "ui/monitor/policy_live_view.h"
#include "ui/window/main_window.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QTabWidget>
#include <QTextStream>
#include <QThread>
#include <QTimer>

#include <ctime>

using namespace sluice;
using test::die;
using test::mustRun;
using test::out;

namespace {

constexpr int livePolicies = 50;
constexpr int watchedKeys = 100;
constexpr int phaseSeconds = 20;
constexpr int memoryPolicies = 200;
constexpr int maxUnansweredTraffic = 1000;

double threadCpuMs()
{
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return now.tv_sec * 1e3 + now.tv_nsec / 1e6;
}

qint64 residentKiB()
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : status.readAll().split('\n'))
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').first().toLongLong();
    return -1;
}

// Runs the event loop as the application would (no polling, no sleeps) for `ms`.
void runFor(int ms)
{
    QEventLoop loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
}

QString policyName(const char *prefix, int i)
{
    return QStringLiteral("%1%2").arg(QLatin1String(prefix)).arg(i, 3, 10, QLatin1Char('0'));
}

QByteArray subjectOf(int i)
{
    return "user-" + QByteArray::number(i);
}

// Redis time (us) of every command but the traffic's FCALL, from INFO commandstats.
qint64 dashboardUsec(redis::RedisClient &client)
{
    const QHash<QByteArray, qint64> usec = test::commandMicroseconds(mustRun(client, {"INFO", "commandstats"}).bytes);
    qint64 total = 0;
    for (auto it = usec.cbegin(); it != usec.cend(); ++it)
        if (it.key() != "fcall")
            total += it.value();
    return total;
}

// Steady traffic from its own thread and connection: 50 acquires every 50 ms (1,000/s) over the
// watched subjects of every policy, some of them rejected. A server held up gets no pile of calls to
// work off: a tick sends nothing past 1,000 unanswered.
class Traffic : public QThread {
public:
    explicit Traffic(redis::ConnectionOptions options, int policies = livePolicies)
        : m_options(std::move(options))
        , m_policies(policies)
    {
    }
    // Also on the way out of a failed phase: a QThread destroyed while it runs aborts the process.
    ~Traffic() override
    {
        quit();
        wait();
    }

protected:
    void run() override
    {
        redis::RedisClient client(m_options);
        client.open();
        QTimer pace;
        int next = 0;
        int unanswered = 0;
        QObject::connect(&pace, &QTimer::timeout, &client, [&] {
            for (int i = 0; i < 50 && unanswered < maxUnansweredTraffic; ++i, ++next) {
                const QString policy = policyName("p", next % m_policies);
                const QByteArray key
                    = model::bucketKey(QStringLiteral("sluice"), policy, subjectOf(next % watchedKeys));
                ++unanswered;
                client.send({"FCALL", "sluice_acquire", "1", key, policy.toUtf8()}, &client,
                            [&unanswered](const redis::RedisReply &) { --unanswered; });
            }
        });
        pace.start(50);
        exec();
    }

private:
    redis::ConnectionOptions m_options;
    int m_policies;
};

std::unique_ptr<ui::MainWindow> openWindow(const redis::ConnectionOptions &options)
{
    model::ConnectionProfile profile;
    profile.name = QStringLiteral("bench");
    profile.options = options;
    auto window = test::openMainWindow(profile);
    window->resize(1280, 800);
    if (!window->session()->isReady())
        die(QStringLiteral("the dashboard did not connect"));
    return window;
}

void watchKeys(ui::MainWindow &window, const char *prefix, int policies)
{
    for (int i = 0; i < watchedKeys; ++i)
        if (!window.keyWatchView()->watchSubject(policyName(prefix, i % policies), subjectOf(i)))
            die(window.keyWatchView()->errorText());
}

// What the dashboard cost over one phase: the commands it sent, the Redis time they took (the traffic's FCALL
// left out), the GUI thread's CPU time per reading and its longest stall.
struct PhaseCost {
    double commandsPerSecond = 0;
    double redisUsPerSecond = 0;
    double corePercent = 0;
    double guiMsPerTick = 0;
    qint64 longestStallMs = 0;

    // The columns after the first of printCostHeader's table.
    QString columns() const
    {
        return QStringLiteral("%1 %2 %3% %4 %5")
            .arg(commandsPerSecond, 11, 'f', 1)
            .arg(redisUsPerSecond, 11, 'f', 0)
            .arg(corePercent, 11, 'f', 3)
            .arg(guiMsPerTick, 12, 'f', 2)
            .arg(longestStallMs, 13);
    }
};

void printCostHeader(const QString &firstColumn, int width)
{
    out() << QStringLiteral("%1 %2 %3 %4 %5 %6\n")
                 .arg(firstColumn, width)
                 .arg(QStringLiteral("commands/s"), 11)
                 .arg(QStringLiteral("Redis us/s"), 11)
                 .arg(QStringLiteral("% of a core"), 12)
                 .arg(QStringLiteral("GUI ms/tick"), 12)
                 .arg(QStringLiteral("max stall ms"), 13);
}

PhaseCost measurePhase(redis::RedisClient &admin, model::ConnectionSession *session, int seconds)
{
    const quint64 sentBefore = session->commandsSent();
    const int ticksBefore = session->rates()->readings();
    const qint64 usecBefore = dashboardUsec(admin);
    const double cpuBefore = threadCpuMs();
    test::EventLoopWatchdog watchdog;
    watchdog.start();
    QElapsedTimer clock;
    clock.start();
    runFor(seconds * 1000);
    const double elapsed = clock.elapsed() / 1000.0;
    const qint64 usec = dashboardUsec(admin) - usecBefore;
    PhaseCost cost;
    cost.commandsPerSecond = (session->commandsSent() - sentBefore) / elapsed;
    cost.redisUsPerSecond = usec / elapsed;
    cost.corePercent = usec / (elapsed * 1e6) * 100;
    cost.guiMsPerTick = (threadCpuMs() - cpuBefore) / std::max(1, session->rates()->readings() - ticksBefore);
    cost.longestStallMs = watchdog.longestStallMs();
    return cost;
}

void livePhases(test::RedisProcess &server)
{
    redis::RedisClient admin(server.options());
    if (!test::openAndWait(admin))
        die(QStringLiteral("cannot connect"));
    QVector<model::Policy> policies;
    const model::Algorithm algorithms[]
        = {model::Algorithm::TokenBucket, model::Algorithm::Gcra, model::Algorithm::FixedWindow,
           model::Algorithm::SlidingWindow, model::Algorithm::LeakyBucket};
    for (int i = 0; i < livePolicies; ++i)
        policies << test::makePolicy(policyName("p", i), algorithms[i % 5], i < 10 ? 5 : 1000, 1000, i < 10 ? 5 : 0);
    const QString published = test::storeAndPublish(admin, QStringLiteral("sluice"), policies);
    if (!published.isEmpty())
        die(published);

    Traffic traffic(server.options());
    traffic.start();
    auto window = openWindow(server.options());
    watchKeys(*window, "p", livePolicies);
    auto *tabs = window->findChild<QTabWidget *>(QStringLiteral("mainTabs"));
    window->liveView()->showPolicy(policyName("p", 0));
    window->keyWatchView()->select(window->keyWatchView()->watch()->keys().first().id);

    out() << QStringLiteral("live: %1 policies, %2 watched buckets, 1 Hz, traffic 1,000 acquires/s, %3 s per tab\n")
                 .arg(livePolicies)
                 .arg(watchedKeys)
                 .arg(phaseSeconds);
    printCostHeader(QStringLiteral("tab in view"), -16);
    double worstCore = 0;
    qint64 worstStall = 0;
    const std::pair<const char *, QWidget *> views[]
        = {{"Overview", tabs->widget(0)}, {"Live", window->liveView()}, {"Watched keys", window->keyWatchView()}};
    for (const auto &[name, view] : views) {
        tabs->setCurrentWidget(view);
        runFor(2000); // settle: the tab's first reads and layout
        const PhaseCost cost = measurePhase(admin, window->session(), phaseSeconds);
        worstCore = std::max(worstCore, cost.corePercent);
        worstStall = std::max(worstStall, cost.longestStallMs);
        out() << QStringLiteral("%1 %2\n").arg(QLatin1String(name), -16).arg(cost.columns());
    }
    out() << "target: under 1% of one Redis core (worst: " << QString::number(worstCore, 'f', 3)
          << "%); the GUI thread never stalls over 50 ms (worst: " << worstStall << " ms)" << Qt::endl;
}

// What the Overview costs as the namespace's policies grow: for each size on a fresh server, steady traffic over
// its first 50 policies (all of them when fewer), the Overview in view for a phase.
void policySizes()
{
    constexpr int sizeSeconds = 10;
    out() << QStringLiteral("\nby policies: the Overview in view, traffic 1,000 acquires/s, %1 s per size\n")
                 .arg(sizeSeconds);
    printCostHeader(QStringLiteral("policies"), 9);
    for (const int size : {10, 100, 1000}) {
        test::withPrivateServer([size](test::RedisProcess &server) {
            redis::RedisClient admin(server.options());
            if (!test::openAndWait(admin))
                die(QStringLiteral("cannot connect"));
            QVector<model::Policy> policies;
            for (int i = 0; i < size; ++i)
                policies << test::makePolicy(policyName("p", i), model::Algorithm::TokenBucket, 1000, 1000);
            const QString published = test::storeAndPublish(admin, QStringLiteral("sluice"), policies);
            if (!published.isEmpty())
                die(published);
            Traffic traffic(server.options(), std::min(size, livePolicies));
            traffic.start();
            auto window = openWindow(server.options());
            runFor(3000); // settle: the first readings and the table's rows
            out() << QStringLiteral("%1 %2\n").arg(size, 9).arg(
                measurePhase(admin, window->session(), sizeSeconds).columns());
            out().flush();
        });
    }
}

// Feeds simulated seconds: sets the library's test clock, samples every policy and reads every
// watched bucket, as one 1 Hz tick would.
void simulate(redis::RedisClient &admin, ui::MainWindow &window, qint64 *clockMs, int seconds)
{
    model::PolicyRateSampler *rates = window.session()->rates();
    model::KeyWatch *watch = window.keyWatchView()->watch();
    for (int i = 0; i < seconds; ++i) {
        *clockMs += 1000;
        mustRun(admin, {"FCALL", "sluice_test_set_clock", "0", QByteArray::number(*clockMs)});
        const int readings = rates->readings();
        const int rounds = watch->rounds();
        rates->sampleNow();
        watch->pollNow();
        if (!test::spinUntil([&] { return rates->readings() > readings && watch->rounds() > rounds; }, 120000))
            die(QStringLiteral("a simulated tick did not complete"));
    }
}

void memoryPhase(test::RedisProcess &server)
{
    redis::RedisConnection loader(server.options());
    redis::RedisClient admin(server.options());
    if (!test::openAndWait(loader) || !test::openAndWait(admin))
        die(QStringLiteral("cannot connect"));
    QVector<model::Policy> policies;
    for (int i = 0; i < memoryPolicies; ++i)
        policies << test::makePolicy(policyName("m", i), model::Algorithm::TokenBucket, 100, 1000);
    const QString loaded = test::loadLibrary(loader, test::testClockLibrary(policies));
    if (!loaded.isEmpty())
        die(loaded);
    qint64 clockMs = 1'800'000'000'000;
    mustRun(admin, {"FCALL", "sluice_test_set_clock", "0", QByteArray::number(clockMs)});
    const QString unfilled = test::fillBuckets(
        admin, QStringLiteral("sluice"), watchedKeys,
        [](int i) {
        return test::BucketAddress{policyName("m", i % memoryPolicies), subjectOf(i)};
        },
        test::privateServerEnded);
    if (!unfilled.isEmpty())
        die(QStringLiteral("cannot create the watched buckets: %1").arg(unfilled));

    auto window = openWindow(server.options());
    window->session()->rates()->stop(); // the simulated clock drives every tick
    window->session()->rates()->setRetentionMs(60 * 60 * 1000);
    window->keyWatchView()->watch()->stop();
    watchKeys(*window, "m", memoryPolicies);
    simulate(admin, *window, &clockMs, 60); // every series and table row exists
    const qint64 before = residentKiB();
    QElapsedTimer clock;
    clock.start();
    simulate(admin, *window, &clockMs, 3600 - 60);
    const qint64 oneHour = residentKiB();
    simulate(admin, *window, &clockMs, 3600);
    const qint64 twoHours = residentKiB();
    qint64 historyBytes = 0;
    for (const QString &policy : window->session()->rates()->policies())
        historyBytes += window->session()->rates()->history(policy)->bytes();
    qint64 watchSamples = 0;
    for (const model::WatchedKey &key : window->keyWatchView()->watch()->keys())
        watchSamples += key.samples.size();
    out() << QStringLiteral(
                 "memory: %1 policy series (allowed and rejected) and %2 watched buckets, retention 1 h at 1 Hz, "
                 "simulated clock (%3 s for two hours of ticks)\n")
                 .arg(memoryPolicies)
                 .arg(watchedKeys)
                 .arg(clock.elapsed() / 1000.0, 0, 'f', 1);
    out() << QStringLiteral(
                 "resident: %1 MiB after 1 min, %2 MiB after 1 h, %3 MiB after 2 h (rate histories hold %4 MiB, "
                 "watched buckets %5 samples)\n")
                 .arg(before / 1024.0, 0, 'f', 1)
                 .arg(oneHour / 1024.0, 0, 'f', 1)
                 .arg(twoHours / 1024.0, 0, 'f', 1)
                 .arg(historyBytes / 1048576.0, 0, 'f', 1)
                 .arg(watchSamples);
}

} // namespace

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    return test::runBenchmark("monitoring_bench", [] {
        test::withPrivateServer(livePhases);
        test::withPrivateServer(memoryPhase);
        policySizes();
    });
}
