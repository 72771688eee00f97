// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/fire/fire_target.h"

#include "model/limiter/bucket_key.h"
#include "model/limiter/limiter_library.h"
#include "model/policy/namespace_lists.h"
#include "model/policy/policy_summary.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QStringList>

namespace sluice::model {

namespace {

// This file's strings, under the context a translator sees them in.
struct Text {
    Q_DECLARE_TR_FUNCTIONS(sluice::model::FireTarget)
};

qint64 capacity(const Policy &policy)
{
    return algorithmUsesBurst(policy.algorithm) ? policy.effectiveBurst() : policy.limit;
}

} // namespace

FireTarget FireTarget::forPolicy(const Policy &policy)
{
    FireTarget target;
    target.policy = policy;
    return target;
}

FireTarget FireTarget::forSeedScript(SeedLayout layout, qint64 limit, qint64 windowMs, qint64 burst)
{
    FireTarget target;
    target.kind = Kind::SeedScript;
    target.layout = layout;
    target.policy.name = seedLayoutName(layout);
    target.policy.algorithm
        = layout == SeedLayout::FixedWindowCounter ? Algorithm::FixedWindow : Algorithm::TokenBucket;
    target.policy.limit = limit;
    target.policy.windowMs = windowMs;
    target.policy.burst = burst;
    return target;
}

bool FireTarget::looksLikeSeedSpec(const QString &spec)
{
    const QString layout = spec.section(QLatin1Char(':'), 0, 0);
    for (SeedLayout candidate : seedLayouts)
        if (layout == seedLayoutName(candidate))
            return true;
    return false;
}

std::optional<FireTarget> FireTarget::fromSeedSpec(const QString &spec, QString *problem)
{
    const QString name = spec.section(QLatin1Char(':'), 0, 0);
    QStringList names;
    for (SeedLayout layout : seedLayouts) {
        names << seedLayoutName(layout);
        if (name != seedLayoutName(layout))
            continue;
        const auto parameters = parseSeedParameters(layout, spec.section(QLatin1Char(':'), 1));
        if (!parameters) {
            *problem = Text::tr("a seed script is named as %1:%2 with whole numbers from 1 (got \"%3\")")
                           .arg(name, seedParameterForm(layout), spec);
            return std::nullopt;
        }
        if (layout == SeedLayout::ScgTokenBucket && parameters->windowMs != 1000) {
            // The script keeps a fractional level as a floating-point number, rounded to 14 digits each call,
            // which the reference model (whole tokens, exact) cannot follow call for call.
            *problem = Text::tr("test fire takes the gateway's rate as a whole number of tokens a second (got "
                                "\"%1\"): its script keeps fractional tokens as rounded floating-point numbers, "
                                "which the model cannot check exactly. Spring Cloud Gateway's replenishRate is a "
                                "whole number too; for a token every 2 s, fire scg:1:CAPACITY with --cost 2")
                           .arg(spec);
            return std::nullopt;
        }
        return forSeedScript(layout, parameters->limit, parameters->windowMs, parameters->burst);
    }
    *problem = Text::tr("\"%1\" is not a seed script (%2)").arg(spec, names.join(QStringLiteral(", ")));
    return std::nullopt;
}

QString FireTarget::label() const
{
    switch (kind) {
    case Kind::Policy:
        return QStringLiteral("%1 (%2 %3/%4%5)")
            .arg(policy.name, algorithmName(policy.algorithm))
            .arg(policy.limit)
            .arg(windowInWords(policy, true),
                 algorithmUsesBurst(policy.algorithm) && policy.effectiveBurst() != policy.limit
                     ? Text::tr(", burst %1").arg(policy.effectiveBurst())
                     : QString());
    case Kind::SeedScript:
        if (layout == SeedLayout::FixedWindowCounter)
            return Text::tr("%1 (%2 per %3)")
                .arg(seedLayoutName(layout))
                .arg(policy.limit)
                .arg(durationText(policy.windowMs, true));
        const QString clocks = clockSkewMs > 0 ? Text::tr(", clocks %1 ms apart").arg(clockSkewMs) : QString();
        if (layout == SeedLayout::IntervalTokenBucket)
            return Text::tr("%1 (%2 every %3, capacity %4%5)")
                .arg(seedLayoutName(layout))
                .arg(policy.limit)
                .arg(durationText(policy.windowMs, true))
                .arg(policy.burst)
                .arg(clocks);
        return Text::tr("%1 (%2/s, capacity %3%4)")
            .arg(seedLayoutName(layout))
            .arg(policy.limit)
            .arg(policy.burst)
            .arg(clocks);
    }
    return {};
}

QString FireTarget::problem(qint64 cost) const
{
    if (kind == Kind::Policy) {
        const QVector<PolicyError> errors = validatePolicy(policy);
        if (!errors.isEmpty())
            return errors.first().toString();
        if (cost > capacity(policy))
            return Text::tr("cost %1 exceeds %2, the most policy \"%3\" admits at once")
                .arg(cost)
                .arg(capacity(policy))
                .arg(policy.name);
        return {};
    }
    if (layout == SeedLayout::FixedWindowCounter && cost != 1)
        return Text::tr("the INCR counter counts calls, not costs: cost must be 1");
    if (layout != SeedLayout::FixedWindowCounter && cost > policy.burst)
        return Text::tr("cost %1 exceeds the capacity %2").arg(cost).arg(policy.burst);
    if (clockSkewMs < 0 || clockSkewMs > 3'600'000)
        return Text::tr("clock skew must be from 0 to 3600000 ms");
    if (clockSkewMs > 0 && !seedLayoutReadsCallerClock(layout))
        return Text::tr(
                   "%1 reads the server's clock: clock skew applies to the buckets that read their callers' clocks "
                   "(ms_token_bucket, interval_token_bucket)")
            .arg(seedLayoutName(layout));
    return {};
}

ReferenceLimiter FireTarget::reference(const QByteArray &subject, bool realKeys) const
{
    if (kind == Kind::Policy && realKeys)
        return ReferenceLimiter(withNamespaceLists(policy, namespaceLists), subject);
    if (kind == Kind::Policy) {
        Policy limitsAlone = policy;
        limitsAlone.overrides.clear();
        limitsAlone.blockMs = 0;
        return ReferenceLimiter(limitsAlone);
    }
    return ReferenceLimiter(layout, policy.limit, policy.windowMs, policy.burst);
}

QByteArray fireKeyPrefix(const QString &ns, const QByteArray &runId)
{
    return ns.toUtf8() + "-fire:" + runId + ':';
}

FireCommands::FireCommands(const FireTarget &target, int index, const LibraryOwner &owner, const QByteArray &runId,
                           bool realKeys, qint64 cost, bool reserving)
    : m_target(target)
    , m_owner(owner)
{
    // Each target its own keys, so two targets side by side never share a bucket.
    if (!realKeys)
        m_keyPrefix = fireKeyPrefix(owner.ns, runId) + QByteArray::number(index + 1) + ':';
    const Policy &policy = target.policy;
    const QByteArray costText = QByteArray::number(cost);
    if (target.kind == FireTarget::Kind::Policy) {
        m_head = {"FCALL", owner.function(reserving ? "reserve" : realKeys ? "acquire" : "check"), "1"};
        if (realKeys) {
            m_tail = {policy.name.toUtf8(), costText};
            return;
        }
        m_tail = {algorithmName(policy.algorithm).toUtf8(), QByteArray::number(policy.limit),
                  QByteArray::number(policy.windowMs), QByteArray::number(policy.effectiveBurst()), costText};
        // The window start only when it is not the default, so that a library older than window
        // starts still fires every other policy.
        if (policy.windowStart == WindowStart::FirstCall)
            m_tail << windowStartName(policy.windowStart).toUtf8();
        return;
    }
    m_script = seedScript(target.layout);
    const QByteArray sha = QCryptographicHash::hash(m_script, QCryptographicHash::Sha1).toHex();
    m_head = {"EVALSHA", sha, QByteArray::number(seedKeys(target.layout, "id").size())};
    const QByteArray rate = QByteArray::number(policy.limit), capacity = QByteArray::number(policy.burst);
    const QByteArray seconds = QByteArray::number(policy.windowMs / 1000);
    switch (target.layout) {
    case SeedLayout::ScgTokenBucket: // the server's clock, as Sluice's own limiter
        m_tail = {rate, capacity, {}, costText};
        break;
    case SeedLayout::FixedWindowCounter: m_tail = {rate, seconds}; break;
    case SeedLayout::MsTokenBucket: // the caller's clock (ms) last
        m_tail = {rate, capacity, costText, {}};
        m_callerClockAt = 3;
        break;
    case SeedLayout::IntervalTokenBucket: // the caller's clock in seconds, before the cost
        m_tail = {capacity, rate, seconds, {}, costText};
        m_callerClockAt = 3;
        m_callerClockUnitMs = 1000;
        break;
    }
}

QByteArrayList FireCommands::keys(const QByteArray &subject) const
{
    if (m_target.kind == FireTarget::Kind::Policy) {
        if (m_keyPrefix.isEmpty())
            return {bucketKey(m_owner.ns, m_target.policy.name, subject)};
        return {m_keyPrefix + m_target.policy.name.toUtf8() + ":{" + subject + '}'};
    }
    if (m_keyPrefix.isEmpty())
        return seedKeys(m_target.layout, subject);
    // In the test-fire key space the id of a bucket with a suffixed second key is a hash tag, so its two
    // keys share a slot (the gateway's layout has its own tag around the id).
    const QByteArray id = m_keyPrefix + subject;
    const bool suffixed
        = m_target.layout == SeedLayout::MsTokenBucket || m_target.layout == SeedLayout::IntervalTokenBucket;
    return seedKeys(m_target.layout, suffixed ? '{' + id + '}' : id);
}

QByteArrayList FireCommands::command(const QByteArray &subject, qint64 callerClockMs) const
{
    // Calls repeat subjects (one subject, a rotation): their keys are built once.
    if (subject != m_lastSubject) {
        m_lastSubject = subject;
        m_lastKeys = keys(subject);
    }
    QByteArrayList args;
    args.reserve(m_head.size() + m_lastKeys.size() + m_tail.size());
    args += m_head;
    args += m_lastKeys;
    args += m_tail;
    if (m_callerClockAt >= 0)
        args[args.size() - m_tail.size() + m_callerClockAt] = QByteArray::number(callerClockMs / m_callerClockUnitMs);
    return args;
}

QByteArrayList FireCommands::settleCommand(const QByteArray &subject, const QByteArray &id, qint64 actual) const
{
    QByteArrayList args{"FCALL", m_owner.function("settle"), "1"};
    args += keys(subject);
    args << m_target.policy.name.toUtf8() << id << QByteArray::number(actual);
    return args;
}

std::optional<QByteArray> FireCommands::reservationId(const redis::RespValue &reply)
{
    if (!reply.isArray() || reply.elements.size() < 7 || reply.elements.at(6).type != redis::RespValue::Type::String)
        return std::nullopt;
    return reply.elements.at(6).bytes;
}

std::optional<FireCommands::Settled> FireCommands::settled(const redis::RespValue &reply)
{
    if (!reply.isArray() || reply.elements.size() != 3)
        return std::nullopt;
    for (const redis::RespValue &element : reply.elements)
        if (!element.isInteger())
            return std::nullopt;
    return Settled{reply.elements.at(0).integer, reply.elements.at(1).integer};
}

QByteArray FireCommands::script() const
{
    return m_script;
}

std::optional<bool> FireCommands::admitted(const redis::RespValue &reply) const
{
    if (reply.isError())
        return std::nullopt;
    if (m_target.kind == FireTarget::Kind::Policy || m_target.layout == SeedLayout::ScgTokenBucket) {
        if (!reply.isArray() || reply.elements.isEmpty() || !reply.elements.first().isInteger())
            return std::nullopt;
        return reply.elements.first().integer == 1;
    }
    if (!reply.isInteger())
        return std::nullopt;
    if (m_target.layout == SeedLayout::FixedWindowCounter || m_target.layout == SeedLayout::IntervalTokenBucket)
        return reply.integer != -1;
    return reply.integer == 1;
}

} // namespace sluice::model
