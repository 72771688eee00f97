-- Windows are aligned to the epoch (multiples of window_ms since 1970-01-01 UTC). The bucket is a
-- hash: one field per window id holding its count, `a` the units admitted in finished windows, `r`
-- the rejections not kept in a window's count. An acquire counts the call first (one write on the
-- common path). A call that does not fit is taken back and counted in `r`, except a call of cost
-- 1 finding its window full: it stays in the count, so a flood of rejections costs one write each,
-- and whatever a window's count holds above the limit is rejections. (After the limit changes in
-- the middle of a window, those rejections count against the new limit until the window ends.)
--
-- A settled reservation's excess beyond a full window is debt (`d`: "<window id>:<units>", a policy with
-- max_debt only): each window that passes pays up to `limit` of it, and the first call of a later window
-- takes what is left into that window's count, so the subject is rejected until it is paid.
local fixed_window = {}

-- Calendar windows (a policy's `calendar`): days from midnight, weeks from Monday, and months from
-- anchor_day (on a shorter month its last day), on the server's clock at a fixed offset from UTC
-- (p.offset_ms). A window's id numbers days, weeks or months since the epoch, so the one before has
-- id - 1 as for aligned windows. Dates are proleptic Gregorian: days since 1970-01-01 to a date and
-- back by whole-number arithmetic (the era of 400 years, then the year from March, so that February
-- and its 29th come last).
local DAY_MS = 86400000

local function days_from_civil(y, m, d)
    if m <= 2 then y = y - 1 end
    local era = floor(y / 400)
    local year_of_era = y - era * 400
    local day_of_year = floor((153 * ((m + 9) % 12) + 2) / 5) + d - 1
    local day_of_era = year_of_era * 365 + floor(year_of_era / 4) - floor(year_of_era / 100) + day_of_year
    return era * 146097 + day_of_era - 719468
end

local function civil_from_days(days)
    days = days + 719468
    local era = floor(days / 146097)
    local day_of_era = days - era * 146097
    local year_of_era = floor((day_of_era - floor(day_of_era / 1460) + floor(day_of_era / 36524)
        - floor(day_of_era / 146096)) / 365)
    local day_of_year = day_of_era - (365 * year_of_era + floor(year_of_era / 4) - floor(year_of_era / 100))
    local march_month = floor((5 * day_of_year + 2) / 153)
    local m = march_month < 10 and march_month + 3 or march_month - 9
    return year_of_era + era * 400 + (m <= 2 and 1 or 0), m
end

-- When the window of month id `k` (year * 12 + month - 1) begins, in ms since the epoch.
local function month_start(p, k)
    local y, m = floor(k / 12), k % 12 + 1
    local first = days_from_civil(y, m, 1)
    local length = days_from_civil(m == 12 and y + 1 or y, m == 12 and 1 or m + 1, 1) - first
    local day = p.anchor_day
    if day > length then day = length end
    return (first + day - 1) * DAY_MS - p.offset_ms
end

local function calendar_id(p, now)
    local day = floor((now + p.offset_ms) / DAY_MS)
    if p.calendar == 'day' then return day end
    if p.calendar == 'week' then return floor((day + 3) / 7) end -- 1970-01-01 was a Thursday
    local y, m = civil_from_days(day)
    local k = y * 12 + m - 1
    if now < month_start(p, k) then k = k - 1 end
    return k
end

-- When calendar window `id` ends: the next one's start.
local function calendar_end(p, id)
    if p.calendar == 'day' then return (id + 1) * DAY_MS - p.offset_ms end
    if p.calendar == 'week' then return ((id + 1) * 7 - 3) * DAY_MS - p.offset_ms end
    return month_start(p, id + 1)
end

-- A bucket lives one idle window after the window `id`: to the end of the next.
local function window_expiry(p, id)
    if p.calendar then return calendar_end(p, id + 1) end
    return (id + 2) * p.window_ms
end

-- A window's count read back: the units admitted in it and the rejections it holds.
local function window_split(p, count)
    if count > p.limit then return p.limit, count - p.limit end
    return count, 0
end

-- A debt record, "<window id>:<units>" (the units owed beyond that window): the id and the units; nil
-- for anything else.
local function debt_record(value)
    local _, _, at, units = find(value, '^(%d+):(%d+)$')
    if not at or #units > MAX_CARRIED_DIGITS then return nil end
    return tonumber(at), tonumber(units)
end

-- Reads a fixed_window hash: nil when it holds anything but `a`, `r`, `d` and window counts. The
-- windows before `id` are `stale` (folded into `a` and `r` by the next first call of a window).
local function window_fields(p, fields, id)
    local summary = {count = 0, allowed = 0, rejected = 0, stale = {}, stale_admitted = 0, stale_rejected = 0,
                     debt = 0, debt_id = id}
    local current = tostring(id)
    for i = 1, #fields, 2 do
        local name, value = fields[i], fields[i + 1]
        if name == 'd' then
            summary.debt_id, summary.debt = debt_record(value)
            if not summary.debt_id then return nil end
        elseif not find(value, '^%d+$') or (name ~= 'a' and name ~= 'r' and not find(name, '^%d+$')) then
            return nil
        else
            value = tonumber(value)
            if name == 'r' then
                summary.rejected = summary.rejected + value
            elseif name == 'a' then
                summary.allowed = summary.allowed + value
            else
                local admitted, rejected = window_split(p, value)
                summary.allowed, summary.rejected = summary.allowed + admitted, summary.rejected + rejected
                if name == current then
                    summary.count = value
                else
                    summary.stale[#summary.stale + 1] = name
                    summary.stale_admitted = summary.stale_admitted + admitted
                    summary.stale_rejected = summary.stale_rejected + rejected
                end
            end
        end
    end
    return summary
end

-- A debt of `debt` units beyond window `debt_id` as window `id` takes it on: what the windows in between
-- paid (`limit` each) gone, then up to `limit` of it carried into the window's count; the units carried
-- and the debt left.
local function debt_carried(p, debt_id, debt, id)
    if debt == 0 or debt_id >= id then return 0, debt end
    local left = debt - (id - debt_id - 1) * p.limit
    if left <= 0 then return 0, 0 end
    if left <= p.limit then return left, 0 end
    return p.limit, left - p.limit
end

local function window_end(p, id)
    return p.calendar and calendar_end(p, id) or (id + 1) * p.window_ms
end

-- The bucket of a subject in debt lives until its debt is paid, then one idle window.
local function debt_expiry(p, id, debt)
    return window_expiry(p, id + ceil(debt / p.limit))
end

-- Folds the windows before the one in progress into `a` and `r`, and writes the debt left.
local function settle_windows(p, key, summary, id, debt)
    if #summary.stale > 0 then
        redis_call('HINCRBY', key, 'a', summary.stale_admitted)
        if summary.stale_rejected > 0 then redis_call('HINCRBY', key, 'r', summary.stale_rejected) end
        for _, field in ipairs(summary.stale) do redis_call('HDEL', key, field) end
    end
    if debt > 0 then
        redis_call('HSET', key, 'd', id .. ':' .. debt)
    elseif summary.debt > 0 then
        redis_call('HDEL', key, 'd')
    end
end

-- A window's four numbers (see acquire_by_outcome) for a call of `cost` when `used` units of it are
-- admitted and it ends in `ends` ms.
local function window_numbers(p, used, cost, ends, peek)
    local limit = p.limit
    local ok = used + cost <= limit
    if ok and not peek then return true, limit - used - cost, -1, ends end
    return ok, limit - used, ok and -1 or ends, used > 0 and ends or 0
end

-- The numbers of a call of `cost` in window `id` of a subject `debt` units in debt (its window full):
-- the units left, negative, and the ms until the call fits and until the bucket is empty, a window paying
-- `limit` of the debt.
local function debt_numbers(p, id, debt, cost, now)
    local limit = p.limit
    local windows = ceil((debt + cost - limit) / limit)
    if windows < 0 then windows = 0 end
    return false, -debt, window_end(p, id + windows) - now, window_end(p, id + ceil(debt / limit)) - now
end

-- `count` is the window's count before this call (the debt carried in included, `debt` what is left of
-- it). A call counted ahead (not peeking) is in the hash `field`; `fresh` says it is the window's first;
-- `stays` that it stays there if rejected; `carried` the debt a first call takes in.
local function window_outcome(p, id, count, cost, now, peek, field, fresh, summary, carried, debt)
    local ok, units, retry, reset
    if debt > 0 then
        ok, units, retry, reset = debt_numbers(p, id, debt, cost, now)
    else
        -- Inline, not window_end(): a function call would cost a window's first call as much as this arithmetic.
        local ends = (p.calendar and calendar_end(p, id) or (id + 1) * p.window_ms) - now
        ok, units, retry, reset = window_numbers(p, window_split(p, count), cost, ends, peek)
    end
    return {ok = ok, units = units, retry = retry, reset = reset, id = id, cost = cost,
            counted = not peek, stays = not peek and cost == 1, field = field, fresh = fresh,
            summary = summary, carried = carried, debt = debt,
            allowed = peek and summary.allowed or nil, rejected = peek and summary.rejected or nil}
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
    local id = p.calendar and calendar_id(p, now) or floor(now / p.window_ms)
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
        if carried > 0 then redis_call('PEXPIREAT', key, window_expiry(p, id)) end
    end
    return id, field, count
end

-- The outcome of a call counted ahead. The rest of the bucket is read on a window's first call (to
-- check it, fold the windows before and carry a debt in) and, for a policy that can be in debt, on a
-- call that does not fit (a debt changes its numbers).
local function counted_outcome(p, key, now, cost, id, field, count)
    local fresh, summary, carried, debt = count == cost, nil, 0, 0
    if (fresh and redis_call('HLEN', key) > 1) or (p.max_debt and count > p.limit) then
        summary = window_fields(p, redis_call('HGETALL', key), id)
        if not summary then
            if fresh then
                redis_call('HDEL', key, field) -- the count this call just created
            else
                redis_call('HINCRBY', key, field, -cost)
            end
            return nil, not_a_bucket(key, p)
        end
        carried, debt = debt_carried(p, summary.debt_id, summary.debt, id)
    end
    return window_outcome(p, id, count - cost + carried, cost, now, false, field, fresh, summary, carried, debt)
end

function fixed_window.evaluate(p, key, now, cost, peek)
    if not peek then
        local id, field, count = count_ahead(p, key, now, cost)
        if not id then return nil, field end
        return counted_outcome(p, key, now, cost, id, field, count)
    end
    local id = p.calendar and calendar_id(p, now) or floor(now / p.window_ms)
    local fields, err = read('HGETALL', key)
    if err then
        local carried = first_call_count(key, err)
        if not carried then return nil, not_a_bucket(key, p, err) end
        fields = {tostring(id), tostring(carried)} -- a first-call window's count, as the next call takes it on
    end
    local summary = window_fields(p, fields, id)
    if not summary then return nil, not_a_bucket(key, p) end
    local carried, debt = debt_carried(p, summary.debt_id, summary.debt, id)
    return window_outcome(p, id, summary.count + carried, cost, now, true, nil, false, summary, carried, debt)
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
    if st.counted and st.carried > 0 then redis_call('HINCRBY', key, st.field, st.carried) end
    if st.fresh then
        -- First call of a window: fold the windows before into `a` and `r`, write the debt left; the key
        -- lives until the debt is paid, then one idle window.
        if st.summary then settle_windows(p, key, st.summary, st.id, st.debt) end
        redis_call('PEXPIREAT', key, st.debt > 0 and debt_expiry(p, st.id, st.debt) or window_expiry(p, st.id))
    end
end

-- An acquire's general path, for a call counted ahead: its outcome, applied, as the reply's numbers.
local function decide_counted(p, key, now, cost, id, field, count)
    local st, err = counted_outcome(p, key, now, cost, id, field, count)
    if not st then return nil, err end
    fixed_window.apply(p, key, st, st.ok and 'consume' or 'reject')
    return st.ok, st.units, st.retry, st.reset
end

function fixed_window.acquire(p, key, now, cost)
    local id, field, count = count_ahead(p, key, now, cost)
    if not id then return nil, field end
    if count ~= cost then
        -- In a window already under way the count is all there is to write when the call fits,
        -- or when a call of cost 1 finds the window full.
        local limit, ends = p.limit, (p.calendar and calendar_end(p, id) or (id + 1) * p.window_ms) - now
        if count <= limit then return true, limit - count, -1, ends end
        if cost == 1 then return false, 0, ends, ends end
    end
    return decide_counted(p, key, now, cost, id, field, count)
end

-- A fixed window whose policy has max_debt: the same, but a call that does not fit always reads the
-- bucket (counted_outcome()), for a debt changes its numbers; a plain policy's rejection stays one write.
local fixed_window_with_debt = {evaluate = fixed_window.evaluate, apply = fixed_window.apply}

function fixed_window_with_debt.acquire(p, key, now, cost)
    local id, field, count = count_ahead(p, key, now, cost)
    if not id then return nil, field end
    if count ~= cost and count <= p.limit then
        return true, p.limit - count, -1, (p.calendar and calendar_end(p, id) or (id + 1) * p.window_ms) - now
    end
    return decide_counted(p, key, now, cost, id, field, count)
end

-- Settles a reservation of this window's subject (see reservations.lua): a refund (`diff` < 0) only in
-- the window the reservation was counted in, from the debt first; an excess into what the window has
-- left, then into debt down to max_debt. The window is entered first, as its first call would (the debt
-- carried in, the windows before folded). Returns the units not charged, the units left (negative in
-- debt) and the units of a refund not given back.
function fixed_window.settle(p, key, now, diff, reserved_at)
    local id = p.calendar and calendar_id(p, now) or floor(now / p.window_ms)
    local fields, err = read('HGETALL', key)
    if err then return nil, not_a_bucket(key, p, err) end
    local summary = window_fields(p, fields, id)
    if not summary then return nil, not_a_bucket(key, p) end
    local carried, debt = debt_carried(p, summary.debt_id, summary.debt, id)
    local limit = p.limit
    local used, held = window_split(p, summary.count + carried) -- `held`: rejections the count held
    local uncharged, kept = 0, 0
    if diff < 0 then
        if (p.calendar and calendar_id(p, reserved_at) or floor(reserved_at / p.window_ms)) ~= id then
            kept = -diff
        else
            local from_debt = -diff < debt and -diff or debt
            -- (Never below 0, even for a bucket reset or evicted while the reservation was pending.)
            debt, used = debt - from_debt, max(0, used + diff + from_debt)
        end
    else
        local into_window = limit - used < diff and limit - used or diff
        local into_debt = (p.max_debt or 0) - debt
        if into_debt > diff - into_window then into_debt = diff - into_window elseif into_debt < 0 then into_debt = 0 end
        used, debt, uncharged = used + into_window, debt + into_debt, diff - into_window - into_debt
    end
    redis_call('HSET', key, tostring(id), used)
    if held > 0 then redis_call('HINCRBY', key, 'r', held) end
    settle_windows(p, key, summary, id, debt)
    redis_call('PEXPIREAT', key, debt_expiry(p, id, debt))
    return uncharged, limit - used - debt, kept
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
-- nil when the key holds something else. The clock is read here when the call had no need of it.
local function aligned_window_count(p, key, err, now)
    local fields = find(err.err, '^WRONGTYPE') and read('HGETALL', key)
    if not fields then return nil end
    local id = floor((now or now_ms()) / p.window_ms)
    local summary = window_fields(p, fields, id)
    if not summary or summary.count >= 10 ^ MAX_CARRIED_DIGITS then return nil end
    return summary.count, (id + 1) * p.window_ms - 1
end

-- The count a call of `cost` makes in a key whose INCRBY failed with `err`, or nil and why the key is no
-- bucket. An aligned window's hash under the key is replaced by a count that goes on to that window's
-- end, so the change of window start admits no call more than the limit.
local function count_taken_over(p, key, now, cost, err)
    local carried, last_ms = aligned_window_count(p, key, err, now)
    if not carried then return nil, not_a_bucket(key, p, err) end
    if carried == 0 then
        redis_call('SET', key, cost) -- the first call of a new window
        return cost
    end
    redis_call('SET', key, carried + cost, 'PXAT', last_ms) -- there up to that ms (see open_window())
    return carried + cost
end

-- The call counted ahead: the window's count including it, or nil and why the key is no bucket.
local function count_first_call(p, key, now, cost)
    local count = redis_pcall('INCRBY', key, cost == 1 and '1' or cost) -- (the common cost, not formatted)
    if type(count) == 'number' then return count end
    return count_taken_over(p, key, now, cost, count)
end

-- count_first_call(), open_window() and window_ends() written out on the common paths: each Lua call
-- would cost the decision about a twentieth of its time.
function first_call_window.acquire(p, key, now, cost, lean)
    local count = redis_pcall('INCRBY', key, cost == 1 and '1' or cost)
    -- The count equal to the cost, the window's first call, needs no type(): an error is a table.
    if count ~= cost and type(count) ~= 'number' then
        local err
        count, err = count_taken_over(p, key, now, cost, count)
        if not count then return nil, err end
    end
    local limit = p.limit
    if count == cost then
        redis_call('PEXPIRE', key, p.window_expiry)
        return true, limit - count, -1, p.window_ms
    end
    if count <= limit then
        -- The lean reply has no reset: the key's remaining time is read only for the full one.
        return true, limit - count, -1, lean and 0 or window_ends(p, key)
    end
    local left = redis_call('PTTL', key)
    local ends = left >= 0 and left + 1 or window_ends(p, key)
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

