#include "model/limiter/seed_layouts.h"

#include "model/limiter/lua_source.h"


namespace sluice::model {

QString seedLayoutName(SeedLayout layout)
{
    switch (layout) {
    case SeedLayout::ScgTokenBucket:
        return QStringLiteral("scg_token_bucket");
    case SeedLayout::FixedWindowCounter:
        return QStringLiteral("fixed_window_counter");
    case SeedLayout::MsTokenBucket:
        return QStringLiteral("ms_token_bucket");
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
    case SeedLayout::ScgTokenBucket:
        return {"request_rate_limiter.{" + id + "}.tokens", "request_rate_limiter.{" + id + "}.timestamp"};
    case SeedLayout::FixedWindowCounter:
        return {id};
    case SeedLayout::MsTokenBucket:
        return {id, id + ":last"};
    }
    return {};
}

} // namespace sluice::model
