-- The sluice limiter: the static part of the Functions library. The publisher puts in front of it
-- LIBRARY (name, version, digest, code, lease secret), NAMESPACE, DATABASE, POLICIES (the policy table:
-- data only, as escaped literals) and now_ms (clock.lua). See lua/README.md for the contract and the
-- storage layouts.
--
-- Arithmetic is exact: Lua numbers are doubles, and every quantity below stays an integer under
-- 2^53. Levels are kept scaled by the window, so refilling `limit` units per `window_ms` adds
-- exactly `limit` per millisecond. A policy whose capacity (or limit) times window_ms passes 2^52
-- is "wide": its levels are whole units plus a remainder in 1/window_ms units, and its products go
-- through muldiv(); the others keep one scaled double, the cheaper form.

-- The library's top level runs without globals (Redis 7.0's load context has none), so the standard
-- functions are bound, and the policy table prepared, by setup() on the first call. Redis's own are
-- bound too: an upvalue is one VM instruction where `redis.call` is a global's lookup and a field's.
local floor, ceil, find, sub, byte, gsub, pack, unpack, huge, sha1hex, redis_call, redis_pcall

local MAX_COUNT = 1000000000         -- largest limit, burst and cost
local MAX_WINDOW_MS = 604800000      -- one week
local MAX_SCALED = 4503599627370496  -- 2^52: the largest level (times window_ms) of the narrow form
local MAX_FILL_MS = 4503599627370496 -- 2^52: the longest an empty bucket may take to fill
local MAX_ENTRIES = 100000           -- sliding_log entries and concurrency leases per key
local MAX_CARRIED_DIGITS = 15        -- a window count taken on from the other window start: exact as a double
-- Bytes of a key's subject, as the key holds it (escaped by its caller): room for an e-mail address,
-- a UUID or an IPv6 address, and a bound on what the library keeps of a key in its own memory.
local MAX_SUBJECT = 512
-- retry_after_ms of a call that can never pass (its cost is above what the policy admits at once);
-- -1 means admitted, so waits are never negative otherwise.
local NEVER = -2

-- Quotients are written floor(a / b) and ceil(a / b): for integers with |a| + b <= 2^53 the
-- double quotient never rounds across an integer (landing on q from below needs a gap of at least
-- 1/b within half an ulp of q, that is b * q >= 2^53), and the bounds above keep every dividend and
-- divisor of the narrow form below 2^52.

local function max(a, b)
    if a > b then return a end
    return b
end

-- floor(a * b / d) and a * b mod d, exactly, for whole a, b and d below 2^30 (d >= 1) whose
-- quotient stays below 2^53: b is split into 15-bit halves, so no partial product reaches 2^46. (A
-- quotient past 2^53 comes out rounded but never below 2^53, so comparing it with a smaller bound
-- still tells the truth.)
local function muldiv(a, b, d)
    local high = floor(b / 32768)
    local partial = a * high
    local first = floor(partial / d)
    local rest = (partial - first * d) * 32768 + a * (b - high * 32768)
    local second = floor(rest / d)
    return first * 32768 + second, rest - second * d
end

-- Caller-supplied bytes made safe to quote in an error line (cut first: a key may be megabytes).
local function shown(text)
    local quoted = gsub(sub(text, 1, 80), '[%c"\\]', '?')
    if #text > 80 then quoted = quoted .. '...' end
    return '"' .. quoted .. '"'
end

-- An error reply: ours names the problem; a Redis error passed on (a table) is replied as it is.
local function fail(message)
    if type(message) == 'table' then return message end
    return redis.error_reply('ERR sluice: ' .. message)
end

-- A whole number written plainly ("12", not "1e1", "012", "+12" or "12.0"), from 1 to `largest`.
local function parse_count(text, largest)
    if type(text) ~= 'string' or #text > 10 or not find(text, '^[1-9]%d*$') then return nil end
    local value = tonumber(text)
    if value > largest then return nil end
    return value
end

-- A read whose Redis error comes back as a value (the error table) instead of aborting the call,
-- so the call can name it, or undo what it did, and reply.
local function read(...)
    local reply = redis_pcall(...)
    if type(reply) == 'table' and reply.err then return nil, reply end
    return reply
end

-- Why `key` cannot be read as p's bucket. `reply` is the Redis error of the read, when it failed: one
-- about the key's type or value is foreign data, any other (the caller's ACL refusing the command,
-- ...) is not about the key and is passed on as Redis worded it.
local function not_a_bucket(key, p, reply)
    if type(reply) == 'table' and reply.err then
        local err = reply.err
        -- HINCRBY on a field that is no integer, or would overflow: the fixed window's hash.
        if not (find(err, '^WRONGTYPE') or find(err, 'not an integer', 1, true) or find(err, 'overflow', 1, true)) then
            return reply
        end
    end
    return 'key ' .. shown(key) .. ' does not hold a ' .. p.algorithm .. ' bucket (wrong type or foreign data)'
end

-- Refill toward `full` at `rate` per ms, and drain toward 0. `elapsed * rate` may exceed 2^53 only
-- when it also exceeds the gap, and that comparison stays exact.
local function refill(level, elapsed, full, rate)
    if elapsed <= 0 then return level end
    if elapsed * rate >= full - level then return full end
    return level + elapsed * rate
end

local function drain(level, elapsed, rate)
    if elapsed <= 0 then return level end
    if elapsed * rate >= level then return 0 end
    return level - elapsed * rate
end

-- Every algorithm answers a call of `cost` units at `now` with four numbers:
--   ok      the call fits
--   units   whole units left after the call, when it fits and is consumed; otherwise available now
--   retry   ms until the same call could pass (-1 when it fits)
--   reset   ms until full again: after the call, when it fits and is consumed; otherwise as it stands
-- Each algorithm has
--   evaluate(p, key, now, cost, peek): those numbers and what apply() needs, in an outcome table
--     with the per-key counters `allowed` and `rejected`; it only reads (fixed_window counts ahead
--     and apply() takes it back when needed);
--   apply(p, key, st, verdict, now): writes the outcome: 'consume', 'reject' (count a rejection) or
--     'none' (the bucket left exactly as it was before the call); returns the extra reply element of
--     algorithms that have one;
--   acquire(p, key, now, cost): one policy deciding alone, in one pass (the common call):
--     ok, units, retry, reset, extra; or nil and a message.

-- acquire() through evaluate() and apply(), for algorithms without a faster path.
local function acquire_by_outcome(impl)
    return function(p, key, now, cost)
        local st, err = impl.evaluate(p, key, now, cost, false)
        if not st then return nil, err end
        local extra = impl.apply(p, key, st, st.ok and 'consume' or 'reject', now)
        return st.ok, st.units, st.retry, st.reset, extra
    end
end

-- Token bucket, GCRA, leaky bucket and sliding window keep one string: a tag byte, the key's
-- expiry (ms), the algorithm's values, then the allowed and rejected counters, all doubles. The
-- wide forms of the token and leaky buckets keep one value more (the level's remainder) under a tag
-- of their own; GCRA and the sliding window keep the same values in both forms.
local TOKEN_TAG, GCRA_TAG, LEAKY_TAG, SLIDING_TAG = 84, 71, 76, 83 -- 'T', 'G', 'L', 'S'
local WIDE_TOKEN_TAG, WIDE_LEAKY_TAG = 116, 108                   -- 't', 'l'
local FOUR, FIVE = 'ddddd', 'dddddd'              -- the expiry and 4 or 5 values, after the tag
local TAGGED_FOUR, TAGGED_FIVE = 'B' .. FOUR, 'B' .. FIVE
local FOUR_SIZE, FIVE_SIZE = 1 + 8 * 5, 1 + 8 * 6
-- Where the rejection counter (the last double) starts, as text: a number argument would be
-- formatted on every call.
local FOUR_REJECTED_AT, FIVE_REJECTED_AT = '33', '41'

-- Stored doubles that are NaN or infinite make a bucket foreign data: x * 0 is 0 for every finite
-- x and NaN otherwise, so one comparison of (sum of the values) * 0 checks them all.
local function packed_state(p, key, tag, format, size)
    local raw = redis_pcall('GET', key)
    if not raw then return false end
    -- A wrong type's error reply is a table, whose length is no bucket's size.
    if #raw ~= size or byte(raw, 1) ~= tag then return nil, not_a_bucket(key, p, raw) end
    -- After four values `e` is unpack's next position, a finite number too.
    local expires, a, b, c, d, e = unpack(format, raw, 2)
    if (expires + a + b + c + d + e) * 0 ~= 0 then return nil, not_a_bucket(key, p) end
    return expires, a, b, c, d, e
end

-- Writes a bucket that must live `reset` ms after `now`, and at least p.usual_ttl ms. The expiry
-- moves only when it falls short, and then an eighth further, so a busy key mostly keeps its TTL
-- (SET KEEPTTL costs about half of SET PX); an idle key still goes at most ttl/8 after the last
-- write made it necessary. Redis formats a number argument on every call, so the usual lifetime
-- goes as the text prepare() made.
local function write_packed(p, key, format, now, reset, expires, tag, a, b, c, d, e)
    local ttl = p.usual_ttl
    if reset > ttl then ttl = reset end
    if expires and expires >= now + ttl then
        redis_call('SET', key, pack(format, tag, expires, a, b, c, d, e), 'KEEPTTL')
        return
    end
    local lifetime = ttl + floor(ttl / 8)
    redis_call('SET', key, pack(format, tag, now + lifetime, a, b, c, d, e), 'PX',
               ttl == p.usual_ttl and p.usual_lifetime or lifetime)
end

-- A rejection consumes nothing: the stored state still describes the bucket and its expiry still
-- falls when it is full again, so only the rejection counter changes, in place.
local function count_rejection(key, offset, rejected)
    redis_call('SETRANGE', key, offset, pack('d', rejected + 1))
end

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
-- forms. A backlog above full (left by a larger burst or window) reads as full.
local gcra = level_algorithm {
    state = function(p, key, now)
        local expires, tat, fraction, allowed, rejected = packed_state(p, key, GCRA_TAG, FOUR, FOUR_SIZE)
        if expires == nil then return nil, tat end
        if not expires then return false, 0, now, 0, 0, FOUR_REJECTED_AT end
        local backlog = (tat - now) * p.limit + fraction
        if backlog > p.full then backlog = p.full end
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

-- Windows are aligned to the epoch (multiples of window_ms since 1970-01-01 UTC). The bucket is a
-- hash: one field per window id holding its count, `a` the units admitted in finished windows, `r`
-- the rejections not kept in a window's count. An acquire counts the call first (one write on the
-- common path). A call that does not fit is taken back and counted in `r`, except a call of cost
-- 1 finding its window full: it stays in the count, so a flood of rejections costs one write each,
-- and whatever a window's count holds above the limit is rejections. (After the limit changes in
-- the middle of a window, those rejections count against the new limit until the window ends.)
local fixed_window = {}

-- A window's count read back: the units admitted in it and the rejections it holds.
local function window_split(p, count)
    if count > p.limit then return p.limit, count - p.limit end
    return count, 0
end

-- Reads a fixed_window hash: nil when it holds anything but `a`, `r` and window counts.
local function window_fields(p, fields, id)
    local summary = {count = 0, allowed = 0, rejected = 0, previous = nil}
    local current, previous = tostring(id), tostring(id - 1)
    for i = 1, #fields, 2 do
        local name, value = fields[i], fields[i + 1]
        if not find(value, '^%d+$') or (name ~= 'a' and name ~= 'r' and not find(name, '^%d+$')) then return nil end
        value = tonumber(value)
        if name == 'r' then
            summary.rejected = summary.rejected + value
        elseif name == 'a' then
            summary.allowed = summary.allowed + value
        else
            local admitted, rejected = window_split(p, value)
            summary.allowed, summary.rejected = summary.allowed + admitted, summary.rejected + rejected
            if name == current then summary.count = value end
            if name == previous then summary.previous = value end
        end
    end
    return summary
end

-- A window's four numbers (see acquire_by_outcome) for a call of `cost` when `used` units of it are
-- admitted and it ends in `ends` ms.
local function window_numbers(p, used, cost, ends, peek)
    local limit = p.limit
    local ok = used + cost <= limit
    if ok and not peek then return true, limit - used - cost, -1, ends end
    return ok, limit - used, ok and -1 or ends, used > 0 and ends or 0
end

-- `count` is the window's count before this call. A call counted ahead (not peeking) is in the
-- hash `field`; `fresh` says it is the window's first; `stays` that it stays there if rejected.
local function window_outcome(p, id, count, cost, now, peek, field, fresh, previous, allowed, rejected)
    local ok, units, retry, reset = window_numbers(p, window_split(p, count), cost, (id + 1) * p.window_ms - now, peek)
    return {ok = ok, units = units, retry = retry, reset = reset, id = id, cost = cost,
            counted = not peek, stays = not peek and cost == 1, field = field, fresh = fresh,
            previous = previous, allowed = allowed, rejected = rejected}
end

-- The count of a first-call window (a string of digits) that a read of `key` failing with `err` met
-- instead of an aligned window's hash; nil when the key holds something else.
local function first_call_count(key, err)
    local value = find(err.err, '^WRONGTYPE') and read('GET', key)
    if value and #value <= MAX_CARRIED_DIGITS and find(value, '^%d+$') then return tonumber(value) end
    return nil
end

-- Counts the call in its window: the window id, its field and its count including the call. The
-- field's text is kept per policy: converting a number costs more than the call using it.
local function count_ahead(p, key, now, cost)
    local id = floor(now / p.window_ms)
    if p.window_id ~= id then p.window_id, p.window_field = id, tostring(id) end
    local field = p.window_field
    local count = redis_pcall('HINCRBY', key, field, cost == 1 and '1' or cost) -- (the common cost, not formatted)
    if type(count) ~= 'number' then
        local carried = first_call_count(key, count)
        if not carried then return nil, not_a_bucket(key, p, count) end
        -- Left by first-call windows (the policy's window start changed): their count goes on in the
        -- window in progress, so the change admits no call more than the limit. A timeout of 0 deletes
        -- the key (PEXPIRE is in the service's ACL role, DEL is not).
        redis_call('PEXPIRE', key, '0')
        count = redis_call('HINCRBY', key, field, carried + cost)
        -- Not the window's first call, so apply() gives it no expiry: the window's own, here.
        if carried > 0 then redis_call('PEXPIREAT', key, (id + 2) * p.window_ms) end
    end
    return id, field, count
end

-- The outcome of a call counted ahead.
local function counted_outcome(p, key, now, cost, id, field, count)
    local fresh, previous = count == cost, nil
    if fresh and redis_call('HLEN', key) > 1 then
        -- First call of this window on an older bucket: check the rest of it before use.
        local summary = window_fields(p, redis_call('HGETALL', key), id)
        if not summary then
            redis_call('HDEL', key, field) -- the count this call just created
            return nil, not_a_bucket(key, p)
        end
        previous = summary.previous
    end
    return window_outcome(p, id, count - cost, cost, now, false, field, fresh, previous)
end

function fixed_window.evaluate(p, key, now, cost, peek)
    if not peek then
        local id, field, count = count_ahead(p, key, now, cost)
        if not id then return nil, field end
        return counted_outcome(p, key, now, cost, id, field, count)
    end
    local id = floor(now / p.window_ms)
    local fields, err = read('HGETALL', key)
    if err then
        local carried = first_call_count(key, err)
        if not carried then return nil, not_a_bucket(key, p, err) end
        fields = {tostring(id), tostring(carried)} -- a first-call window's count, as the next call takes it on
    end
    local summary = window_fields(p, fields, id)
    if not summary then return nil, not_a_bucket(key, p) end
    return window_outcome(p, id, summary.count, cost, now, true, nil, false, nil, summary.allowed, summary.rejected)
end

function fixed_window.apply(p, key, st, verdict)
    if verdict == 'none' then
        -- As if the call never came: its count taken back, and a window field (or the whole key) that
        -- counting it created removed, so the bucket's content and expiry are what they were.
        if st.counted then
            if st.fresh then
                redis_call('HDEL', key, st.field)
            else
                redis_call('HINCRBY', key, st.field, -st.cost)
            end
        end
        return
    end
    local stays = verdict == 'consume' or (verdict == 'reject' and st.stays)
    if st.counted and not stays then redis_call('HINCRBY', key, st.field, -st.cost) end
    if verdict == 'reject' and not stays then redis_call('HINCRBY', key, 'r', 1) end
    if st.fresh then
        -- First call of a window: fold the previous window into `a` and `r`; the key lives one idle
        -- window.
        if st.previous then
            local admitted, rejected = window_split(p, st.previous)
            redis_call('HINCRBY', key, 'a', admitted)
            if rejected > 0 then redis_call('HINCRBY', key, 'r', rejected) end
            redis_call('HDEL', key, st.id - 1)
        end
        redis_call('PEXPIREAT', key, (st.id + 2) * p.window_ms)
    end
end

function fixed_window.acquire(p, key, now, cost)
    local id, field, count = count_ahead(p, key, now, cost)
    if not id then return nil, field end
    if count ~= cost then
        -- In a window already under way the count is all there is to write when the call fits,
        -- or when a call of cost 1 finds the window full.
        local limit, ends = p.limit, (id + 1) * p.window_ms - now
        if count <= limit then return true, limit - count, -1, ends end
        if cost == 1 then return false, 0, ends, ends end
    end
    local st, err = counted_outcome(p, key, now, cost, id, field, count)
    if not st then return nil, err end
    fixed_window.apply(p, key, st, st.ok and 'consume' or 'reject')
    return st.ok, st.units, st.retry, st.reset
end

-- Windows that open at a subject's first call (a policy's first_call): the bucket is a string holding
-- the window's count, created by that call and expiring when the window ends, so the key's expiry
-- times the window and the decision needs no clock (the server's clock still decides, through the
-- expiry). As in aligned windows, a call is counted first, a call that does not fit is taken back,
-- and a call of cost 1 finding the window full stays in the count: what the count holds above the
-- limit is rejections. Per key, the counts are those of the window in progress (the key goes with
-- it); a rejection taken back (cost above 1) is counted per policy only. A bucket left by aligned
-- windows (the policy's window start changed) goes on to the end of its window in progress.
local first_call_window = {}

-- Redis keeps a key until its expiry time has passed: a key given window_ms - 1 ms at the window's
-- first millisecond is there for exactly window_ms of them (a window of 1 ms is an aligned one).
local function open_window(p, key)
    redis_call('PEXPIRE', key, p.window_expiry)
end

-- Ms until the window in progress ends, from its key's remaining time; a count without expiry
-- (persisted by hand) is given a whole window, so no subject stays blocked for ever.
local function window_ends(p, key)
    local left = redis_call('PTTL', key)
    if left >= 0 then return left + 1 end
    if left == -1 then open_window(p, key) end
    return p.window_ms
end

-- The count at `now` of the aligned window whose hash a read of `key` failing with `err` met instead
-- of a first-call window's count (the mirror of first_call_count()), and that window's last ms;
-- nil when the key holds something else.
local function aligned_window_count(p, key, err, now)
    local fields = find(err.err, '^WRONGTYPE') and read('HGETALL', key)
    local id = floor(now / p.window_ms)
    local summary = fields and window_fields(p, fields, id)
    if not summary or summary.count >= 10 ^ MAX_CARRIED_DIGITS then return nil end
    return summary.count, (id + 1) * p.window_ms - 1
end

-- The call counted ahead: the window's count including it, or nil and why the key is no bucket.
-- An aligned window's hash under the key is replaced by a count that goes on to that window's end,
-- so the change of window start admits no call more than the limit.
local function count_first_call(p, key, now, cost)
    local count = redis_pcall('INCRBY', key, cost == 1 and '1' or cost) -- (the common cost, not formatted)
    if type(count) == 'number' then return count end
    local carried, last_ms = aligned_window_count(p, key, count, now)
    if not carried then return nil, not_a_bucket(key, p, count) end
    if carried == 0 then
        redis_call('SET', key, cost) -- the first call of a new window
        return cost
    end
    redis_call('SET', key, carried + cost, 'PXAT', last_ms) -- there up to that ms (see open_window())
    return carried + cost
end

function first_call_window.acquire(p, key, now, cost, lean)
    local count, err = count_first_call(p, key, now, cost)
    if not count then return nil, err end
    local limit = p.limit
    if count == cost then
        open_window(p, key)
        return true, limit - count, -1, p.window_ms
    end
    if count <= limit then
        -- The lean reply has no reset: the key's remaining time is read only for the full one.
        return true, limit - count, -1, lean and 0 or window_ends(p, key)
    end
    local ends = window_ends(p, key)
    if cost == 1 then return false, 0, ends, ends end
    redis_call('DECRBY', key, cost)
    local used = window_split(p, count - cost)
    return false, limit - used, ends, ends
end

function first_call_window.evaluate(p, key, now, cost, peek)
    local count, err, ends
    if peek then
        local value
        value, err = read('GET', key)
        count = 0
        if err then
            -- An aligned window's bucket: its window in progress, as the next call takes it on.
            local last_ms
            count, last_ms = aligned_window_count(p, key, err, now)
            if not count then return nil, not_a_bucket(key, p, err) end
            if count > 0 then ends = last_ms - now + 1 end
        elseif value then
            if not find(value, '^%d+$') then return nil, not_a_bucket(key, p) end
            count = tonumber(value)
        end
    else
        count, err = count_first_call(p, key, now, cost)
        if not count then return nil, err end
        count = count - cost
    end
    local fresh = not peek and count == 0
    if fresh then
        open_window(p, key)
    elseif count > 0 and not ends then
        ends = window_ends(p, key)
    end
    ends = ends or p.window_ms
    local used, rejected = window_split(p, count)
    local ok, units, retry, reset = window_numbers(p, used, cost, ends, peek)
    return {ok = ok, units = units, retry = retry, reset = reset, cost = cost, counted = not peek,
            fresh = fresh, allowed = used, rejected = rejected}
end

function first_call_window.apply(_, key, st, verdict)
    if not st.counted then return end
    if verdict == 'none' then
        if st.fresh then
            redis_call('PEXPIRE', key, '0') -- the window this call opened, removed (see count_ahead)
        else
            redis_call('DECRBY', key, st.cost)
        end
    elseif verdict == 'reject' and st.cost > 1 then
        redis_call('DECRBY', key, st.cost)
    end
end

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

-- sliding_log and concurrency keep a sorted set: entries with positive scores (admission time,
-- or lease expiry) named "<...>:<cost>", and bookkeeping members named "~x" whose scores are the
-- negated values (so a range over positive scores never touches them). Every score is finite: an
-- entry scored +inf would never end, a bookkeeping score of -inf is no count (Redis keeps no NaN).
local function zset_state(p, key)
    local rows, err = read('ZRANGE', key, '-inf', 0, 'BYSCORE', 'WITHSCORES')
    if err then return nil, not_a_bucket(key, p, err) end
    local meta = {a = 0, r = 0, u = 0, s = 0, t = 0}
    for i = 1, #rows, 2 do
        local name, value = rows[i], -tonumber(rows[i + 1])
        if byte(name, 1) ~= 126 or meta[sub(name, 2)] == nil or value == huge then return nil, not_a_bucket(key, p) end
        meta[sub(name, 2)] = value
    end
    if #redis_call('ZRANGE', key, '+inf', '+inf', 'BYSCORE', 'LIMIT', 0, 1) > 0 then
        return nil, not_a_bucket(key, p)
    end
    return meta
end

local function entry_cost(member)
    local _, _, cost = find(member, ':(%d+)$')
    return tonumber(cost)
end

-- Sum of the costs of entries scored in (0, upto].
local function ended_entries(p, key, upto)
    local members = redis_call('ZRANGE', key, '(0', upto, 'BYSCORE')
    local total = 0
    for i = 1, #members do
        local cost = entry_cost(members[i])
        if not cost then return nil, not_a_bucket(key, p) end
        total = total + cost
    end
    return total, #members
end

-- Score of the entry at which `needed` units have ended, walking live entries oldest first. Every
-- entry holds at least one unit, so no more entries are fetched than units are still missing.
local function score_freeing(key, after, needed)
    local freed, offset = 0, 0
    while true do
        local page = math.min(needed - freed, 256)
        local rows = redis_call('ZRANGE', key, '(' .. after, '+inf', 'BYSCORE', 'LIMIT', offset, page, 'WITHSCORES')
        for i = 1, #rows, 2 do
            freed = freed + (entry_cost(rows[i]) or 0)
            if freed >= needed then return tonumber(rows[i + 1]) end
        end
        if #rows < 2 * page then return nil end
        offset = offset + page
    end
end

-- An entry scored s ends at s + (now - ended_before): sliding_log scores admission times and its
-- entries end window_ms later; concurrency scores lease expiries. ~t is the newest score.
local function zset_evaluate(p, key, now, cost, peek, ended_before, new_score)
    local meta, err = zset_state(p, key)
    if not meta then return nil, err end
    local ended, count = ended_entries(p, key, ended_before)
    if not ended then return nil, count end
    local used, limit, offset = meta.u - ended, p.limit, now - ended_before
    local ok = used + cost <= limit
    local units, reset, retry = limit - used, used > 0 and max(meta.t + offset - now, 0) or 0, -1
    -- A cost above the limit never fits: decide() answers it, with no wait to look for.
    if not ok and cost <= limit then
        local score = score_freeing(key, ended_before, used + cost - limit)
        retry = score and score - ended_before or reset
    elseif not peek then
        units, reset = limit - used - cost, max(meta.t, new_score) + offset - now
    end
    return {ok = ok, units = units, retry = retry, reset = reset, meta = meta, used = used, ended = count,
            ended_before = ended_before, cost = cost, now = now, score = new_score, allowed = meta.a,
            rejected = meta.r}
end

local function zset_apply(p, key, st, verdict, member)
    if verdict == 'none' then return end
    if st.ended > 0 then redis_call('ZREMRANGEBYSCORE', key, '(0', st.ended_before) end
    local meta = st.meta
    if verdict == 'consume' then
        redis_call('ZADD', key, st.score, member, -(meta.a + 1), '~a', -(st.used + st.cost), '~u',
                   -(meta.s + 1), '~s', -max(meta.t, st.score), '~t')
    else
        redis_call('ZADD', key, -(meta.r + 1), '~r', -st.used, '~u')
    end
    redis_call('PEXPIRE', key, max(st.reset, p.window_ms))
end

-- sliding_log: entries scored by admission time; the trailing window is (now - window_ms, now].
local sliding_log = {}

function sliding_log.evaluate(p, key, now, cost, peek)
    return zset_evaluate(p, key, now, cost, peek, now - p.window_ms, now)
end

function sliding_log.apply(p, key, st, verdict)
    zset_apply(p, key, st, verdict, (st.meta.s + 1) .. ':' .. st.cost)
end

-- concurrency: entries are leases scored by their expiry, named "<id>:<cost>". The id is 64 bits of a
-- hash of the library's secret (drawn at publish), the key, the time and a sequence number, so
-- no caller can name another's lease to release it; the secret is read only with FUNCTION LIST
-- WITHCODE, which the service role cannot run.
local concurrency = {}

function concurrency.evaluate(p, key, now, cost, peek)
    return zset_evaluate(p, key, now, cost, peek, now, now + p.window_ms)
end

function concurrency.apply(p, key, st, verdict)
    local lease
    if verdict == 'consume' then
        lease = sub(sha1hex(LIBRARY.lease_secret .. key .. ':' .. st.now .. ':' .. (st.meta.s + 1)), 1, 16) .. ':'
            .. st.cost
    end
    zset_apply(p, key, st, verdict, lease)
    return lease
end

sliding_log.acquire = acquire_by_outcome(sliding_log)
concurrency.acquire = acquire_by_outcome(concurrency)

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

-- Checks one set of parameters and derives what the algorithms need; nil and a message if invalid.
local function prepare(p)
    if not ALGORITHMS[p.algorithm] then return nil, 'unknown algorithm ' .. shown(tostring(p.algorithm)) end
    local limit, window, burst = p.limit, p.window_ms, p.burst
    if not limit or limit < 1 or limit > MAX_COUNT or limit % 1 ~= 0 then
        return nil, 'limit must be a whole number from 1 to ' .. MAX_COUNT
    end
    if not window or window < 1 or window > MAX_WINDOW_MS or window % 1 ~= 0 then
        return nil, 'window_ms must be a whole number from 1 to ' .. MAX_WINDOW_MS
    end
    if not burst or burst < 1 or burst > MAX_COUNT or burst % 1 ~= 0 then
        return nil, 'burst must be a whole number from 1 to ' .. MAX_COUNT
    end
    local keeps_entries = p.algorithm == 'sliding_log' or p.algorithm == 'concurrency'
    if keeps_entries and limit > MAX_ENTRIES then
        return nil, 'limit must be at most ' .. MAX_ENTRIES .. ' for ' .. p.algorithm
    end
    local uses_burst = p.algorithm == 'token_bucket' or p.algorithm == 'gcra' or p.algorithm == 'leaky_bucket'
    if uses_burst then
        -- Every wait and expiry is at most the ms an empty bucket takes to fill, ceil(burst *
        -- window_ms / limit): below 2^52 they stay exact.
        local fill, rest = muldiv(burst, window, limit)
        if fill > MAX_FILL_MS or (fill == MAX_FILL_MS and rest > 0) then
            return nil, 'burst must be at most ' .. largest_burst(limit, window) .. ' with a limit of ' .. limit
                .. ' per ' .. window .. ' ms: an empty bucket must refill within 2^52 ms (burst / limit windows)'
        end
    end
    p.capacity = uses_burst and burst or limit
    p.wide = max(limit, p.capacity) * window > MAX_SCALED
    if not p.wide then p.full = p.capacity * window end
    p.impl = p.wide and WIDE[p.algorithm] or ALGORITHMS[p.algorithm]
    if p.first_call and window > 1 then
        p.impl = first_call_window
        p.window_expiry = tostring(window - 1) -- a number argument is formatted on every call
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

-- Per-policy decision counts: totals since the library was loaded and a ring of the last RING
-- seconds, kept in the library's memory (not in keys), so reading them costs the same however many
-- subjects there are. They restart from zero when the library is reloaded or Redis restarts;
-- `epoch` (the first time this copy saw) tells a reader that happened. The second in progress is
-- counted in `a` and `r` and moves into the ring when a later second begins (a clock that steps
-- back counts in the second in progress); totals hold the seconds already moved.
local RING = 64
local epoch = nil
local NAMES = {} -- the policy names, sorted

local function new_counts()
    return {ends = -1, a = 0, r = 0, allowed = 0, rejected = 0, seconds = {}, ring_a = {}, ring_r = {}}
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

local ready = false
local namespace_prefix -- "<namespace>:", where every policy's buckets are

local function setup()
    floor, ceil, find, sub, byte, gsub = math.floor, math.ceil, string.find, string.sub, string.byte, string.gsub
    pack, unpack, huge, sha1hex = struct.pack, struct.unpack, math.huge, redis.sha1hex
    redis_call, redis_pcall = redis.call, redis.pcall
    namespace_prefix = NAMESPACE .. ':'
    for name, p in pairs(POLICIES) do
        p.name = name
        p.prefix = namespace_prefix .. name .. ':{'
        p.longest_key = #p.prefix + MAX_SUBJECT + 1
        local ok, err = prepare(p)
        if not ok then error('sluice: policy ' .. shown(name) .. ': ' .. err) end
        p.stats = new_counts()
        p.top = new_top()
        NAMES[#NAMES + 1] = name
    end
    table.sort(NAMES)
    ready = true
end

local function subject_too_long(key, length)
    return 'the subject of key ' .. shown(key) .. ' is ' .. length .. ' bytes; the most is ' .. MAX_SUBJECT
        .. ' (as the key holds it, escaped)'
end

-- A key is `<namespace>:<policy>:{<subject>}`: the subject is the Cluster hash tag, so one
-- subject's buckets under several policies share a slot. The last key that passed is kept in
-- p.last_key, so acquire() skips the check for a hot subject.
local function check_key(key, p)
    local prefix = p.prefix
    local length = #key
    -- The prefix, a non-empty subject without braces and not too long, then the closing brace
    -- (checked without building substrings: this runs on every call).
    local start = #prefix + 1
    if length > start and length <= p.longest_key and find(key, prefix, 1, true) == 1
        and find(key, '}', start, true) == length and not find(key, '{', start, true) then
        p.last_key = key
        return nil
    end
    if length > p.longest_key and find(key, prefix, 1, true) == 1 then return subject_too_long(key, length - start) end
    return 'key ' .. shown(key) .. ' is not a bucket of policy ' .. shown(p.name) .. ' (expected '
        .. shown(prefix .. '<subject>}') .. ' with a non-empty subject without braces)'
end

-- sluice_check's keys never hold a policy's bucket, present or future, of this namespace or another:
-- every such bucket is `<namespace>:<policy>:{...}` and a policy name never starts with `~`. So a
-- check key is `<namespace>:~<label>:{<subject>}`, or `<label>:{<subject>}` (one pair of braces, the
-- subject the hash tag) of another shape (test fire's `<namespace>-fire:<run>:<n>:<policy>:{...}`).
local function check_key_problem(key)
    if find(key, namespace_prefix, 1, true) == 1 and byte(key, #namespace_prefix + 1) ~= 126 then -- '~'
        return 'key ' .. shown(key) .. ' is in namespace ' .. shown(NAMESPACE) .. ', where policies keep their '
            .. 'buckets: sluice_check keys there are ' .. shown(namespace_prefix .. '~<label>:{<subject>}')
    end
    if not find(key, '^[^{}]*:{[^{}]+}$') then
        return 'key ' .. shown(key) .. ' is not <label>:{<subject>} with a non-empty subject and no other braces'
    end
    -- Another namespace's buckets: `<namespace>:<policy>:{...}`, both names of letters, digits, _ . -
    if find(key, '^[%w_%.%-]+:[%w_%.%-]+:{') then
        return 'key ' .. shown(key) .. ' has the shape of a policy bucket (<namespace>:<policy>:{<subject>}): '
            .. 'sluice_check keys are ' .. shown(namespace_prefix .. '~<label>:{<subject>}')
            .. ' or outside every namespace'
    end
    local subject_length = #key - find(key, '{', 1, true) - 1
    if subject_length > MAX_SUBJECT then return subject_too_long(key, subject_length) end
end

-- Resolves `keys` and `args` (policy names, then an optional cost) into policies and a cost.
local function resolve(keys, args)
    local n, nargs = #keys, #args
    if n == 0 then return nil, 'name at least one bucket key and its policy' end
    if nargs ~= n and nargs ~= n + 1 then
        return nil, 'expected ' .. n .. ' policy name(s) after ' .. n .. ' key(s), then an optional cost; got '
            .. nargs .. ' argument(s)'
    end
    local cost = 1
    if nargs > n then
        cost = parse_count(args[nargs], MAX_COUNT)
        if not cost then
            return nil, 'cost must be a whole number from 1 to ' .. MAX_COUNT .. ', got ' .. shown(args[nargs])
        end
    end
    local policies = {}
    for i = 1, n do
        local p = POLICIES[args[i]]
        if not p then return nil, 'unknown policy ' .. shown(args[i]) end
        local bad_key = check_key(keys[i], p)
        if bad_key then return nil, bad_key end
        for j = 1, i - 1 do
            if policies[j] == p then return nil, 'policy ' .. shown(p.name) .. ' is named twice' end
        end
        policies[i] = p
    end
    return policies, cost
end

-- Whether rejection `a` waits longer than rejection `b`: one that can never pass waits longest.
local function waits_longer(a, b)
    if a.never or b.never then return a.never and not b.never end
    return a.retry > b.retry
end

-- A call that can never pass is read as a peek and counted, in a bucket that exists, as any
-- rejection; it creates no bucket (one that does not exist is full, and a full bucket needs no key).
local function count_never(p, key, st, now)
    if redis_call('PTTL', key) ~= -2 then p.impl.apply(p, key, st, 'reject', now) end
end

-- All-or-nothing over the policies: a call passes when no enforcing (non-shadow) policy rejects
-- it. Then every policy that admits it consumes, and shadow policies that would reject count a
-- rejection. When it is rejected nothing is consumed anywhere; each policy that rejected counts
-- it. The reply describes the deciding policy: the one with the longest wait when rejected (a
-- policy the call can never pass first), the tightest enforcing one when admitted. A call that
-- fails (a key of another type) changes nothing at all. Policies of sluice_check have no counts.
local function decide(keys, policies, cost, peek)
    local now = now_ms()
    local states = {}
    for i = 1, #policies do
        local p = policies[i]
        -- A cost above the capacity never fits; its bucket is only read.
        local never = cost > p.capacity
        local st, err = p.impl.evaluate(p, keys[i], now, cost, peek or never)
        if not st then
            if not peek then
                for j = 1, i - 1 do policies[j].impl.apply(policies[j], keys[j], states[j], 'none', now) end
            end
            return fail(err)
        end
        if never then st.ok, st.retry, st.never = false, NEVER, true end
        states[i] = st
    end

    local decider, blocked = nil, false
    for i = 1, #policies do
        local st = states[i]
        if not st.ok and not policies[i].shadow and (not blocked or waits_longer(st, states[decider])) then
            decider, blocked = i, true
        end
    end
    if not blocked then
        local best_rank, best_units
        for i = 1, #policies do
            local st = states[i]
            local rank = policies[i].shadow and 1 or 0 -- enforcing policies first
            if not decider or rank < best_rank or (rank == best_rank and st.units < best_units) then
                decider, best_rank, best_units = i, rank, st.units
            end
        end
    end

    local p, st = policies[decider], states[decider]
    local reply = {blocked and 0 or 1, st.units, blocked and st.retry or -1, st.reset, p.limit, p.name}
    if peek then return reply end
    for i = 1, #policies do
        local q, s = policies[i], states[i]
        local verdict = (not s.ok and 'reject') or (blocked and 'none') or 'consume'
        local extra
        if s.never then
            count_never(q, keys[i], s, now)
        else
            extra = q.impl.apply(q, keys[i], s, verdict, now)
        end
        if q.stats then -- none for sluice_check's parameters: no policy to count for
            if verdict == 'consume' then
                record_admission(q, now)
            elseif verdict == 'reject' then
                record_rejection(q, keys[i], now)
            end
        end
        if not blocked and q.extra then reply[#reply + 1] = extra or q.extra end
    end
    return reply
end

-- One key, one policy: the common call, decided in one pass without the bookkeeping of decide().
-- Parameters from sluice_check have no policy, so nothing to count per policy. `lean` replies with
-- sluice_allow's three elements (see lean_reply()) instead of the six of sluice_acquire.
local function decide_one(key, p, cost, lean)
    local now = now_ms()
    local ok, units, retry, reset, extra = p.impl.acquire(p, key, now, cost, lean)
    if ok == nil then return fail(units) end
    local s = p.stats
    if ok then
        if s then -- record_admission(), written out: a Lua call costs about as much as the counting
            if now >= s.ends then roll(s, now) end
            s.a = s.a + 1
        end
        if lean then
            local reply = p.lean
            reply[1], reply[2], reply[3] = 1, units, extra or 0
            return reply
        end
        local reply = p.reply -- refilled on every call: a new table costs more than the decision
        reply[1], reply[2], reply[3], reply[4], reply[7] = 1, units, -1, reset, extra
        return reply
    end
    if s then
        -- record_rejection(), written out for a key the summary counts already, in the second and period in
        -- progress: a hot key's rejections, the common case of the deny path.
        local t = p.top
        local n = t.counts[key]
        if n and now < s.ends and now < t.ends then
            s.r, t.counts[key] = s.r + 1, n + 1
        else
            record_rejection(p, key, now)
        end
    end
    if lean then
        local reply = p.lean
        if p.shadow then
            reply[1], reply[2], reply[3] = 1, units, 0
        else
            reply[1], reply[2], reply[3] = 0, units, retry
        end
        return reply
    end
    local reply = p.reply
    if p.shadow then
        reply[1], reply[2], reply[3], reply[4], reply[7] = 1, units, -1, reset, p.extra
    else
        reply[1], reply[2], reply[3], reply[4], reply[7] = 0, units, retry, reset, nil
    end
    return reply
end

-- sluice_allow's reply from a full one: {allowed, remaining, wait_ms}, wait_ms being the retry after a
-- rejection (NEVER when the call can never pass) and, after an admission, the longest queue delay of
-- its leaky buckets, else 0.
local function lean_reply(reply)
    if reply[1] == 0 then return {0, reply[2], reply[3]} end
    local wait = 0
    for i = 7, #reply do wait = max(wait, reply[i]) end
    return {1, reply[2], wait}
end

-- sluice_acquire, and with `lean` sluice_allow (whose callers never pass a third argument).
local function acquire(keys, args, lean)
    if not ready then setup() end -- registered without register()'s wrapper
    if #keys == 1 then
        local p, cost = POLICIES[args[1]], 1
        if #args == 2 then cost = parse_count(args[2], MAX_COUNT) end
        local key = keys[1]
        if p and cost and #args <= 2 and cost <= p.capacity and (key == p.last_key or not check_key(key, p))
            and (not lean or p.lean) then
            return decide_one(key, p, cost, lean)
        end
    end
    -- Several policies, or something to report: resolve() names the problem.
    local policies, cost = resolve(keys, args)
    if not policies then return fail(cost) end
    if not lean then return decide(keys, policies, cost, false) end
    for i = 1, #policies do
        if not policies[i].lean then
            return fail('policy ' .. shown(policies[i].name) .. ' is a concurrency policy: sluice_acquire returns '
                .. 'the lease id its callers release')
        end
    end
    local reply = decide(keys, policies, cost, false)
    if reply.err then return reply end
    return lean_reply(reply)
end

-- FCALL sluice_allow <n> <key>... <policy>... [cost]: sluice_acquire's decision, counted the same way
-- (in the bucket and per policy), for callers that need only {allowed, remaining, wait_ms}.
local function allow(keys, args)
    return acquire(keys, args, true)
end

local function peek(keys, args)
    local policies, cost = resolve(keys, args)
    if not policies then return fail(cost) end
    return decide(keys, policies, cost, true)
end

-- FCALL sluice_check 1 <key> <algorithm> <limit> <window_ms> <burst> [cost [window_start]]: the same
-- decision with explicit parameters, for callers that keep their own configuration, on keys apart
-- from every policy's (check_key_problem()). Not counted per policy. window_start is aligned (the
-- default) or first_call, for a fixed window.
local function check(keys, args)
    if #keys ~= 1 then return fail('sluice_check takes exactly one key') end
    if #args < 4 or #args > 6 then
        return fail('expected <algorithm> <limit> <window_ms> <burst> [cost [window_start]]; got ' .. #args
            .. ' argument(s)')
    end
    local bad_key = check_key_problem(keys[1])
    if bad_key then return fail(bad_key) end
    local names = {'limit', 'window_ms', 'burst'}
    local p = {algorithm = args[1], name = args[1]}
    for i = 1, 3 do
        p[names[i]] = parse_count(args[i + 1], 9999999999)
        if not p[names[i]] then return fail(names[i] .. ' must be a whole number, got ' .. shown(args[i + 1])) end
    end
    local window_start = args[6] or 'aligned'
    if window_start ~= 'aligned' and (window_start ~= 'first_call' or p.algorithm ~= 'fixed_window') then
        return fail('window_start must be aligned, or first_call for a fixed window; got ' .. shown(window_start))
    end
    p.first_call = window_start == 'first_call'
    local ok, err = prepare(p)
    if not ok then return fail(err) end
    local cost = 1
    if #args >= 5 then
        cost = parse_count(args[5], MAX_COUNT)
        if not cost then
            return fail('cost must be a whole number from 1 to ' .. MAX_COUNT .. ', got ' .. shown(args[5]))
        end
    end
    if cost > p.capacity then return decide(keys, {p}, cost, false) end -- never passes: the rare path
    return decide_one(keys[1], p, cost)
end

-- FCALL sluice_release 1 <key> <policy> <lease>: ends a concurrency lease. 1 if it was held,
-- 0 if it had already ended or was never granted.
local function release(keys, args)
    if #keys ~= 1 or #args ~= 2 then return fail('expected 1 key, then <policy> <lease>') end
    local p = POLICIES[args[1]]
    if not p then return fail('unknown policy ' .. shown(args[1])) end
    if p.algorithm ~= 'concurrency' then return fail('policy ' .. shown(p.name) .. ' is not a concurrency policy') end
    local bad_key = check_key(keys[1], p)
    if bad_key then return fail(bad_key) end
    local lease = args[2]
    local cost = find(lease, '^%x+:%d+$') and entry_cost(lease)
    if not cost then return fail('lease must be a lease id returned by sluice_acquire, got ' .. shown(lease)) end
    local expiry, err = read('ZSCORE', keys[1], lease)
    if err then return fail(not_a_bucket(keys[1], p, err)) end
    if not expiry then return 0 end
    redis_call('ZREM', keys[1], lease)
    -- ~t, the newest expiry, is what the lease's bucket is full again at: the latest one still held.
    local newest = redis_call('ZRANGE', keys[1], '+inf', '(0', 'BYSCORE', 'REV', 'LIMIT', 0, 1, 'WITHSCORES')
    redis_call('ZADD', keys[1], -(tonumber(newest[2]) or 0), '~t')
    redis_call('ZINCRBY', keys[1], cost, '~u')
    return tonumber(expiry) > now_ms() and 1 or 0
end

-- FCALL_RO sluice_inspect 1 <key> <policy>: a bucket's state as field/value pairs, for dashboards.
local function inspect(keys, args)
    if #keys ~= 1 or #args ~= 1 then return fail('expected 1 key, then <policy>') end
    local policies, failure = resolve(keys, args)
    if not policies then return fail(failure) end
    local p = policies[1]
    local now = now_ms()
    local st, err = p.impl.evaluate(p, keys[1], now, 1, true)
    if not st then return fail(err) end
    local ttl = redis_call('PTTL', keys[1])
    return {'policy', p.name, 'algorithm', p.algorithm, 'available', st.units, 'capacity', p.capacity,
            'reset_after_ms', st.reset, 'retry_after_ms', st.retry,
            'allowed', st.allowed, 'rejected', st.rejected, 'ttl_ms', ttl, 'now_ms', now}
end

-- FCALL_RO sluice_stats 0 [since_second]: [now_ms, epoch_ms, then per policy: name, allowed total,
-- rejected total, [second, allowed, rejected, ...] for complete seconds after since_second].
local function stats(_, args)
    local now = now_ms()
    epoch = epoch or now
    local current = floor(now / 1000)
    local since = tonumber(args[1] or '') or (current - RING)
    local reply = {now, epoch}
    for _, name in ipairs(NAMES) do
        local s = POLICIES[name].stats
        local series = {}
        for second = max(since + 1, current - RING + 1), current - 1 do
            local slot = second % RING + 1
            local a, r
            if s.second == second then
                a, r = s.a, s.r
            elseif s.seconds[slot] == second then
                a, r = s.ring_a[slot], s.ring_r[slot]
            end
            if a then
                series[#series + 1] = second
                series[#series + 1] = a
                series[#series + 1] = r
            end
        end
        reply[#reply + 1] = name
        reply[#reply + 1] = s.allowed + s.a
        reply[#reply + 1] = s.rejected + s.r
        reply[#reply + 1] = series
    end
    return reply
end

-- FCALL_RO sluice_top 0 <policy> [count]: [now_ms, since_ms, then per subject, most rejected first:
-- subject, rejections, overestimate] for the rejections since since_ms (the start of the previous
-- period, or of the current one when the previous saw none). At most `count` subjects (TOP_SIZE).
local function top(_, args)
    if #args < 1 or #args > 2 then return fail('expected <policy> [count]') end
    local p = POLICIES[args[1]]
    if not p then return fail('unknown policy ' .. shown(args[1])) end
    local wanted = TOP_SIZE
    if args[2] then
        wanted = parse_count(args[2], TOP_SIZE)
        if not wanted then
            return fail('count must be a whole number from 1 to ' .. TOP_SIZE .. ', got ' .. shown(args[2]))
        end
    end
    local now = now_ms()
    local t = p.top
    local periods = {}
    -- t is the period in progress until it ends, then the previous one for one more period.
    if now < t.ends and t.previous then periods[1] = t.previous end
    if now < t.ends + TOP_PERIOD_MS then periods[#periods + 1] = t end
    local merged, over, keys = {}, {}, {}
    for _, period in ipairs(periods) do
        for key, n in pairs(period.counts) do
            if not merged[key] then keys[#keys + 1] = key end
            merged[key] = (merged[key] or 0) + n
            over[key] = (over[key] or 0) + (period.over[key] or 0)
        end
    end
    table.sort(keys, function(a, b)
        if merged[a] ~= merged[b] then return merged[a] > merged[b] end
        return a < b
    end)
    local reply = {now, periods[1] and periods[1].starts or now}
    local skip = #p.prefix
    for i = 1, math.min(wanted, #keys) do
        local key = keys[i]
        reply[#reply + 1] = sub(key, skip + 1, -2)
        reply[#reply + 1] = merged[key]
        reply[#reply + 1] = over[key]
    end
    return reply
end

-- FCALL_RO sluice_version 0: [version, digest, code version, policy count, namespace, database].
local function version()
    return {LIBRARY.version, LIBRARY.digest, LIBRARY.code, #NAMES, NAMESPACE, DATABASE}
end

-- FCALL_RO sluice_policies 0: the compiled policy table, one array per policy, sorted by name.
local function policies()
    local reply = {}
    for _, name in ipairs(NAMES) do
        local p = POLICIES[name]
        reply[#reply + 1] = {name, p.algorithm, p.limit, p.window_ms, p.burst, p.shadow and 1 or 0, p.description,
                             p.first_call and 1 or 0}
    end
    return reply
end

-- `callback` is set up for on its first call by a wrapper, unless it `sets_up` itself: the hot entry
-- points do, since the wrapper's call costs them about a fortieth of a rejection.
local function register(name, callback, read_only, sets_up)
    local entry = callback
    if not sets_up then
        entry = function(keys, args)
            if not ready then setup() end
            return callback(keys, args)
        end
    end
    redis.register_function{function_name = name, callback = entry, flags = read_only and {'no-writes'} or {}}
end

-- Each namespace and database has a library of its own (functions are server-wide), and its functions
-- carry the library's name: sluice_acquire in namespace sluice, database 0; sluice_teamb_acquire ...
local function register_all(functions)
    for i = 1, #functions do -- no ipairs here: the load context has no globals
        local f = functions[i]
        register(LIBRARY.name .. '_' .. f[1], f[2], f[3], f[4])
    end
end

register_all {
    {'acquire', acquire, false, true}, {'allow', allow, false, true}, {'peek', peek, true}, {'check', check}, {'release', release},
    {'inspect', inspect, true}, {'stats', stats, true}, {'top', top, true}, {'version', version, true},
    {'policies', policies, true},
}
