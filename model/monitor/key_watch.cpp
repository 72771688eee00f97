#include "model/monitor/key_watch.h"

#include "model/limiter/bucket_key.h"
#include "model/limiter/bucket_state.h"
#include "model/limiter/limiter_library.h"
#include "model/policy/policy.h"

#include <QDateTime>

#include <algorithm>

namespace sluice::model {

using redis::RedisClient;
using redis::RedisReply;
using redis::RespValue;

QString WatchedKey::label() const
{
    if (layout)
        return QStringLiteral("%1 \u00b7 %2").arg(seedLayoutName(*layout), QString::fromUtf8(subject));
    return QStringLiteral("%1 \u00b7 %2").arg(policy, QString::fromUtf8(subject));
}

KeyWatch::KeyWatch(RedisClient *client, const QString &ns, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_ns(ns)
{
    m_timer.setTimerType(Qt::PreciseTimer);
    m_timer.setInterval(1000);
    connect(&m_timer, &QTimer::timeout, this, &KeyWatch::pollNow);
}

int KeyWatch::capacity() const
{
    return int(std::max<qint64>(2, m_retentionMs / m_timer.interval()));
}

int KeyWatch::addSubject(const QString &policy, const QByteArray &subject, Failure *failure)
{
    if (!isValidPolicyName(policy)) {
        *failure = Failure::invalid(tr("Choose a policy."));
        return -1;
    }
    if (!isValidSubject(subject)) {
        *failure = Failure::invalid(tr("A subject is not empty and has no { or }."));
        return -1;
    }
    WatchedKey key;
    key.policy = policy;
    key.subject = subject;
    key.key = bucketKey(m_ns, policy, subject);
    return add(std::move(key), failure);
}

int KeyWatch::addSeedKey(SeedLayout layout, const QByteArray &id, Failure *failure)
{
    if (id.isEmpty()) {
        *failure
            = Failure::invalid(tr("Name the key (for the Spring Cloud Gateway layout, the id between the braces)."));
        return -1;
    }
    WatchedKey key;
    key.layout = layout;
    key.subject = id;
    key.key = seedKeys(layout, id).first();
    key.algorithm = seedLayoutName(layout);
    return add(std::move(key), failure);
}

int KeyWatch::add(WatchedKey key, Failure *failure)
{
    const auto same = std::find_if(m_keys.cbegin(), m_keys.cend(), [&](const WatchedKey &watched) {
        return watched.key == key.key && watched.policy == key.policy;
    });
    if (same != m_keys.cend()) {
        *failure = Failure::invalid(tr("%1 is already watched.").arg(key.label()));
        return -1;
    }
    if (m_keys.size() >= kMaxKeys) {
        *failure = Failure::invalid(tr("At most %1 keys can be watched at once; remove one first.").arg(kMaxKeys));
        return -1;
    }
    key.id = m_nextId++;
    key.samples = BoundedRing<KeySample>(capacity());
    m_keys.append(std::move(key));
    Q_EMIT keysChanged();
    if (m_timer.isActive())
        pollNow();
    return m_keys.last().id;
}

void KeyWatch::remove(int id)
{
    m_keys.erase(std::remove_if(m_keys.begin(), m_keys.end(), [id](const WatchedKey &key) { return key.id == id; }),
                 m_keys.end());
    Q_EMIT keysChanged();
}

const WatchedKey *KeyWatch::key(int id) const
{
    for (const WatchedKey &key : m_keys)
        if (key.id == id)
            return &key;
    return nullptr;
}

WatchedKey *KeyWatch::find(int id)
{
    return const_cast<WatchedKey *>(std::as_const(*this).key(id));
}

void KeyWatch::setIntervalMs(int intervalMs)
{
    const int interval = std::clamp(intervalMs, 250, 10000);
    if (interval == m_timer.interval())
        return;
    m_timer.setInterval(interval);
    resizeRings();
}

void KeyWatch::setRetentionMs(qint64 retentionMs)
{
    if (retentionMs == m_retentionMs)
        return;
    m_retentionMs = retentionMs;
    resizeRings();
}

void KeyWatch::resizeRings()
{
    // Rings are rebuilt with the newest samples that fit.
    for (WatchedKey &key : m_keys) {
        BoundedRing<KeySample> rebuilt(capacity());
        for (int i = std::max(0, key.samples.size() - capacity()); i < key.samples.size(); ++i)
            rebuilt.append(key.samples.at(i));
        key.samples = std::move(rebuilt);
    }
}

void KeyWatch::start()
{
    m_timer.start();
    pollNow();
}

void KeyWatch::stop()
{
    m_timer.stop();
}

void KeyWatch::pollNow()
{
    if (m_outstanding || m_keys.isEmpty() || m_client->state() != RedisClient::State::Ready)
        return;
    m_outstanding = true;
    auto outstanding = std::make_shared<int>(int(m_keys.size()));
    for (const WatchedKey &key : std::as_const(m_keys))
        read(key, outstanding);
}

void KeyWatch::finishOne(const std::shared_ptr<int> &outstanding)
{
    if (--*outstanding > 0)
        return;
    m_outstanding = false;
    ++m_rounds;
    Q_EMIT roundDone();
}

void KeyWatch::read(const WatchedKey &key, const std::shared_ptr<int> &outstanding)
{
    const int id = key.id;
    if (!key.layout) {
        m_client->sendForKey(key.key, BucketState::inspectCommand(key.key, key.policy), this,
                             [this, id, outstanding](const RedisReply &reply) {
                                 takeInspect(id, reply);
                                 finishOne(outstanding);
                             });
        return;
    }
    // Seed layouts: the raw values. The ms and interval buckets' two keys may live on different primaries.
    const QByteArrayList keys = seedKeys(*key.layout, key.subject);
    QVector<QByteArrayList> commands;
    switch (*key.layout) {
    case SeedLayout::ScgTokenBucket:
        commands = {{"MGET", keys.at(0), keys.at(1)}}; // one hash tag, one slot
        break;
    case SeedLayout::FixedWindowCounter:
        commands = {{"GET", keys.at(0)}, {"PTTL", keys.at(0)}};
        break;
    case SeedLayout::MsTokenBucket:
    case SeedLayout::IntervalTokenBucket:
        commands = {{"GET", keys.at(0)}, {"GET", keys.at(1)}};
        break;
    }
    auto replies = std::make_shared<QVector<RedisReply>>(commands.size());
    auto left = std::make_shared<int>(int(commands.size()));
    for (int i = 0; i < commands.size(); ++i)
        m_client->sendForKey(commands.at(i).at(1), commands.at(i), this,
                             [this, id, outstanding, replies, left, i](const RedisReply &reply) {
                                 (*replies)[i] = reply;
                                 if (--*left > 0)
                                     return;
                                 takeSeed(id, *replies, QDateTime::currentMSecsSinceEpoch());
                                 finishOne(outstanding);
                             });
}

void KeyWatch::takeInspect(int id, const RedisReply &reply)
{
    WatchedKey *key = find(id);
    if (!key)
        return; // removed meanwhile
    QString problem;
    const std::optional<BucketState> state = BucketState::fromReply(reply, &problem);
    if (!state) {
        key->problem = problem;
        Q_EMIT sampled(id);
        return;
    }
    key->algorithm = state->algorithm;
    KeySample sample;
    sample.timeMs = state->nowMs;
    sample.level = double(state->available);
    sample.capacity = double(state->capacity);
    sample.resetAfterMs = state->resetAfterMs;
    sample.allowed = state->allowed;
    sample.rejected = state->rejected;
    if (!key->samples.isEmpty()) {
        const KeySample &previous = key->samples.last();
        const qint64 elapsed = sample.timeMs - previous.timeMs;
        // A bucket that expired or was reset counts from zero again.
        const quint64 rejected
            = sample.rejected >= previous.rejected ? sample.rejected - previous.rejected : sample.rejected;
        sample.rejectedPerSecond = elapsed > 0 ? rejected * 1000.0 / elapsed : 0;
    }
    key->problem.clear();
    key->samples.append(sample);
    Q_EMIT sampled(id);
}

void KeyWatch::takeSeed(int id, const QVector<RedisReply> &replies, qint64 timeMs)
{
    WatchedKey *key = find(id);
    if (!key)
        return;
    for (const RedisReply &reply : replies) {
        if (!reply.ok()) {
            key->problem = reply.errorText();
            Q_EMIT sampled(id);
            return;
        }
    }
    const RespValue &first = replies.first().value;
    const RespValue &stored = first.isArray() ? first.elements.value(0) : first;
    KeySample sample;
    sample.timeMs = timeMs;
    bool numeric = true;
    sample.level = stored.isNil() ? 0 : stored.bytes.toDouble(&numeric);
    if (*key->layout == SeedLayout::FixedWindowCounter && replies.size() > 1 && replies.at(1).value.integer >= 0)
        sample.resetAfterMs = replies.at(1).value.integer; // the counter's window ends with its key
    key->problem = !numeric ? tr("%1 does not hold a number").arg(QString::fromUtf8(key->key))
                   : stored.isNil() ? tr("%1 does not exist (idle, or never used)").arg(QString::fromUtf8(key->key))
                                    : QString();
    if (key->problem.isEmpty())
        key->samples.append(sample);
    Q_EMIT sampled(id);
}

} // namespace sluice::model
