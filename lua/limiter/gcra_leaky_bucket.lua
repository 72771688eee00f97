-- GCRA's and the leaky bucket's level is a backlog that rises with each call and drains at
-- `limit` per ms; a call fits while the backlog stays within `full`.
local function backlog_numbers(p, backlog, need, consuming)
    local full, rate, window = p.full, p.limit, p.window_ms
    if backlog + need > full then
        return false, floor((full - backlog) / window), ceil((backlog + need - full) / rate), ceil(backlog / rate)
    end
    if consuming then return true, floor((full - backlog - need) / window), -1, ceil((backlog + need) / rate) end
    return true, floor((full - backlog) / window), -1, ceil(backlog / rate)
end

-- The same on a wide backlog; `free` is floor((full - backlog) / window_ms).
local function wide_backlog_numbers(p, whole, part, cost, consuming)
    local capacity = p.capacity
    local free = capacity - whole
    if part > 0 then free = free - 1 end
    if cost > free then
        return false, free, wait_ms(p, whole + cost - capacity, part), wait_ms(p, whole, part)
    end
    if consuming then return true, free - cost, -1, wait_ms(p, whole + cost, part) end
    return true, free, -1, wait_ms(p, whole, part)
end

-- GCRA keeps the theoretical arrival time as whole ms plus a remainder in 1/limit ms, in both
-- forms. A backlog above full (left by a larger burst or window) reads as full, or up to max_debt
-- units above it for a policy that settles into debt (reservations.lua).
local gcra = level_algorithm {
    state = function(p, key, now)
        local expires, tat, fraction, allowed, rejected = packed_state(p, key, GCRA_TAG, FOUR, FOUR_SIZE)
        if expires == nil then return nil, tat end
        if not expires then return false, 0, now, 0, 0, FOUR_REJECTED_AT end
        local backlog = (tat - now) * p.limit + fraction
        if backlog > p.backlog_cap then backlog = p.backlog_cap end
        return expires, backlog > 0 and backlog or 0, now, allowed, rejected, FOUR_REJECTED_AT
    end,
    numbers = backlog_numbers,
    commit = function(p, key, now, expires, backlog, need, stamp, allowed, rejected, reset)
        local after = backlog + need
        local whole = floor(after / p.limit)
        write_packed(p, key, TAGGED_FOUR, now, reset, expires, GCRA_TAG, stamp + whole,
                     after - whole * p.limit, allowed + 1, rejected)
    end,
}

-- GCRA's backlog (ahead * limit + fraction, `ahead` the whole ms the arrival time lies ahead of
-- now) as a wide level: ahead = periods * window_ms + rest gives periods * limit whole units and
-- rest * limit / window_ms.
local function gcra_backlog(p, ahead, fraction)
    local window, limit, capacity = p.window_ms, p.limit, p.capacity
    if fraction >= limit then -- left by a larger limit
        local carried = floor(fraction / limit)
        ahead, fraction = ahead + carried, fraction - carried * limit
    end
    if ahead < 0 then return 0, 0 end
    local periods = floor(ahead / window)
    if periods >= capacity then return capacity, 0 end
    local units, rest = muldiv(ahead - periods * window, limit, window)
    local carried = floor(fraction / window)
    local whole, part = periods * limit + units + carried, rest + fraction - carried * window
    if part >= window then whole, part = whole + 1, part - window end
    if whole >= capacity then return capacity, 0 end
    return whole, part
end

local wide_gcra = wide_level_algorithm {
    state = function(p, key, now)
        local expires, tat, fraction, allowed, rejected = packed_state(p, key, GCRA_TAG, FOUR, FOUR_SIZE)
        if expires == nil then return nil, tat end
        if not expires then return false, 0, 0, now, 0, 0, FOUR_REJECTED_AT end
        local whole, part = gcra_backlog(p, tat - now, fraction)
        return expires, whole, part, now, allowed, rejected, FOUR_REJECTED_AT
    end,
    numbers = wide_backlog_numbers,
    commit = function(p, key, now, st)
        -- The arrival time moves to now + (backlog + cost * window_ms) / limit.
        local limit = p.limit
        local ahead, rest = muldiv(st.whole + st.cost, p.window_ms, limit)
        rest = rest + st.part
        local carried = floor(rest / limit)
        write_packed(p, key, TAGGED_FOUR, now, st.reset, st.expires, GCRA_TAG, now + ahead + carried,
                     rest - carried * limit, st.allowed + 1, st.rejected)
    end,
}

-- The leaky bucket is a queue: an admitted call waits until the water ahead of it has drained,
-- and that delay is its extra reply element. Water above full (left by a larger burst or window)
-- reads as full.
local leaky_bucket = level_algorithm {
    state = function(p, key, now)
        local raw = redis_pcall('GET', key)
        if not raw then return false, 0, now, 0, 0, FOUR_REJECTED_AT end
        local expires, water, stamp, allowed, rejected, rejected_at =
            narrow_level_state(p, key, raw, LEAKY_TAG, WIDE_LEAKY_TAG)
        if expires == nil then return nil, water end
        water = drain(water, now - stamp, p.limit)
        if water > p.full then water = p.full end
        return expires, water, max(stamp, now), allowed, rejected, rejected_at
    end,
    numbers = backlog_numbers,
    commit = function(p, key, now, expires, water, need, stamp, allowed, rejected, reset)
        write_packed(p, key, TAGGED_FOUR, now, reset, expires, LEAKY_TAG, water + need, stamp,
                     allowed + 1, rejected)
        return ceil(water / p.limit)
    end,
}

local wide_leaky_bucket = wide_level_algorithm {
    state = function(p, key, now)
        return wide_state_at(p, key, now, 0, LEAKY_TAG, WIDE_LEAKY_TAG, wide_drain)
    end,
    numbers = wide_backlog_numbers,
    commit = function(p, key, now, st)
        write_packed(p, key, TAGGED_FIVE, now, st.reset, st.expires, WIDE_LEAKY_TAG,
                     st.whole + st.cost, st.part, st.stamp, st.allowed + 1, st.rejected)
        return wait_ms(p, st.whole, st.part)
    end,
}

