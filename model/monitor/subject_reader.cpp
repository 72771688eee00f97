// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/monitor/subject_reader.h"

#include "model/format/units.h"
#include "model/limiter/bucket_key.h"
#include "model/limiter/library_problem.h"

#include <QCoreApplication>
#include <QDateTime>

#include <memory>

namespace sluice::model {

using redis::RedisReply;

namespace {

// `[allowed, remaining, retry_after_ms, ...]`, or nothing when the reply has another shape.
std::optional<PeekedDecision> decisionFrom(const RedisReply &reply, QString *problem)
{
    if (!reply.ok()) {
        *problem = libraryCallProblem(reply.errorText());
        return std::nullopt;
    }
    const QVector<redis::RespValue> &items = reply.value.elements;
    if (!reply.value.isArray() || items.size() < 3 || !items[0].isInteger() || !items[1].isInteger()
        || !items[2].isInteger()) {
        *problem = QCoreApplication::translate("sluice::model", "unexpected reply to sluice_peek");
        return std::nullopt;
    }
    return PeekedDecision{items[0].integer == 1, items[1].integer, items[2].integer};
}

} // namespace

bool SubjectBucket::wouldReject() const
{
    if (!decision || !state)
        return false;
    // The library lets every call through a shadow policy: what it would do is the bucket's to say.
    if (shadow)
        return state->listed == QLatin1String("deny") || state->available < 1;
    return !decision->admitted;
}

QString SubjectBucket::decisionText() const
{
    if (!decision || !state)
        return {};
    if (shadow)
        return wouldReject() ? QCoreApplication::translate("sluice::model", "would reject (shadow)")
                             : QCoreApplication::translate("sluice::model", "admitted (shadow)");
    if (decision->admitted) {
        if (state->listed == QLatin1String("allow"))
            return QCoreApplication::translate("sluice::model", "admitted (allow list)");
        return QCoreApplication::translate("sluice::model", "admitted (%1 left)").arg(formatCount(decision->remaining));
    }
    if (state->listed == QLatin1String("deny"))
        return QCoreApplication::translate("sluice::model", "rejected: on the deny list");
    if (decision->retryAfterMs == -2)
        return QCoreApplication::translate("sluice::model", "rejected: can never pass");
    if (state->blockedMs > 0)
        return QCoreApplication::translate("sluice::model", "rejected: blocked for %1")
            .arg(formatWait(decision->retryAfterMs));
    return QCoreApplication::translate("sluice::model", "rejected: wait %1").arg(formatWait(decision->retryAfterMs));
}

SubjectReader::SubjectReader(redis::RedisClient *client, const LibraryOwner &owner, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_owner(owner)
{
    m_timer.setInterval(1000);
    connect(&m_timer, &QTimer::timeout, this, &SubjectReader::pollNow);
}

std::optional<Failure> SubjectReader::setSubject(const QByteArray &subject)
{
    const bool valid = isValidSubject(subject);
    // A refused subject shows nothing: rows of the one before would be taken for its.
    m_subject = valid ? subject : QByteArray();
    ++m_generation;
    m_outstanding = false;
    for (SubjectBucket &bucket : m_buckets)
        bucket = SubjectBucket{bucket.policy, bucket.shadow, {}, {}, 0, {}};
    Q_EMIT bucketsChanged();
    if (!valid)
        return Failure::invalid(QCoreApplication::translate(
                                    "sluice::model", "A subject is not empty, holds no brace and has at most %1 bytes.")
                                    .arg(maxSubjectBytes));
    pollNow();
    return std::nullopt;
}

void SubjectReader::setPolicies(const QStringList &policies)
{
    QVector<SubjectBucket> kept;
    bool changed = policies.size() != m_buckets.size();
    for (const QString &policy : policies) {
        if (SubjectBucket *bucket = find(policy)) {
            kept << *bucket;
        } else {
            kept << SubjectBucket{policy, m_shadow.contains(policy), {}, {}, 0, {}};
            changed = true;
        }
    }
    if (!changed)
        return;
    std::sort(kept.begin(), kept.end(),
              [](const SubjectBucket &a, const SubjectBucket &b) { return a.policy < b.policy; });
    m_buckets = kept;
    Q_EMIT bucketsChanged();
}

void SubjectReader::setShadowPolicies(const QSet<QString> &shadow)
{
    m_shadow = shadow;
    for (SubjectBucket &bucket : m_buckets)
        bucket.shadow = shadow.contains(bucket.policy);
}

void SubjectReader::start()
{
    m_timer.start();
    pollNow();
}

void SubjectReader::stop()
{
    m_timer.stop();
}

void SubjectReader::pollNow()
{
    if (m_outstanding || m_subject.isEmpty() || m_buckets.isEmpty())
        return;
    m_outstanding = true;
    const int generation = m_generation;
    auto outstanding = std::make_shared<int>(int(m_buckets.size()));
    for (const SubjectBucket &bucket : m_buckets) {
        const QString policy = bucket.policy;
        const QByteArray key = bucketKey(m_owner.ns, policy, m_subject);
        // The state and the decision are sent back to back on one connection, so they describe one moment.
        auto inspected = std::make_shared<RedisReply>();
        m_client->sendForKey(key, BucketState::inspectCommand(m_owner, key, policy), this,
                             [inspected](const RedisReply &reply) { *inspected = reply; });
        m_client->sendForKey(key, {"FCALL_RO", m_owner.function("peek"), "1", key, policy.toUtf8()}, this,
                             [this, policy, inspected, outstanding, generation](const RedisReply &reply) {
            if (generation != m_generation)
                return;
            take(policy, *inspected, reply);
            if (--*outstanding > 0)
                return;
            m_outstanding = false;
            ++m_rounds;
            Q_EMIT roundDone();
        });
    }
}

void SubjectReader::take(const QString &policy, const RedisReply &inspected, const RedisReply &peeked)
{
    SubjectBucket *bucket = find(policy);
    if (!bucket)
        return; // no longer in the library
    QString problem;
    std::optional<BucketState> state = BucketState::fromReply(inspected, &problem);
    std::optional<PeekedDecision> decision = state ? decisionFrom(peeked, &problem) : std::nullopt;
    if (!state || !decision) {
        bucket->problem = problem; // the last good reading stays, marked stale by the view
        return;
    }
    bucket->state = state;
    bucket->decision = decision;
    bucket->problem.clear();
    bucket->readAtMs = QDateTime::currentMSecsSinceEpoch();
}

SubjectBucket *SubjectReader::find(const QString &policy)
{
    for (SubjectBucket &bucket : m_buckets)
        if (bucket.policy == policy)
            return &bucket;
    return nullptr;
}

} // namespace sluice::model
