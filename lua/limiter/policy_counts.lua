-- Per-policy decision counts: totals since this copy of the library was loaded, kept in its memory (not
-- in keys), so reading them costs the same however many subjects there are. Counting needs no clock: a
-- reader turns totals into rates and windows by differencing its own successive readings, each stamped
-- with the server's time by the function that replies. They restart from zero when the library is
-- reloaded or Redis restarts; `epoch` (the server's time at this copy's first call, set by setup(), when
-- the counts began) tells a reader that happened.
local epoch = nil
local NAMES = {} -- the policy names, sorted

-- `listed` and `denied` count apart the calls a list decided (see subject_rules.lua), already
-- counted among the allowed and rejected; `reserved` and `settled` the reservations made and settled,
-- `debt` the units settlements charged beyond what was left, `uncharged` those beyond max_debt (see
-- reservations.lua); `read_total` and `moved_at` what sluice_stats' readings saw (entry_points.lua).
local function new_counts()
    return {allowed = 0, rejected = 0, listed = 0, denied = 0, reserved = 0, settled = 0, debt = 0, uncharged = 0,
            read_total = 0}
end

local function record_admission(p)
    local s = p.stats
    s.allowed = s.allowed + 1
end

-- Most rejected subjects per policy, for dashboards, kept like the counts above: a Space-Saving summary
-- of at most TOP_SIZE keys over the copy's whole life. While it has room every rejected key is counted
-- exactly; once full, a key that is not in it takes the place of the least counted one and starts from
-- that count plus one, its `entered` the count it inherited. A key's count then grows by exactly its
-- rejections while it stays, and `entered` only grows (the least count never falls), so a reader that
-- sees the same `entered` in two readings has the key's exact rejections in between. A rejection costs
-- a table update, never a Redis call.
local TOP_SIZE = 32

local function new_top()
    return {size = 0, counts = {}, entered = {}}
end

-- A rejection of `key` that the summary does not hold yet.
local function enter_top(t, key)
    if t.size < TOP_SIZE then
        t.counts[key], t.entered[key] = 1, 0
        t.size = t.size + 1
        return
    end
    local counts = t.counts
    local least_key, least = nil, nil
    for k, v in pairs(counts) do
        if not least or v < least then least_key, least = k, v end
    end
    counts[least_key], t.entered[least_key] = nil, nil
    counts[key], t.entered[key] = least + 1, least
end

-- A rejection counted for its policy: its total and its key's place in the summary.
local function record_rejection(p, key)
    if p.whole then key = whole_key(p, key) end
    local s, counts = p.stats, p.top.counts
    s.rejected = s.rejected + 1
    local n = counts[key]
    if n then counts[key] = n + 1 else enter_top(p.top, key) end
end
