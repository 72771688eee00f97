-- The token and leaky buckets' two forms: narrow (the level scaled by window_ms, then the stamp)
-- and wide (whole units, the remainder in 1/window_ms units, then the stamp). A policy republished
-- across the 2^52 line finds its buckets in the other form and reads them converted: the level is
-- taken in the current window_ms, as after any parameter change, and at most full; a rejection is
-- counted in the form the bucket has. The readers take the GET reply and return the expiry, the
-- level (one value or two), the stamp, the counters, and where the rejection counter starts.

-- A wide level for a narrow policy.
local function narrowed(p, whole, part)
    if whole >= p.capacity then return p.full end
    local level = whole * p.window_ms + part
    if level > p.full then return p.full end
    return level
end

local function narrow_level_state(p, key, raw, tag, wide_tag)
    local size = #raw
    if size == FOUR_SIZE and byte(raw, 1) == tag then
        local expires, level, stamp, allowed, rejected = unpack(FOUR, raw, 2)
        if (expires + level + stamp + allowed + rejected) * 0 == 0 then
            return expires, level, stamp, allowed, rejected, FOUR_REJECTED_AT
        end
    elseif size == FIVE_SIZE and byte(raw, 1) == wide_tag then
        local expires, whole, part, stamp, allowed, rejected = unpack(FIVE, raw, 2)
        if (expires + whole + part + stamp + allowed + rejected) * 0 == 0 then
            return expires, narrowed(p, whole, part), stamp, allowed, rejected, FIVE_REJECTED_AT
        end
    end
    return nil, not_a_bucket(key, p, raw)
end

-- Whole units and a remainder below window_ms, at most full: a remainder left by a longer window
-- carries, and a level above the capacity (left by a larger burst) reads as full.
local function wide_level(p, whole, part)
    local window = p.window_ms
    if part >= window then
        local carried = floor(part / window)
        whole, part = whole + carried, part - carried * window
    end
    if whole >= p.capacity then return p.capacity, 0 end
    return whole, part
end

local function wide_level_state(p, key, raw, tag, wide_tag)
    local size = #raw
    if size == FIVE_SIZE and byte(raw, 1) == wide_tag then
        local expires, whole, part, stamp, allowed, rejected = unpack(FIVE, raw, 2)
        if (expires + whole + part + stamp + allowed + rejected) * 0 == 0 then
            whole, part = wide_level(p, whole, part)
            return expires, whole, part, stamp, allowed, rejected, FIVE_REJECTED_AT
        end
    elseif size == FOUR_SIZE and byte(raw, 1) == tag then
        local expires, level, stamp, allowed, rejected = unpack(FOUR, raw, 2)
        if (expires + level + stamp + allowed + rejected) * 0 == 0 then
            local whole, part = wide_level(p, 0, level)
            return expires, whole, part, stamp, allowed, rejected, FOUR_REJECTED_AT
        end
    end
    return nil, not_a_bucket(key, p, raw)
end

-- A wide level after `elapsed` ms of refilling (token bucket) or draining (leaky bucket) `limit`
-- per window: elapsed = periods * window_ms + rest moves it by periods * limit whole units and
-- rest * limit / window_ms. A product past 2^53 is only ever compared with a level it exceeds.
local function wide_refill(p, whole, part, elapsed)
    if elapsed <= 0 then return whole, part end
    local window, capacity = p.window_ms, p.capacity
    local periods = floor(elapsed / window)
    if periods >= capacity then return capacity, 0 end
    local units, rest = muldiv(elapsed - periods * window, p.limit, window)
    whole, part = whole + periods * p.limit + units, part + rest
    if part >= window then whole, part = whole + 1, part - window end
    if whole >= capacity then return capacity, 0 end
    return whole, part
end

local function wide_drain(p, whole, part, elapsed)
    if elapsed <= 0 then return whole, part end
    local window = p.window_ms
    local periods = floor(elapsed / window)
    if periods > whole then return 0, 0 end
    local units, rest = muldiv(elapsed - periods * window, p.limit, window)
    whole, part = whole - periods * p.limit - units, part - rest
    if part < 0 then whole, part = whole - 1, part + window end
    if whole < 0 then return 0, 0 end
    return whole, part
end

-- ceil((units * window_ms + part) / limit): the ms a wide level takes to move that far (units
-- below 2^30, |part| below window_ms, the sum not negative). Within the capacity it is at most the
-- time an empty bucket takes to fill, below 2^52.
local function wait_ms(p, units, part)
    local whole, rest = muldiv(units, p.window_ms, p.limit)
    return whole + ceil((rest + part) / p.limit)
end

-- Token bucket, GCRA and leaky bucket are one level each, read by state(p, key, now) -> expires
-- (false for a new bucket), level, stamp, allowed, rejected, rejected_at; answered by numbers(p,
-- level, need, consuming); written by commit(p, key, now, expires, level, need, stamp, allowed,
-- rejected, reset). A call of `cost` needs cost * window_ms: levels are scaled by the window.
local function level_algorithm(a)
    local impl = {}
    function impl.evaluate(p, key, now, cost, peek)
        local expires, level, stamp, allowed, rejected, rejected_at = a.state(p, key, now)
        if expires == nil then return nil, level end
        local need = cost * p.window_ms
        local ok, units, retry, reset = a.numbers(p, level, need, not peek)
        return {ok = ok, units = units, retry = retry, reset = reset, expires = expires, level = level,
                need = need, stamp = stamp, allowed = allowed, rejected = rejected, rejected_at = rejected_at}
    end
    function impl.apply(p, key, st, verdict, now)
        if verdict == 'none' then return end
        if verdict == 'reject' then return count_rejection(key, st.rejected_at, st.rejected) end
        return a.commit(p, key, now, st.expires, st.level, st.need, st.stamp, st.allowed, st.rejected, st.reset)
    end
    function impl.acquire(p, key, now, cost)
        local expires, level, stamp, allowed, rejected, rejected_at = a.state(p, key, now)
        if expires == nil then return nil, level end
        local need = cost * p.window_ms
        local ok, units, retry, reset = a.numbers(p, level, need, true)
        if not ok then return ok, units, retry, reset, count_rejection(key, rejected_at, rejected) end
        return ok, units, retry, reset, a.commit(p, key, now, expires, level, need, stamp, allowed, rejected, reset)
    end
    return impl
end

-- The same for the wide forms, on levels of whole units and a remainder: state(p, key, now) ->
-- expires, whole, part, stamp, allowed, rejected, rejected_at; numbers(p, whole, part, cost,
-- consuming); commit(p, key, now, st) with the outcome table of evaluate().
local function wide_level_algorithm(a)
    local impl = {}
    function impl.evaluate(p, key, now, cost, peek)
        local expires, whole, part, stamp, allowed, rejected, rejected_at = a.state(p, key, now)
        if expires == nil then return nil, whole end
        local ok, units, retry, reset = a.numbers(p, whole, part, cost, not peek)
        return {ok = ok, units = units, retry = retry, reset = reset, expires = expires, whole = whole, part = part,
                cost = cost, stamp = stamp, allowed = allowed, rejected = rejected, rejected_at = rejected_at}
    end
    function impl.apply(p, key, st, verdict, now)
        if verdict == 'none' then return end
        if verdict == 'reject' then return count_rejection(key, st.rejected_at, st.rejected) end
        return a.commit(p, key, now, st)
    end
    impl.acquire = acquire_by_outcome(impl)
    return impl
end

