// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/fire/fire_engine.h"

#include "model/limiter/library_problem.h"
#include "model/limiter/limiter_library.h"
#include "model/model_log.h"
#include "redis/redis_client.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QHash>
#include <QRandomGenerator>
#include <QThread>
#include <QTimer>

#include <climits>
#include <memory>
#include <optional>
#include <random>
#include <vector>

namespace sluice::model {

namespace {

constexpr qint64 nsPerMs = 1'000'000;
constexpr int connectTimeoutMs = 5000;
constexpr int callTimeoutMs = 5000;
constexpr int updateEveryMs = 100;
// Open-loop sending pauses while this many calls are unanswered (a server that stopped answering
// must not make the engine queue without end); the lag it causes is reported.
constexpr qint64 maxInFlight = 50'000;

QByteArray newRunId()
{
    return QByteArray::number(QDateTime::currentMSecsSinceEpoch(), 36) + '-'
        + QByteArray::number(QRandomGenerator::global()->bounded(36 * 36 * 36), 36);
}

} // namespace

// One run, living on the engine's thread: its connections, its schedule, the models, the bins.
class FireRun : public QObject {
public:
    FireRun(const FirePlan &plan, const redis::ConnectionOptions &options, const LibraryOwner &owner, bool readOnly,
            const QByteArray &runId, FireEngine *engine)
        : m_plan(plan)
        , m_options(options)
        , m_readOnly(readOnly)
        , m_engine(engine)
        , m_schedule(plan)
        , m_subjectRandom(plan.seed)
        , m_actualRandom(plan.seed ^ 0xac7a1)
    {
        for (int index = 0; index < plan.targets.size(); ++index) {
            m_commands.emplace_back(plan.targets.at(index), index, owner, runId, plan.realKeys, plan.cost,
                                    plan.reserve);
            m_models.emplace_back(plan.subjects == FireSubjects::One ? 1 : plan.subjectCount);
        }
        m_bins.resize(plan.targets.size());
        m_latency.resize(plan.targets.size());
        m_firstErrors = QStringList(plan.targets.size(), QString());
        m_answered.resize(plan.targets.size());
    }

    void begin()
    {
        m_clock.start();
        for (int i = 0; i < m_plan.connections; ++i) {
            auto *client = new redis::RedisClient(m_options, this);
            client->setReadOnly(m_readOnly);
            connect(client, &redis::RedisClient::stateChanged, this, [this] { checkConnected(); });
            m_clients.push_back(client);
            client->open();
        }
        QTimer::singleShot(connectTimeoutMs, this, [this] {
            if (!m_connected)
                fail({Failure::Kind::Unreachable,
                      FireEngine::tr("could not connect within %1 s: %2")
                          .arg(connectTimeoutMs / 1000)
                          .arg(m_clients.front()->lastError())});
        });
        m_updates->callOnTimeout(this, [this] { post(); });
        m_updates->start(updateEveryMs);
    }

    // No more calls; finishes once the ones in flight are answered.
    void stopSending()
    {
        if (m_sendingOver)
            return;
        m_sendingOver = true;
        m_sendingMs = elapsedMs();
        m_ticker->stop();
        finishWhenAnswered();
    }

private:
    void checkConnected()
    {
        if (m_connected || m_over)
            return;
        for (redis::RedisClient *client : m_clients)
            if (client->state() != redis::RedisClient::State::Ready)
                return;
        m_connected = true;
        readServerClock();
    }

    // The model's clock is the server's: one TIME, its round trip split in half.
    void readServerClock()
    {
        const qint64 askedNs = m_clock.nsecsElapsed();
        m_clients.front()->send({"TIME"}, this, [this, askedNs](const redis::RedisReply &reply) {
            const qint64 answeredNs = m_clock.nsecsElapsed();
            if (!reply.ok() || reply.value.elements.size() != 2) {
                const Failure failure
                    = reply.ok() ? Failure::serverError(reply.value.toString()) : Failure::fromReply(reply);
                return fail(failure.prefixed(FireEngine::tr("the server's clock could not be read")));
            }
            const qint64 serverUs = reply.value.elements.at(0).toString().toLongLong() * 1'000'000
                + reply.value.elements.at(1).toString().toLongLong();
            m_serverUsAtZero = serverUs - (askedNs + answeredNs) / 2 / 1000;
            loadScripts();
        });
    }

    // Seed scripts are called by digest, so each primary gets them first.
    void loadScripts()
    {
        QByteArrayList scripts;
        for (const FireCommands &commands : m_commands)
            if (!commands.script().isEmpty() && !scripts.contains(commands.script()))
                scripts << commands.script();
        if (scripts.isEmpty())
            return startSending();
        auto pending = std::make_shared<int>(static_cast<int>(scripts.size()));
        for (const QByteArray &script : scripts) {
            m_clients.front()->sendToPrimaries({"SCRIPT", "LOAD", script}, this,
                                               [this, pending](const QVector<redis::RedisClient::NodeReply> &replies) {
                for (const auto &node : replies)
                    if (!node.reply.ok())
                        return fail(Failure::fromReply(node.reply)
                                        .prefixed(FireEngine::tr("loading a seed script on %1 failed").arg(node.node)));
                if (--*pending == 0 && !m_over)
                    startSending();
            });
        }
    }

    void startSending()
    {
        if (m_over)
            return;
        m_started = true;
        m_startNs = m_clock.nsecsElapsed();
        if (m_plan.shape == FireShape::Saturate) {
            for (int connection = 0; connection < m_plan.connections; ++connection)
                for (int i = 0; i < m_plan.pipeline; ++i)
                    sendCall(connection, -1);
            QTimer::singleShot(static_cast<int>(m_plan.durationMs), this, [this] { stopSending(); });
        } else {
            m_nextDueNs = m_schedule.nextNs();
            m_ticker->setTimerType(Qt::PreciseTimer);
            m_ticker->callOnTimeout(this, [this] { sendDue(); });
            m_ticker->start(1);
            sendDue();
        }
        post();
    }

    void sendDue()
    {
        const qint64 nowNs = m_clock.nsecsElapsed() - m_startNs;
        while (m_nextDueNs >= 0 && m_nextDueNs <= nowNs && m_inFlight < maxInFlight) {
            m_maxLagNs = std::max(m_maxLagNs, nowNs - m_nextDueNs);
            sendCall(static_cast<int>(m_calls % m_plan.connections), m_nextDueNs);
            m_nextDueNs = m_schedule.nextNs();
        }
        if (m_nextDueNs < 0) {
            // The schedule's span, or longer when its last calls went out late.
            m_sendingOver = true;
            m_sendingMs = std::max(m_plan.durationMs, nowNs / nsPerMs);
            m_ticker->stop();
            finishWhenAnswered();
        }
    }

    // dueNs: when the schedule wanted it (the slice it is counted in), -1 when saturating.
    void sendCall(int connection, qint64 dueNs)
    {
        const qint64 index = m_calls++;
        const int subjectIndex = m_plan.subjectOf(index, m_subjectRandom);
        const QByteArray subject = m_plan.subjectName(subjectIndex);
        const qint64 sentNs = m_clock.nsecsElapsed() - m_startNs;
        const int bin = static_cast<int>((dueNs >= 0 ? dueNs : sentNs) / (fireBinMs * nsPerMs));
        const qint64 serverMs = (m_serverUsAtZero + (m_startNs + sentNs) / 1000) / 1000;
        // The same actual cost for every target's reservation of this call.
        const qint64 actual = m_plan.reserve
            ? std::uniform_int_distribution<qint64>(m_plan.actualMin, m_plan.actualMax)(m_actualRandom)
            : 0;
        // Saturating with several targets, a connection's next call waits for all their answers.
        auto unanswered = m_commands.size() > 1 ? std::make_shared<size_t>(m_commands.size()) : nullptr;
        for (size_t target = 0; target < m_commands.size(); ++target) {
            const FireTarget &definition = m_plan.targets.at(static_cast<int>(target));
            const qint64 skew
                = m_plan.connections > 1 ? definition.clockSkewMs * connection / (m_plan.connections - 1) : 0;
            FireBin &counts = binAt(target, bin);
            ++counts.sent;
            std::optional<ReferenceLimiter> &model = m_models[target][subjectIndex];
            if (!model)
                model = definition.reference(subject, m_plan.realKeys);
            // On real keys a shadow policy admits every call; its bucket counts what it would reject.
            QByteArray modelReservation;
            bool admits = false;
            if (m_plan.reserve) {
                const Decision decision = model->reserve(serverMs, m_plan.cost);
                admits = decision.allowed;
                modelReservation = decision.extra;
            } else {
                admits = model->admit(serverMs, m_plan.cost) || (m_plan.realKeys && definition.policy.shadow);
            }
            ++(admits ? counts.expectedAllowed : counts.expectedRejected);
            ++m_inFlight;
            const Reservation reservation{subjectIndex, subject, modelReservation, actual, connection};
            auto onReply
                = [this, target, bin, sentNs, connection, unanswered, reservation](const redis::RedisReply &reply) {
                answered(target, bin, sentNs, reply);
                if (m_plan.reserve && reply.failure == redis::RedisReply::Failure::None && !m_over)
                    if (const auto id = FireCommands::reservationId(reply.value); id && !id->isEmpty())
                        settleLater(target, bin, reservation, *id);
                if ((!unanswered || --*unanswered == 0) && m_plan.shape == FireShape::Saturate && !m_sendingOver)
                    sendCall(connection, -1);
            };
            m_clients.at(connection)
                ->send(m_commands[target].command(subject, serverMs + skew), this, onReply, callTimeoutMs);
        }
    }

    void answered(size_t target, int bin, qint64 sentNs, const redis::RedisReply &reply)
    {
        --m_inFlight;
        const qint64 latencyNs = m_clock.nsecsElapsed() - m_startNs - sentNs;
        FireBin &counts = binAt(target, bin);
        const std::optional<bool> admitted = reply.failure == redis::RedisReply::Failure::None
            ? m_commands[target].admitted(reply.value)
            : std::nullopt;
        if (admitted) {
            ++(*admitted ? counts.allowed : counts.rejected);
            ++m_answered[target];
            m_latency[target].add(latencyNs / 1000);
        } else {
            ++counts.errors;
            const QString error = reply.ok() ? FireEngine::tr("unexpected reply: %1").arg(reply.value.toString())
                                             : libraryCallProblem(reply.errorText());
            if (m_firstErrors[target].isEmpty())
                m_firstErrors[target] = error;
            // A target whose very first answer is an error cannot be tested (no library, an
            // unknown policy, a wrong-type key): say so rather than fire on.
            if (m_answered[target] == 0 && !m_over)
                return fail(Failure::serverError(
                    FireEngine::tr("%1: %2").arg(m_plan.targets.at(static_cast<int>(target)).policy.name, error)));
        }
        if (m_sendingOver)
            finishWhenAnswered();
    }

    // What settling an admitted reservation needs: its subject, the model's id for it (empty when the model
    // did not admit it), the call's actual cost and the connection it went on.
    struct Reservation {
        int subjectIndex;
        QByteArray subject;
        QByteArray modelId;
        qint64 actual;
        int connection;
    };

    // Settles reservation `id` settleAfterMs after its answer, the model at the same time, in the slice of
    // the call it reserved for; in flight until answered. A refused settlement (expired) keeps the estimate.
    void settleLater(size_t target, int bin, const Reservation &reservation, const QByteArray &id)
    {
        ++m_inFlight;
        QTimer::singleShot(m_plan.settleAfterMs, this, [this, target, bin, reservation, id] {
            FireBin &counts = binAt(target, bin);
            if (!reservation.modelId.isEmpty()) {
                const qint64 serverMs = (m_serverUsAtZero + m_clock.nsecsElapsed() / 1000) / 1000;
                const Settlement expected = m_models[target][reservation.subjectIndex]->settle(
                    reservation.modelId, serverMs, reservation.actual);
                const bool stands = expected.problem != Settlement::Problem::None;
                counts.expectedCharged += stands ? m_plan.cost : expected.settled;
                counts.expectedUncharged += expected.uncharged;
            }
            const QByteArrayList command
                = m_commands[target].settleCommand(reservation.subject, id, reservation.actual);
            m_clients.at(reservation.connection)
                ->send(
                    command, this,
                    [this, target, bin](const redis::RedisReply &reply) {
                --m_inFlight;
                FireBin &counts = binAt(target, bin);
                const auto settled = reply.failure == redis::RedisReply::Failure::None
                    ? FireCommands::settled(reply.value)
                    : std::nullopt;
                if (settled) {
                    ++counts.settled;
                    counts.charged += settled->settled;
                    counts.uncharged += settled->uncharged;
                } else {
                    const bool refused = reply.failure == redis::RedisReply::Failure::None && reply.value.isError();
                    ++(refused ? counts.settleRefused : counts.errors);
                    counts.charged += refused ? m_plan.cost : 0;
                    if (m_firstErrors[target].isEmpty())
                        m_firstErrors[target] = refused ? libraryCallProblem(reply.errorText())
                                                        : FireEngine::tr("settling: %1").arg(reply.errorText());
                }
                if (m_sendingOver)
                    finishWhenAnswered();
                    },
                    callTimeoutMs);
        });
    }

    qint64 elapsedMs() const { return m_started ? (m_clock.nsecsElapsed() - m_startNs) / nsPerMs : 0; }

    FireBin &binAt(size_t target, int bin)
    {
        QVector<FireBin> &bins = m_bins[target];
        if (bin >= bins.size())
            bins.resize(bin + 1);
        m_firstDirtyBin = std::min(m_firstDirtyBin, bin);
        return bins[bin];
    }

    void finishWhenAnswered()
    {
        if (m_inFlight == 0 && !m_over) {
            m_over = true;
            post();
            QThread::currentThread()->quit();
        }
    }

    void fail(const Failure &failure)
    {
        if (m_over)
            return;
        m_failure = failure;
        m_over = true;
        m_ticker->stop();
        if (!m_sendingOver)
            m_sendingMs = elapsedMs();
        m_sendingOver = true;
        post();
        QThread::currentThread()->quit();
    }

    void post()
    {
        FireUpdate update;
        update.firstBin = m_firstDirtyBin == INT_MAX ? 0 : m_firstDirtyBin;
        for (const QVector<FireBin> &bins : m_bins)
            update.bins << bins.mid(std::min<qsizetype>(update.firstBin, bins.size()));
        update.latency = m_latency;
        update.firstErrors = m_firstErrors;
        update.elapsedMs = elapsedMs();
        update.sendingMs = m_sendingOver ? m_sendingMs : update.elapsedMs;
        update.inFlight = m_inFlight;
        update.maxLagMs = m_maxLagNs / nsPerMs;
        update.connected = m_started;
        update.finished = m_over;
        update.failure = m_failure;
        m_firstDirtyBin = INT_MAX;
        QMetaObject::invokeMethod(
            m_engine, [engine = m_engine, update] { engine->receiveFromRun(update); }, Qt::QueuedConnection);
    }

    const FirePlan m_plan;
    const redis::ConnectionOptions m_options;
    const bool m_readOnly;
    FireEngine *const m_engine;
    FireSchedule m_schedule;
    std::mt19937_64 m_subjectRandom;
    std::mt19937_64 m_actualRandom; // reservations' actual costs
    std::vector<FireCommands> m_commands;
    std::vector<std::vector<std::optional<ReferenceLimiter>>>
        m_models; // per target, per subject (made at its first call)
    std::vector<redis::RedisClient *> m_clients;

    QElapsedTimer m_clock;
    // Children, so they move to the run's thread with it.
    QTimer *const m_ticker = new QTimer(this);
    QTimer *const m_updates = new QTimer(this);
    bool m_connected = false;
    bool m_sendingOver = false;
    bool m_over = false;
    std::optional<Failure> m_failure;
    qint64 m_serverUsAtZero = 0; // the server's clock (µs) when m_clock read 0
    bool m_started = false;
    qint64 m_startNs = 0; // m_clock when the first call went out
    qint64 m_sendingMs = 0;
    qint64 m_nextDueNs = -1;
    qint64 m_calls = 0;
    qint64 m_inFlight = 0;
    qint64 m_maxLagNs = 0;
    QVector<QVector<FireBin>> m_bins;
    QVector<LatencyHistogram> m_latency;
    QStringList m_firstErrors;
    QVector<qint64> m_answered;
    int m_firstDirtyBin = INT_MAX;
};

FireEngine::FireEngine(QObject *parent)
    : QObject(parent)
{
}

FireEngine::~FireEngine()
{
    if (!m_thread)
        return;
    // Abandon: the run's loop ends after what it is doing; its connections close with it.
    disconnect(m_thread, nullptr, this, nullptr);
    m_thread->quit();
    m_thread->wait();
}

std::optional<Failure> FireEngine::start(FirePlan plan, const redis::ConnectionOptions &options, const QString &ns,
                                         bool readOnly)
{
    if (m_thread)
        return Failure{Failure::Kind::Refused, tr("a test-fire run is already going")};
    if (readOnly)
        return Failure{Failure::Kind::Refused, tr("this connection is read-only, and test-fire writes buckets")};
    const QStringList problems = plan.problems();
    if (!problems.isEmpty())
        return Failure::invalid(problems.join(QLatin1Char('\n')));
    if (plan.seed == 0)
        plan.seed = QRandomGenerator::global()->generate64() | 1;
    const QByteArray runId = newRunId();
    const LibraryOwner owner{ns, options.database};
    m_keyPrefix = plan.realKeys ? QByteArray() : fireKeyPrefix(ns, runId);
    std::mt19937_64 subjects(plan.seed);
    m_sampleCommand = FireCommands(plan.targets.first(), 0, owner, runId, plan.realKeys, plan.cost, plan.reserve)
                          .command(plan.subjectName(plan.subjectOf(0, subjects)), QDateTime::currentMSecsSinceEpoch());
    m_report = FireReport(plan);
    m_thread = new QThread(this);
    m_run = new FireRun(plan, options, owner, readOnly, runId, this);
    m_run->moveToThread(m_thread);
    connect(m_thread, &QThread::started, m_run, &FireRun::begin);
    connect(m_thread, &QThread::finished, m_run, &QObject::deleteLater);
    // Queued after the run's last update: the thread has ended, nothing more will come.
    qCDebug(lcFire, "run %s: %s at %s (namespace %s, %s keys, seed %llu)", runId.constData(),
            qUtf8Printable(plan.describe()), qUtf8Printable(options.redactedUrl()), qUtf8Printable(ns),
            plan.realKeys ? "real" : "test-fire", static_cast<unsigned long long>(plan.seed));
    connect(m_thread, &QThread::finished, this, [this, runId] {
        for (int target = 0; target < m_report.targetCount(); ++target) {
            const FireSummary summary = m_report.summary(target);
            qCDebug(lcFire, "run %s, %s: %lld sent, %lld allowed, %lld rejected, %lld errors%s", runId.constData(),
                    qUtf8Printable(summary.target), static_cast<long long>(summary.sent),
                    static_cast<long long>(summary.allowed), static_cast<long long>(summary.rejected),
                    static_cast<long long>(summary.errors),
                    m_report.failure() ? qUtf8Printable(QStringLiteral(" (%1)").arg(m_report.failure()->message)) : "");
        }
        m_thread->deleteLater();
        m_thread = nullptr;
        m_run = nullptr;
        Q_EMIT finished();
    });
    m_thread->start();
    return {};
}

void FireEngine::stop()
{
    if (m_run)
        QMetaObject::invokeMethod(m_run, &FireRun::stopSending, Qt::QueuedConnection);
}

void FireEngine::receiveFromRun(const FireUpdate &update)
{
    if (!m_thread)
        return;
    m_report.apply(update);
    Q_EMIT updated();
}

} // namespace sluice::model
