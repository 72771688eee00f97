// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/limiter/seed_layouts.h"

#include "model/limiter/lua_source.h"
#include "model/policy/policy.h"

#include <QRegularExpression>
#include <QStringList>

namespace sluice::model {

namespace {

constexpr qint64 maxSeedWindowSeconds = policy_limits::maxWindowMs / 1000;
const QByteArray scgPrefix = "request_rate_limiter.{";
const QByteArray scgTokensSuffix = "}.tokens";

// The id between a key's prefix and suffix; nullopt when the key is not so named.
std::optional<QByteArray> between(const QByteArray &key, const QByteArray &prefix, const QByteArray &suffix)
{
    if (key.size() <= prefix.size() + suffix.size() || !key.startsWith(prefix) || !key.endsWith(suffix))
        return std::nullopt;
    return key.mid(prefix.size(), key.size() - prefix.size() - suffix.size());
}

} // namespace

QString seedLayoutName(SeedLayout layout)
{
    switch (layout) {
    case SeedLayout::ScgTokenBucket: return QStringLiteral("scg_token_bucket");
    case SeedLayout::FixedWindowCounter: return QStringLiteral("fixed_window_counter");
    case SeedLayout::MsTokenBucket: return QStringLiteral("ms_token_bucket");
    case SeedLayout::IntervalTokenBucket: return QStringLiteral("interval_token_bucket");
    }
    return {};
}

QByteArray seedScript(SeedLayout layout)
{
    return luaSource(QStringLiteral("compat_%1.lua").arg(seedLayoutName(layout)));
}

QByteArrayList seedKeys(SeedLayout layout, const QByteArray &id)
{
    switch (layout) {
    case SeedLayout::ScgTokenBucket: return {scgPrefix + id + scgTokensSuffix, scgPrefix + id + "}.timestamp"};
    case SeedLayout::FixedWindowCounter: return {id};
    case SeedLayout::MsTokenBucket: return {id, id + ":last"};
    case SeedLayout::IntervalTokenBucket: return {id, id + "_time"};
    }
    return {};
}

QByteArray seedScanPattern(SeedLayout layout, const QByteArray &idPattern)
{
    const QByteArray id = idPattern.isEmpty() ? QByteArray("*") : idPattern;
    // The naming key is the first for the gateway and the counter, the time key for the others.
    return layout == SeedLayout::ScgTokenBucket || layout == SeedLayout::FixedWindowCounter
        ? seedKeys(layout, id).at(0)
        : seedKeys(layout, id).at(1);
}

std::optional<QByteArray> seedIdOfKey(SeedLayout layout, const QByteArray &key)
{
    switch (layout) {
    case SeedLayout::ScgTokenBucket: return between(key, scgPrefix, scgTokensSuffix);
    case SeedLayout::FixedWindowCounter:
        if (key.startsWith(scgPrefix))
            return std::nullopt;
        return key;
    case SeedLayout::MsTokenBucket:
    case SeedLayout::IntervalTokenBucket: return between(key, {}, seedKeys(layout, {}).at(1));
    }
    return std::nullopt;
}

bool seedLayoutReadsCallerClock(SeedLayout layout)
{
    return layout == SeedLayout::MsTokenBucket || layout == SeedLayout::IntervalTokenBucket;
}

QString seedParameterForm(SeedLayout layout)
{
    switch (layout) {
    case SeedLayout::ScgTokenBucket:
    case SeedLayout::MsTokenBucket: return QStringLiteral("RATE_PER_SECOND:CAPACITY");
    case SeedLayout::FixedWindowCounter: return QStringLiteral("LIMIT:WINDOW_SECONDS");
    case SeedLayout::IntervalTokenBucket: return QStringLiteral("CAPACITY:ADD:INTERVAL_SECONDS");
    }
    return {};
}

std::optional<SeedParameters> seedParameters(SeedLayout layout, const QVector<qint64> &numbers)
{
    const auto within
        = [&](int index, qint64 largest) { return numbers.at(index) >= 1 && numbers.at(index) <= largest; };
    switch (layout) {
    case SeedLayout::ScgTokenBucket:
    case SeedLayout::MsTokenBucket:
        if (numbers.size() != 2 || !within(0, policy_limits::maxLimit) || !within(1, policy_limits::maxBurst))
            return std::nullopt;
        return SeedParameters{numbers.at(0), 1000, numbers.at(1)};
    case SeedLayout::FixedWindowCounter:
        if (numbers.size() != 2 || !within(0, policy_limits::maxLimit) || !within(1, maxSeedWindowSeconds))
            return std::nullopt;
        return SeedParameters{numbers.at(0), numbers.at(1) * 1000, numbers.at(0)};
    case SeedLayout::IntervalTokenBucket:
        if (numbers.size() != 3 || !within(0, policy_limits::maxBurst) || !within(1, policy_limits::maxLimit)
            || !within(2, maxSeedWindowSeconds))
            return std::nullopt;
        return SeedParameters{numbers.at(1), numbers.at(2) * 1000, numbers.at(0)};
    }
    return std::nullopt;
}

std::optional<SeedParameters> parseSeedParameters(SeedLayout layout, const QString &text)
{
    QStringList parts = text.split(QLatin1Char(':'));
    // The gateway's script takes any rate (0.5: a token every 2 s), and refills whole seconds times it: a
    // rate with up to three decimals is kept exactly, as that many tokens per 10, 100 or 1000 seconds.
    qint64 windowMs = 1000;
    static const QRegularExpression decimal(QStringLiteral("^(\\d{1,15})\\.(\\d{1,3})$"));
    if (const QRegularExpressionMatch fraction = decimal.match(parts.value(0));
        layout == SeedLayout::ScgTokenBucket && fraction.hasMatch()) {
        for (qsizetype digit = 0; digit < fraction.captured(2).size(); ++digit)
            windowMs *= 10;
        parts[0] = fraction.captured(1) + fraction.captured(2);
    }
    QVector<qint64> numbers;
    for (const QString &part : parts) {
        bool ok = false;
        numbers << part.toLongLong(&ok);
        if (!ok)
            return std::nullopt;
    }
    std::optional<SeedParameters> parameters = seedParameters(layout, numbers);
    if (parameters && windowMs != 1000)
        parameters->windowMs = windowMs;
    return parameters;
}

double seedRatePerSecond(const SeedParameters &parameters)
{
    return double(parameters.limit) * 1000 / double(parameters.windowMs);
}

} // namespace sluice::model
