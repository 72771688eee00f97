-- Per-policy decision counts: totals since the library was loaded and a ring of the last RING
-- seconds, kept in the library's memory (not in keys), so reading them costs the same however many
-- subjects there are. They restart from zero when the library is reloaded or Redis restarts;
-- `epoch` (the first time this copy saw) tells a reader that happened. The second in progress is
-- counted in `a` and `r` and moves into the ring when a later second begins (a clock that steps
-- back counts in the second in progress); totals hold the seconds already moved.
local RING = 64
local epoch = nil
local NAMES = {} -- the policy names, sorted

-- `listed` and `denied` count apart the calls a list decided (see subject_rules.lua), already
-- counted among the allowed and rejected; `reserved` and `settled` the reservations made and settled,
-- `debt` the units settlements charged beyond what was left, `uncharged` those beyond max_debt (see
-- reservations.lua).
local function new_counts()
    return {ends = -1, a = 0, r = 0, allowed = 0, rejected = 0, seconds = {}, ring_a = {}, ring_r = {}, listed = 0,
            denied = 0, reserved = 0, settled = 0, debt = 0, uncharged = 0}
end

local function roll(s, now)
    if s.second then
        local slot = s.second % RING + 1
        s.seconds[slot], s.ring_a[slot], s.ring_r[slot] = s.second, s.a, s.r
        s.allowed, s.rejected = s.allowed + s.a, s.rejected + s.r
    end
    s.second = floor(now / 1000)
    s.ends = (s.second + 1) * 1000
    s.a, s.r = 0, 0
    epoch = epoch or now
end

local function record_admission(p, now)
    local s = p.stats
    if now >= s.ends then roll(s, now) end
    s.a = s.a + 1
end

-- Most rejected subjects per policy, for dashboards, kept like the counts above in the library's
-- memory: a Space-Saving summary of at most TOP_SIZE keys per period of TOP_PERIOD_MS (exact while a
-- period sees no more keys than that; otherwise a key that enters takes the place of the least
-- counted one and inherits its count as a possible overestimate). Reading covers the period in
-- progress and the one before. A rejection costs a table update, never a Redis call.
local TOP_SIZE = 32
local TOP_PERIOD_MS = 10000

local function new_top()
    return {ends = -1, starts = -1, size = 0, counts = {}, over = {}, previous = nil}
end

-- A rejection counted for its policy: the second's count and its key's place in the summary.
local function record_rejection(p, key, now)
    local s, t = p.stats, p.top
    if now >= s.ends then roll(s, now) end
    s.r = s.r + 1
    if now >= t.ends then
        local period = floor(now / TOP_PERIOD_MS) * TOP_PERIOD_MS
        t.previous = (t.ends == period) and {starts = t.starts, counts = t.counts, over = t.over} or nil
        t.starts, t.ends, t.size, t.counts, t.over = period, period + TOP_PERIOD_MS, 0, {}, {}
    end
    local counts = t.counts
    local n = counts[key]
    if n then
        counts[key] = n + 1
    elseif t.size < TOP_SIZE then
        counts[key] = 1
        t.size = t.size + 1
    else
        local least_key, least = nil, nil
        for k, v in pairs(counts) do
            if not least or v < least then least_key, least = k, v end
        end
        counts[least_key], t.over[least_key] = nil, nil
        counts[key], t.over[key] = least + 1, least
    end
end

