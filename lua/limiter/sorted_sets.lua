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

