-- The sluice limiter: the static part of the Functions library. The publisher puts in front of it
-- LIBRARY (name, version, digest, code, lease secret), NAMESPACE, DATABASE, POLICIES (the policy table:
-- data only, as escaped literals), LISTS (the namespace's allow and deny lists, one string) and now_ms
-- (clock.lua). See lua/README.md for the contract and the storage layouts.
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
    local cut = sub(text, 1, 80)
    -- A character cut at the 80th byte goes whole, so that the message stays valid UTF-8.
    if find(sub(text, 81, 81), '^[\128-\191]') then cut = gsub(cut, '[\192-\255][\128-\191]*$', '') end
    local quoted = gsub(cut, '[%c"\\]', '?')
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

