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
-- counters; nil and a message for foreign data. Given a debt record (see sliding_window_with_debt), the
-- counts include what the debt carried into them, and the units left exclude what is still owed beyond
-- the window in progress (returned last).
local function sliding_state(p, key, now, debt_id, debt)
    local expires, stored_id, previous, current, allowed, rejected = packed_state(p, key, SLIDING_TAG, FIVE, FIVE_SIZE)
    if expires == nil then return nil, stored_id end
    local window, limit = p.window_ms, p.limit
    local id = floor(now / window)
    local elapsed = now - id * window
    local prev, curr, owed = 0, 0, 0
    if stored_id == id then
        prev, curr = previous, current
    elseif stored_id == id - 1 then
        prev = current
    end
    if debt_id then
        prev = prev + debt_carried(p, debt_id, debt, id - 1)
        local carried
        carried, owed = debt_carried(p, debt_id, debt, id)
        curr = curr + carried
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
    return expires, id, elapsed, prev, curr, limit - curr - owed - weighted, allowed, rejected, owed
end

-- Ms until the bucket's counts (and the debt `owed` beyond this window) are gone, when nothing is consumed.
local function sliding_reset(p, elapsed, prev, curr, owed)
    if owed > 0 then return (ceil(owed / p.limit) + 2) * p.window_ms - elapsed end
    if curr > 0 then return p.window_ms - elapsed + p.window_ms end
    if prev > 0 then return p.window_ms - elapsed end
    return 0
end

-- Ms until a call of `cost` that does not fit now would, `owed` units being owed beyond this window.
local function sliding_retry(p, elapsed, prev, curr, cost, owed)
    local window, limit = p.window_ms, p.limit
    -- Earliest elapsed time e in this window with prev * (window - e) <= room * window.
    local room = limit - curr - owed - cost
    local at = window
    if room >= 0 and prev > 0 then at = window - quotient(p, room, window, prev) end
    if at < window then return at - elapsed end
    local ahead, weighing = window - elapsed, curr -- ms to the next window; the count weighing on it
    if owed > 0 then
        -- The last window the debt is carried into, `windows` on: it counts `last` (the debt's rest) after
        -- one that counted `before` (a whole limit while the debt was carried).
        local windows = ceil(owed / limit)
        local last = owed - (windows - 1) * limit
        local before = windows > 1 and limit or curr
        ahead = ahead + (windows - 1) * window
        room = limit - last - cost
        if room >= 0 then
            at = before > 0 and window - quotient(p, room, window, before) or 0
            if at < window then return ahead + (at > 0 and at or 0) end
        end
        ahead, weighing = ahead + window, last
    end
    -- In the window `ahead` ms away nothing is current, and `weighing` is the weighted count.
    local later = 0
    if weighing > limit - cost then later = window - quotient(p, limit - cost, window, weighing) end
    return ahead + later
end

-- Given a debt record (debt_id, debt), its carries and what is owed count (sliding_window_with_debt).
function sliding_window.evaluate(p, key, now, cost, peek, debt_id, debt)
    local expires, id, elapsed, prev, curr, free, allowed, rejected, owed = sliding_state(p, key, now, debt_id, debt)
    if expires == nil then return nil, id end
    local ok = cost <= free
    local units, retry, reset = free, -1, nil
    if ok and not peek then
        units, reset = free - cost, p.window_ms - elapsed + p.window_ms
        if owed > 0 then reset = sliding_reset(p, elapsed, prev, curr + cost, owed) end
    else
        reset = sliding_reset(p, elapsed, prev, curr, owed)
        if not ok then retry = sliding_retry(p, elapsed, prev, curr, cost, owed) end
    end
    return {ok = ok, units = units, retry = retry, reset = reset, id = id, prev = prev, curr = curr, cost = cost,
            expires = expires, allowed = allowed, rejected = rejected, owed = owed, debt_id = debt_id}
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
    return false, free, sliding_retry(p, elapsed, prev, curr, cost, 0), sliding_reset(p, elapsed, prev, curr, 0)
end

-- A settled reservation's excess beyond what the estimate had left is debt (a policy with max_debt only),
-- kept beside the bucket in `<bucket key>:debt` (the same slot) as a fixed window keeps it, "<window
-- id>:<units>", the units owed beyond that window: each window that passes pays up to `limit` of it, a
-- window takes what is left, up to `limit`, into its count (where it weighs on the next as calls do), and
-- what is still owed beyond the window in progress counts whole. The subject is rejected until it is paid.
-- A policy without max_debt reads no record, so dropping max_debt forgives the debt.
local DEBT = ':debt'
local sliding_window_with_debt = {}

-- The debt record beside the bucket at `key`: its window id and units; false and 0 when there is none;
-- nil and why for foreign data.
local function read_debt(p, key)
    local value, err = read('GET', key .. DEBT)
    if err then return nil, not_a_bucket(key .. DEBT, p, err) end
    if not value then return false, 0 end
    local debt_id, debt = debt_record(value)
    if not debt_id then return nil, not_a_bucket(key .. DEBT, p) end
    return debt_id, debt
end

-- Writes the debt owed beyond window `id`, living until the last window it weighs on ends; removes the
-- record when nothing is owed (a timeout of 0: the service's ACL role has no DEL).
local function write_debt(p, key, id, owed)
    if owed > 0 then
        redis_call('SET', key .. DEBT, id .. ':' .. owed, 'PXAT', debt_expiry(p, id, owed))
    else
        redis_call('PEXPIRE', key .. DEBT, '0')
    end
end

function sliding_window_with_debt.evaluate(p, key, now, cost, peek)
    local debt_id, debt = read_debt(p, key)
    if debt_id == nil then return nil, debt end
    return sliding_window.evaluate(p, key, now, cost, peek, debt_id, debt)
end

-- A call admitted in a window after the record's has taken the carried debt into the counts it wrote. A
-- debt outlives the bucket's counts, so a rejection may find no bucket: it is counted per policy only
-- (the rejection counter's write would create a key that is no bucket).
function sliding_window_with_debt.apply(p, key, st, verdict, now)
    if verdict == 'reject' and not st.expires then return end
    sliding_window.apply(p, key, st, verdict, now)
    if verdict == 'consume' and st.debt_id and st.debt_id ~= st.id then write_debt(p, key, st.id, st.owed) end
end

sliding_window_with_debt.acquire = acquire_by_outcome(sliding_window_with_debt)

-- Settles a reservation of this bucket's subject (see reservations.lua) as fixed_window.settle does, a
-- refund in the window the reservation was counted in or the next (its units weigh on both), from the
-- debt first. Returns the units not charged, the units left (negative in debt) and the units of a
-- refund not given back.
function sliding_window.settle(p, key, now, diff, reserved_at)
    local debt_id, debt = false, 0
    if p.max_debt then
        debt_id, debt = read_debt(p, key)
        if debt_id == nil then return nil, debt end
    end
    local expires, id, elapsed, prev, curr, free, allowed, rejected, owed = sliding_state(p, key, now, debt_id, debt)
    if expires == nil then return nil, id end
    local uncharged, kept = 0, 0
    if diff < 0 then
        local reserved_in = floor(reserved_at / p.window_ms)
        if reserved_in < id - 1 then
            kept = -diff
        else
            local from_debt = -diff < owed and -diff or owed
            owed = owed - from_debt
            -- (Never below 0, even for a bucket reset or evicted while the reservation was pending.)
            if reserved_in == id then curr = max(0, curr + diff + from_debt) else prev = max(0, prev + diff + from_debt) end
        end
    else
        local into_window = free < diff and free or diff
        if into_window < 0 then into_window = 0 end
        local into_debt = (p.max_debt or 0) - owed
        if into_debt > diff - into_window then into_debt = diff - into_window elseif into_debt < 0 then into_debt = 0 end
        curr, owed, uncharged = curr + into_window, owed + into_debt, diff - into_window - into_debt
    end
    write_packed(p, key, TAGGED_FIVE, now, sliding_reset(p, elapsed, prev, curr, owed), expires, SLIDING_TAG, id, prev,
                 curr, allowed, rejected)
    if debt_id or owed > 0 then write_debt(p, key, id, owed) end
    -- The units left, read back as a call would see them.
    local _, _, _, _, _, left = sliding_state(p, key, now, owed > 0 and id, owed)
    return uncharged, left, kept
end

