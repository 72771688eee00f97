// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/monitor/key_scanner.h"

#include "model/limiter/bucket_key.h"
#include "model/limiter/limiter_library.h"
#include "model/policy/policy.h"

#include <QCoreApplication>

namespace sluice::model {

using redis::RedisReply;
using redis::RespValue;

namespace {

// This file's strings, under the context a translator sees them in.
struct Text {
    Q_DECLARE_TR_FUNCTIONS(sluice::model::KeyScanner)
};

bool isGlobSpecial(char c)
{
    return c == '*' || c == '?' || c == '[' || c == ']' || c == '\\';
}

QByteArray escapeGlob(const QByteArray &text)
{
    QByteArray escaped;
    for (const char c : text) {
        if (isGlobSpecial(c))
            escaped += '\\';
        escaped += c;
    }
    return escaped;
}

constexpr int maxPatternBytes = 256;

// Why a glob cannot stand inside a longer pattern, or nothing when it can.
std::optional<QString> globProblem(const QByteArray &glob, const QString &what)
{
    if (glob.size() > maxPatternBytes)
        return Text::tr("A %1 pattern is at most %2 bytes.").arg(what).arg(maxPatternBytes);
    qsizetype trailingEscapes = 0;
    while (trailingEscapes < glob.size() && glob.at(glob.size() - 1 - trailingEscapes) == '\\')
        ++trailingEscapes;
    if (trailingEscapes % 2 == 1)
        return Text::tr("A %1 pattern cannot end in a lone \\ (it escapes the next character).").arg(what);
    return std::nullopt;
}

} // namespace

std::optional<QByteArray> BucketFilter::matchPattern(const QString &ns, QString *problem) const
{
    if (!policy.isEmpty() && !isValidPolicyName(policy)) {
        *problem = Text::tr("\u201c%1\u201d is not a policy name.").arg(policy);
        return std::nullopt;
    }
    const QByteArray subject = subjectPattern.toUtf8();
    if (subject.contains('{') || subject.contains('}')) {
        *problem = Text::tr("A subject pattern has no { or }: subjects never contain them.");
        return std::nullopt;
    }
    if (const auto unusable = globProblem(subject, Text::tr("subject"))) {
        *problem = *unusable;
        return std::nullopt;
    }
    return escapeGlob(ns.toUtf8()) + ':' + (policy.isEmpty() ? QByteArray("*") : escapeGlob(policy.toUtf8())) + ":{"
        + (subject.isEmpty() ? QByteArray("*") : subject) + '}';
}

KeyScanner::KeyScanner(redis::RedisClient *client, const QString &ns, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_ns(ns)
{
}

std::optional<Failure> KeyScanner::start(const BucketFilter &filter)
{
    QString problem;
    const std::optional<QByteArray> match = filter.matchPattern(m_ns, &problem);
    if (!match)
        return Failure::invalid(problem);
    const QByteArray subject = filter.subjectPattern.toUtf8();
    const bool wildcards = std::any_of(subject.cbegin(), subject.cend(), isGlobSpecial);
    const QByteArray exactKey = filter.policy.isEmpty() || subject.isEmpty() || wildcards
        ? QByteArray()
        : bucketKey(m_ns, filter.policy, subject);
    const FoundBucket exact{exactKey, filter.policy, subject, m_client->primaryForKey(exactKey), {}};
    // A subject named exactly may be a spread policy's (the filter's, or any when it names none): its buckets are
    // `<subject>#<i>`, so the scan matches the subject's prefix and keeps that subject alone.
    const bool spread = !wildcards && !subject.isEmpty()
        && (filter.policy.isEmpty() ? !m_spread.isEmpty() : m_spread.contains(filter.policy));
    if (spread) {
        if (auto notStarted = startOn(m_client->primaries()))
            return notStarted;
        m_match = match->chopped(1) + "*}";
        m_layout.reset();
        m_exactKey.clear();
        m_onlySubject = subject; // not another subject that starts with it
        return std::nullopt;
    }
    m_onlySubject.clear();
    if (auto notStarted = startOn(exactKey.isEmpty() ? m_client->primaries() : QStringList{exact.node}))
        return notStarted;
    m_match = *match;
    m_layout.reset();
    m_exactKey = exactKey;
    m_exact = exact;
    return std::nullopt;
}

std::optional<Failure> KeyScanner::startSeed(SeedLayout layout, const QString &idPattern)
{
    const QByteArray id = idPattern.toUtf8();
    if (const auto unusable = globProblem(id, Text::tr("key")))
        return Failure::invalid(*unusable);
    if (auto notStarted = startOn(m_client->primaries()))
        return notStarted;
    m_match = seedScanPattern(layout, id);
    m_layout = layout;
    m_exactKey.clear();
    m_onlySubject.clear();
    return std::nullopt;
}

void KeyScanner::stop()
{
    ++m_generation;
    m_cursors.clear();
    m_seen.clear();
    m_wanted = 0;
    m_outstanding = 0;
    m_steps = 0;
}

std::optional<Failure> KeyScanner::startOn(const QStringList &nodes)
{
    if (m_client->primaries().isEmpty() || m_client->state() != redis::RedisClient::State::Ready)
        return Failure{Failure::Kind::Unreachable, Text::tr("Not connected.")};
    stop();
    for (const QString &node : nodes) {
        Cursor cursor;
        cursor.node = node;
        m_cursors.append(cursor);
    }
    return std::nullopt;
}

bool KeyScanner::atEnd() const
{
    return std::all_of(m_cursors.cbegin(), m_cursors.cend(), [](const Cursor &cursor) { return cursor.done; });
}

QStringList KeyScanner::problems() const
{
    QStringList problems;
    for (const Cursor &cursor : m_cursors)
        if (!cursor.problem.isEmpty())
            problems << QStringLiteral("%1: %2").arg(cursor.node, cursor.problem);
    return problems;
}

void KeyScanner::fetch(int wanted)
{
    if (isFetching() || atEnd())
        return;
    m_wanted = wanted;
    if (isExactLookup())
        return lookUp();
    // Every primary scans at once: a filter that matches on one primary only is not held up by the others.
    for (int i = 0; i < m_cursors.size(); ++i) {
        m_cursors[i].stepsThisFetch = 0;
        if (!m_cursors.at(i).done)
            step(i);
    }
}

void KeyScanner::step(int index)
{
    ++m_outstanding;
    const int generation = m_generation;
    QByteArrayList scan{"SCAN",  m_cursors.at(index).position,  "MATCH", m_match,
                        "COUNT", QByteArray::number(kStepCount)};
    if (m_layout) // every seed layout keeps strings
        scan += {"TYPE", "string"};
    m_client->sendToNode(m_cursors.at(index).node, scan, this, [this, index, generation](const RedisReply &reply) {
        if (generation == m_generation)
            takeStep(index, reply);
    });
}

void KeyScanner::lookUp()
{
    ++m_outstanding;
    const int generation = m_generation;
    m_client->sendForKey(m_exactKey, {"EXISTS", m_exactKey}, this, [this, generation](const RedisReply &reply) {
        if (generation != m_generation)
            return;
        --m_outstanding;
        Cursor &cursor = m_cursors.first();
        cursor.done = true;
        if (!reply.ok() || !reply.value.isInteger())
            cursor.problem = reply.ok() ? Text::tr("unexpected reply to EXISTS") : reply.errorText();
        else if (reply.value.integer == 1)
            Q_EMIT found({m_exact});
        Q_EMIT fetchDone();
    });
}

bool KeyScanner::decode(FoundBucket *bucket) const
{
    if (!m_layout)
        return splitBucketKey(m_ns, bucket->key, &bucket->policy, &bucket->subject);
    const std::optional<QByteArray> id = seedIdOfKey(*m_layout, bucket->key);
    if (id)
        bucket->subject = *id;
    return id.has_value();
}

FoundBucket KeyScanner::asSpreadSubject(FoundBucket bucket) const
{
    const int spread = m_layout ? 0 : m_spread.value(bucket.policy);
    QByteArray subject;
    int index = 0;
    if (spread == 0 || !splitSpreadSubject(bucket.subject, &subject, &index) || index >= spread)
        return bucket;
    bucket.subject = subject;
    bucket.key = bucketKey(m_ns, bucket.policy, subject);
    bucket.node.clear();
    for (int i = 0; i < spread; ++i)
        bucket.spreadKeys << bucketKey(m_ns, bucket.policy, spreadSubject(subject, i));
    return bucket;
}

void KeyScanner::takeStep(int index, const RedisReply &reply)
{
    --m_outstanding;
    ++m_steps;
    Cursor &cursor = m_cursors[index];
    ++cursor.stepsThisFetch;
    const bool wellFormed = reply.ok() && reply.value.isArray() && reply.value.elements.size() == 2
        && reply.value.elements.at(1).isArray();
    if (!wellFormed) {
        cursor.done = true;
        cursor.problem = reply.ok() ? Text::tr("unexpected reply to SCAN") : reply.errorText();
    } else {
        cursor.position = reply.value.elements.at(0).bytes;
        cursor.done = cursor.position == "0";
        QVector<FoundBucket> buckets;
        for (const RespValue &element : reply.value.elements.at(1).elements) {
            FoundBucket bucket{element.bytes, {}, {}, cursor.node, {}};
            if (!decode(&bucket))
                continue;
            bucket = asSpreadSubject(bucket);
            if (!m_seen.contains(bucket.key) && (m_onlySubject.isEmpty() || bucket.subject == m_onlySubject)) {
                m_seen.insert(bucket.key);
                buckets.append(bucket);
            }
        }
        m_wanted -= int(buckets.size());
        if (!buckets.isEmpty())
            Q_EMIT found(buckets);
    }
    if (!cursor.done && m_wanted > 0 && cursor.stepsThisFetch < kMaxStepsPerFetch)
        step(index);
    else if (m_outstanding == 0)
        Q_EMIT fetchDone();
}

} // namespace sluice::model
