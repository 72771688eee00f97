// SPDX-License-Identifier: GPL-3.0-or-later
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

QString WatchedKey::label() const
{
    if (layout)
        return QStringLiteral("%1 \u00b7 %2").arg(seedLayoutName(*layout), QString::fromUtf8(subject));
    return QStringLiteral("%1 \u00b7 %2").arg(policy, QString::fromUtf8(subject));
}

KeyWatch::KeyWatch(RedisClient *client, const LibraryOwner &owner, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_owner(owner)
{
    m_timer.setTimerType(Qt::PreciseTimer);
    m_timer.setInterval(1000);
    connect(&m_timer, &QTimer::timeout, this, &KeyWatch::pollNow);
}

int KeyWatch::capacity() const
{
    return int(std::max<qint64>(2, m_retentionMs / m_timer.interval()));
}

std::optional<Failure> KeyWatch::addSubject(const QString &policy, const QByteArray &subject)
{
    if (!isValidPolicyName(policy))
        return Failure::invalid(tr("Choose a policy."));
    if (!isValidSubject(subject))
        return Failure::invalid(tr("A subject is 1 to %1 bytes and has no { or }.").arg(maxSubjectBytes));
    WatchedKey key;
    key.policy = policy;
    key.subject = subject;
    key.key = bucketKey(m_owner.ns, policy, subject);
    return add(std::move(key));
}

std::optional<Failure> KeyWatch::addSeedKey(SeedLayout layout, const QByteArray &id,
                                            const std::optional<SeedParameters> &parameters)
{
    if (id.isEmpty())
        return Failure::invalid(tr("Name the key (for the Spring Cloud Gateway layout, the id between the braces)."));
    WatchedKey key;
    key.layout = layout;
    key.parameters = parameters;
    key.subject = id;
    key.key = seedKeys(layout, id).first();
    key.algorithm = seedLayoutName(layout);
    return add(std::move(key));
}

std::optional<Failure> KeyWatch::add(WatchedKey key)
{
    const auto same = std::find_if(m_keys.cbegin(), m_keys.cend(), [&](const WatchedKey &watched) {
        return watched.key == key.key && watched.policy == key.policy;
    });
    if (same != m_keys.cend())
        return Failure::invalid(tr("%1 is already watched.").arg(key.label()));
    if (m_keys.size() >= kMaxKeys)
        return Failure::invalid(tr("At most %1 keys can be watched at once; remove one first.").arg(kMaxKeys));
    key.id = m_nextId++;
    key.samples = BoundedRing<KeySample>(capacity());
    m_keys.append(std::move(key));
    Q_EMIT keysChanged();
    if (m_timer.isActive())
        pollNow();
    return std::nullopt;
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
    if (m_outstanding || m_keys.isEmpty())
        return;
    if (m_client->state() != RedisClient::State::Ready) {
        // A server shut down sends no failed reply: each key is marked unread each tick, as a frozen one's
        // timeout would, so its last figures are shown as from before, not as the present.
        for (const WatchedKey &key : std::as_const(m_keys)) {
            if (key.layout) {
                SeedBucketRead unread;
                unread.outcome = SeedBucketRead::Outcome::Failed;
                unread.problem = tr("not connected to the server");
                takeSeed(key.id, unread, QDateTime::currentMSecsSinceEpoch());
            } else {
                RedisReply unread;
                unread.failure = redis::RedisReply::Failure::NotConnected;
                unread.failureMessage = tr("not connected to the server");
                takeInspect(key.id, unread);
            }
        }
        return;
    }
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
        m_client->sendForKey(key.key, BucketState::inspectCommand(m_owner, key.key, key.policy), this,
                             [this, id, outstanding](const RedisReply &reply) {
            takeInspect(id, reply);
            finishOne(outstanding);
        });
        return;
    }
    readSeedBucket(m_client, *key.layout, key.subject, this, [this, id, outstanding](const SeedBucketRead &read) {
        takeSeed(id, read, QDateTime::currentMSecsSinceEpoch());
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

void KeyWatch::takeSeed(int id, const SeedBucketRead &read, qint64 timeMs)
{
    WatchedKey *key = find(id);
    if (!key)
        return;
    key->problem = read.problem;
    if (read.outcome == SeedBucketRead::Outcome::Read) {
        const SeedBucketState state = seedBucketAt(*key->layout, read.reading, timeMs, key->parameters);
        KeySample sample;
        sample.timeMs = timeMs;
        sample.level = state.level;
        sample.capacity = state.capacity;
        sample.resetAfterMs = state.fullInMs;
        key->samples.append(sample);
    }
    Q_EMIT sampled(id);
}

} // namespace sluice::model
