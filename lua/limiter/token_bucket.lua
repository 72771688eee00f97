-- The token bucket's level is the tokens it holds; it starts full.
local token_bucket = level_algorithm {
    state = function(p, key, now)
        local raw = redis_pcall('GET', key)
        if not raw then return false, p.full, now, 0, 0, FOUR_REJECTED_AT end
        local expires, level, stamp, allowed, rejected, rejected_at =
            narrow_level_state(p, key, raw, TOKEN_TAG, WIDE_TOKEN_TAG)
        if expires == nil then return nil, level end
        -- max(): a clock that stepped back grants nothing twice
        return expires, refill(level, now - stamp, p.full, p.limit), max(stamp, now), allowed, rejected, rejected_at
    end,
    numbers = function(p, level, need, consuming)
        local window, rate, full = p.window_ms, p.limit, p.full
        if level < need then
            return false, floor(level / window), ceil((need - level) / rate), ceil((full - level) / rate)
        end
        if consuming then return true, floor((level - need) / window), -1, ceil((full - level + need) / rate) end
        return true, floor(level / window), -1, ceil((full - level) / rate)
    end,
    commit = function(p, key, now, expires, level, need, stamp, allowed, rejected, reset)
        write_packed(p, key, TAGGED_FOUR, now, reset, expires, TOKEN_TAG, level - need, stamp, allowed + 1, rejected)
    end,
}

-- The token bucket deciding alone, the most common call of all, with state(), numbers() and
-- commit() written out in one function: in Redis's Lua a function call costs about as much as
-- reading a key. tst_limiter_reference checks both forms against the same model.
function token_bucket.acquire(p, key, now, cost)
    local window, rate, full = p.window_ms, p.limit, p.full
    local expires, level, stamp, allowed, rejected, rejected_at = false, full, now, 0, 0, FOUR_REJECTED_AT
    local raw = redis_pcall('GET', key)
    if raw then
        local tag
        if #raw == FOUR_SIZE then tag, expires, level, stamp, allowed, rejected = unpack(TAGGED_FOUR, raw) end
        if tag ~= TOKEN_TAG or (expires + level + stamp + allowed + rejected) * 0 ~= 0 then
            -- the wide form, or foreign data
            expires, level, stamp, allowed, rejected, rejected_at =
                narrow_level_state(p, key, raw, TOKEN_TAG, WIDE_TOKEN_TAG)
            if expires == nil then return nil, level end
        end
        local elapsed = now - stamp
        if elapsed > 0 then -- a clock that stepped back grants nothing twice
            if elapsed * rate >= full - level then level = full else level = level + elapsed * rate end
            stamp = now
        end
    end
    local need = cost * window
    if level < need then
        redis_call('SETRANGE', key, rejected_at, pack('d', rejected + 1))
        return false, floor(level / window), ceil((need - level) / rate), ceil((full - level) / rate)
    end
    local reset = ceil((full - level + need) / rate)
    write_packed(p, key, TAGGED_FOUR, now, reset, expires, TOKEN_TAG, level - need, stamp, allowed + 1, rejected)
    return true, floor((level - need) / window), -1, reset
end

-- A wide level as it stands at `now`: `fresh` whole units for a new bucket, else the stored level
-- (in either form) moved on by `advance` (refill or drain) over the time since it was written.
local function wide_state_at(p, key, now, fresh, tag, wide_tag, advance)
    local raw = redis_pcall('GET', key)
    if not raw then return false, fresh, 0, now, 0, 0, FIVE_REJECTED_AT end
    local expires, whole, part, stamp, allowed, rejected, rejected_at = wide_level_state(p, key, raw, tag, wide_tag)
    if expires == nil then return nil, whole end
    whole, part = advance(p, whole, part, now - stamp)
    return expires, whole, part, max(stamp, now), allowed, rejected, rejected_at
end

-- The wide token bucket: `whole` tokens and `part` / window_ms of the next one.
local wide_token_bucket = wide_level_algorithm {
    state = function(p, key, now)
        return wide_state_at(p, key, now, p.capacity, TOKEN_TAG, WIDE_TOKEN_TAG, wide_refill)
    end,
    numbers = function(p, whole, part, cost, consuming)
        local burst = p.capacity
        if whole < cost then
            return false, whole, wait_ms(p, cost - whole, -part), wait_ms(p, burst - whole, -part)
        end
        if consuming then return true, whole - cost, -1, wait_ms(p, burst - whole + cost, -part) end
        return true, whole, -1, wait_ms(p, burst - whole, -part)
    end,
    commit = function(p, key, now, st)
        write_packed(p, key, TAGGED_FIVE, now, st.reset, st.expires, WIDE_TOKEN_TAG,
                     st.whole - st.cost, st.part, st.stamp, st.allowed + 1, st.rejected)
    end,
}

