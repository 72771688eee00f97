-- The weighted approximation: the previous window's count, weighted by how much of it still
-- overlaps the trailing window, plus the current window's count.
local sliding_window = {}

-- floor(a * b / d) for whole a up to the limit, b up to window_ms and d below 2^30.
local function quotient(p, a, b, d)
    if p.wide then return (muldiv(a, b, d)) end
    return floor(a * b / d)
end

-- The bucket at `now`: its expiry (false when there is none), the window id, the ms elapsed in it,
-- the previous and current windows' counts, the whole units left under the estimate, and the
-- counters; nil and a message for foreign data.
local function sliding_state(p, key, now)
    local expires, stored_id, previous, current, allowed, rejected = packed_state(p, key, SLIDING_TAG, FIVE, FIVE_SIZE)
    if expires == nil then return nil, stored_id end
    local window, limit = p.window_ms, p.limit
    local id = floor(now / window)
    local elapsed = now - id * window
    local prev, curr = 0, 0
    if stored_id == id then
        prev, curr = previous, current
    elseif stored_id == id - 1 then
        prev = current
    end
    if not expires then allowed, rejected = 0, 0 end
    -- Whole units left under the estimate: limit - curr - ceil(prev * (window - elapsed) / window).
    -- (A previous count above the limit was left by a larger one.)
    local weighted
    if p.wide or prev > limit then
        local whole, rest = muldiv(prev, window - elapsed, window)
        weighted = rest > 0 and whole + 1 or whole
    else
        weighted = ceil(prev * (window - elapsed) / window)
    end
    return expires, id, elapsed, prev, curr, limit - curr - weighted, allowed, rejected
end

-- Ms until the bucket's counts are gone, when nothing is consumed.
local function sliding_reset(p, elapsed, prev, curr)
    if curr > 0 then return p.window_ms - elapsed + p.window_ms end
    if prev > 0 then return p.window_ms - elapsed end
    return 0
end

-- Ms until a call of `cost` that does not fit now would.
local function sliding_retry(p, elapsed, prev, curr, cost)
    local window, limit = p.window_ms, p.limit
    -- Earliest elapsed time e in this window with prev * (window - e) <= room * window.
    local room = limit - curr - cost
    local at = window
    if room >= 0 and prev > 0 then at = window - quotient(p, room, window, prev) end
    if at < window then return at - elapsed end
    -- In the next window the current count is the weighted one and nothing is current.
    local later = 0
    if curr > limit - cost then later = window - quotient(p, limit - cost, window, curr) end
    return window - elapsed + later
end

function sliding_window.evaluate(p, key, now, cost, peek)
    local expires, id, elapsed, prev, curr, free, allowed, rejected = sliding_state(p, key, now)
    if expires == nil then return nil, id end
    local ok = cost <= free
    local units, retry, reset = free, -1, nil
    if ok and not peek then
        units, reset = free - cost, p.window_ms - elapsed + p.window_ms
    else
        reset = sliding_reset(p, elapsed, prev, curr)
        if not ok then retry = sliding_retry(p, elapsed, prev, curr, cost) end
    end
    return {ok = ok, units = units, retry = retry, reset = reset, id = id, prev = prev, curr = curr, cost = cost,
            expires = expires, allowed = allowed, rejected = rejected}
end

function sliding_window.apply(p, key, st, verdict, now)
    if verdict == 'consume' then
        write_packed(p, key, TAGGED_FIVE, now, st.reset, st.expires, SLIDING_TAG,
                     st.id, st.prev, st.curr + st.cost, st.allowed + 1, st.rejected)
    elseif verdict == 'reject' then
        count_rejection(key, FIVE_REJECTED_AT, st.rejected)
    end
end

-- The sliding window deciding alone, written out like token_bucket.acquire (no outcome table).
function sliding_window.acquire(p, key, now, cost)
    local expires, id, elapsed, prev, curr, free, allowed, rejected = sliding_state(p, key, now)
    if expires == nil then return nil, id end
    if cost <= free then
        local reset = p.window_ms - elapsed + p.window_ms
        write_packed(p, key, TAGGED_FIVE, now, reset, expires, SLIDING_TAG, id, prev, curr + cost, allowed + 1,
                     rejected)
        return true, free - cost, -1, reset
    end
    count_rejection(key, FIVE_REJECTED_AT, rejected)
    return false, free, sliding_retry(p, elapsed, prev, curr, cost), sliding_reset(p, elapsed, prev, curr)
end

