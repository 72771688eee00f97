local ALGORITHMS = {
    token_bucket = token_bucket, fixed_window = fixed_window, sliding_log = sliding_log,
    sliding_window = sliding_window, leaky_bucket = leaky_bucket, gcra = gcra, concurrency = concurrency,
}

-- The forms of the algorithms whose levels are scaled by the window, for wide policies (the
-- sliding window tells by p.wide).
local WIDE = {token_bucket = wide_token_bucket, gcra = wide_gcra, leaky_bucket = wide_leaky_bucket}

-- The largest burst an empty bucket refills within 2^52 ms: floor(2^52 * limit / window), below
-- 1e9 when asked.
local function largest_burst(limit, window)
    local periods = floor(MAX_FILL_MS / window)
    return periods * limit + (muldiv(MAX_FILL_MS - periods * window, limit, window))
end

-- Algorithms whose admitted calls carry one more reply element: the lease id, or the queue delay.
local EXTRA = {concurrency = '', leaky_bucket = 0}

-- Algorithms that read burst; the others hold limit units.
local USES_BURST = {token_bucket = true, gcra = true, leaky_bucket = true}

-- Checks one set of parameters and derives what the algorithms need; nil and a message if invalid.
local function prepare(p)
    if not ALGORITHMS[p.algorithm] then return nil, 'unknown algorithm ' .. shown(tostring(p.algorithm)) end
    local limit, window, burst = p.limit, p.window_ms, p.burst
    if not limit or limit < 1 or limit > MAX_COUNT or limit % 1 ~= 0 then
        return nil, 'limit must be a whole number from 1 to ' .. MAX_COUNT
    end
    if not window or window < 1 or (window > MAX_WINDOW_MS and not p.calendar) or window % 1 ~= 0 then
        return nil, 'window_ms must be a whole number from 1 to ' .. MAX_WINDOW_MS
    end
    if not burst or burst < 1 or burst > MAX_COUNT or burst % 1 ~= 0 then
        return nil, 'burst must be a whole number from 1 to ' .. MAX_COUNT
    end
    local keeps_entries = p.algorithm == 'sliding_log' or p.algorithm == 'concurrency'
    if keeps_entries and limit > MAX_ENTRIES then
        return nil, 'limit must be at most ' .. MAX_ENTRIES .. ' for ' .. p.algorithm
    end
    local uses_burst = USES_BURST[p.algorithm]
    if uses_burst then
        -- Every wait and expiry is at most the ms an empty bucket takes to fill, ceil(burst *
        -- window_ms / limit): below 2^52 they stay exact.
        local fill, rest = muldiv(burst, window, limit)
        if fill > MAX_FILL_MS or (fill == MAX_FILL_MS and rest > 0) then
            return nil, 'burst must be at most ' .. largest_burst(limit, window) .. ' with a limit of ' .. limit
                .. ' per ' .. window .. ' ms: an empty bucket must refill within 2^52 ms (burst / limit windows)'
        end
    end
    if p.calendar then p.offset_ms = p.utc_offset_minutes * 60000 end
    p.capacity = uses_burst and burst or limit
    p.wide = max(limit, p.capacity) * window > MAX_SCALED
    if not p.wide then
        p.full = p.capacity * window
        -- How far a settled excess may go (reservations.lua): max_debt units beyond full (a backlog) or
        -- below empty (a level).
        p.backlog_cap = p.full + (p.max_debt or 0) * window
    end
    p.impl = p.wide and WIDE[p.algorithm] or ALGORITHMS[p.algorithm]
    if p.max_debt then
        if p.algorithm == 'fixed_window' then p.impl = fixed_window_with_debt end
        if p.algorithm == 'sliding_window' then p.impl = sliding_window_with_debt end
    end
    -- Whether a decision reads the clock: a first-call window's needs only its key's expiry (setup() makes a
    -- policy with subject rules or shadow twins read it, for they do).
    p.clocked = true
    if p.first_call and window > 1 then
        p.impl = first_call_window
        p.window_expiry = tostring(window - 1) -- a number argument is formatted on every call
        p.clocked = false
    end
    -- How long a string bucket lives at least after a write that needs a new expiry: a window, and
    -- for the sliding window two (its count weighs on the next window), whatever the call's reset,
    -- so the expiry is mostly the same text (see write_packed()).
    p.usual_ttl = p.algorithm == 'sliding_window' and 2 * window or window
    p.usual_lifetime = tostring(p.usual_ttl + floor(p.usual_ttl / 8))
    p.extra = EXTRA[p.algorithm]
    p.reply = {0, 0, -1, 0, limit, p.name} -- decide_one()'s, refilled on every call
    -- The lean reply (sluice_allow's); none for concurrency, whose callers need the lease id.
    if p.algorithm ~= 'concurrency' then p.lean = {0, 0, 0} end
    return p
end

-- A spread policy's buckets, each a policy of its own holding its share of the limit and of the burst (the
-- first limit % spread, burst % spread, one unit more; an algorithm without a burst, its limit), as
-- model::spreadPart() has them; `whole` is the policy. Built from the definition's fields, before prepare()
-- derives the rest.
local function spread_parts(p)
    local parts, n = {}, p.spread
    local uses_burst = USES_BURST[p.algorithm]
    for i = 0, n - 1 do
        local part = {}
        for field, value in pairs(p) do part[field] = value end
        part.limit = floor(p.limit / n) + (i < p.limit % n and 1 or 0)
        part.burst = uses_burst and floor(p.burst / n) + (i < p.burst % n and 1 or 0) or part.limit
        part.whole = p
        parts[i + 1] = part
    end
    return parts
end

-- Where a spread policy's key `<prefix><subject>#<i>}` ends its subject: the position of the '#' before the
-- bucket number; nil when the key has no bucket number after a non-empty subject.
local function spread_mark(p, key)
    return find(key, '#%d+}$', #p.prefix + 2)
end

-- The key a spread policy's bucket counts its rejections under: the subject's, without the bucket number, so
-- the most rejected lists name subjects.
local function whole_key(p, key)
    return sub(key, 1, spread_mark(p, key) - 1) .. '}'
end

