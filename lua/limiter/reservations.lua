-- Reserve then settle, for costs known only after the call (an LLM's tokens): sluice_reserve takes an
-- estimate as sluice_acquire would and, admitted, replies a reservation id; sluice_settle gives back
-- what the call did not use or charges its excess, down to max_debt units of debt (a subject in debt
-- is rejected until the refill pays it back, or for a window, the windows after). Token bucket and GCRA
-- in the narrow form, fixed windows aligned or on the calendar, and sliding windows.
--
-- A subject's reservations are a sorted set beside its bucket, `<bucket key>:reserved` (the same slot),
-- of ids "<16 hex>:<estimate>" (a hash of the library's secret, as lease ids) scored by when they expire;
-- a settled one is kept, scored by its expiry negated, so that settling it again is named as such.
-- Both are forgotten one reserve_timeout_ms after their expiry (removed by the subject's next reserve).

local RESERVED = ':reserved'
local reservations_made = 0

local function reserve_timeout(p)
    return p.reserve_timeout_ms or p.window_ms
end

-- Forgets the reservations of `book` whose expiry is a timeout ago or more, settled or not.
local function forget_old_reservations(book, now, timeout)
    redis_call('ZREMRANGEBYSCORE', book, 0, now - timeout)
    redis_call('ZREMRANGEBYSCORE', book, -(now - timeout), '(0')
end

-- Settling per algorithm: (p, key, now, diff, reserved_at) -> units not charged, units left, units of a
-- refund not given back; nil and why on foreign data. A level algorithm reads its stored values, refilled
-- or drained to `now`.
local SETTLE = {fixed_window = fixed_window.settle, sliding_window = sliding_window.settle}

-- The policy named by `name`, when it takes reservations; nil and why not.
local function settling_policy(name)
    local p = POLICIES[name]
    if not p then return nil, 'unknown policy ' .. shown(name) end
    if not SETTLE[p.algorithm] then
        return nil, 'policy ' .. shown(p.name) .. ' is a ' .. p.algorithm .. ' policy: reservations are settled by '
            .. 'token_bucket, gcra, fixed_window and sliding_window policies'
    end
    if p.first_call then
        return nil, 'policy ' .. shown(p.name) .. '\'s windows open at each subject\'s first call: reservations '
            .. 'need aligned or calendar windows'
    end
    if p.shadow then return nil, 'policy ' .. shown(p.name) .. ' is a shadow policy: it takes no reservations' end
    if p.spread then
        return nil, 'policy ' .. shown(p.name) .. ' is spread over ' .. p.spread .. ' buckets: a settlement could not '
            .. 'reach the bucket that reserved'
    end
    if p.wide then
        return nil, 'policy ' .. shown(p.name) .. ' has a limit (or burst) times window_ms past 2^52: reservations '
            .. 'need a narrower one'
    end
    return p
end


function SETTLE.token_bucket(p, key, now, diff)
    local window, rate, full = p.window_ms, p.limit, p.full
    local expires, level, stamp, allowed, rejected = false, full, now, 0, 0
    local raw = redis_pcall('GET', key)
    if raw then
        expires, level, stamp, allowed, rejected = narrow_level_state(p, key, raw, TOKEN_TAG, WIDE_TOKEN_TAG)
        if expires == nil then return nil, level end
        level = refill(level, now - stamp, full, rate)
        stamp = max(stamp, now)
    end
    local uncharged = 0
    if diff < 0 then
        level = level - diff * window
        if level > full then level = full end
    else
        local charged = floor((level + p.backlog_cap - full) / window) -- max_debt units below empty
        if charged > diff then charged = diff elseif charged < 0 then charged = 0 end
        level, uncharged = level - charged * window, diff - charged
    end
    write_packed(p, key, TAGGED_FOUR, now, ceil((full - level) / rate), expires, TOKEN_TAG, level, stamp, allowed,
                 rejected)
    return uncharged, floor(level / window)
end

function SETTLE.gcra(p, key, now, diff)
    local window, rate, full = p.window_ms, p.limit, p.full
    local expires, tat, fraction, allowed, rejected = packed_state(p, key, GCRA_TAG, FOUR, FOUR_SIZE)
    if expires == nil then return nil, tat end
    local backlog = 0
    if expires then
        backlog = (tat - now) * rate + fraction
        if backlog > p.backlog_cap then backlog = p.backlog_cap elseif backlog < 0 then backlog = 0 end
    else
        allowed, rejected = 0, 0
    end
    local uncharged = 0
    if diff < 0 then
        backlog = backlog + diff * window
        if backlog < 0 then backlog = 0 end
    else
        local charged = floor((p.backlog_cap - backlog) / window)
        if charged > diff then charged = diff elseif charged < 0 then charged = 0 end
        backlog, uncharged = backlog + charged * window, diff - charged
    end
    local whole = floor(backlog / rate)
    write_packed(p, key, TAGGED_FOUR, now, ceil(backlog / rate), expires, GCRA_TAG, now + whole,
                 backlog - whole * rate, allowed, rejected)
    return uncharged, floor((full - backlog) / window)
end

-- FCALL sluice_reserve 1 <key> <policy> <estimate>: sluice_acquire of the estimate; admitted, the reply
-- carries the reservation id as its seventh element (empty for an allow-listed subject, which reserves
-- nothing).
local function reserve(keys, args)
    if #keys ~= 1 or #args ~= 2 then return fail('expected 1 key, then <policy> <estimate>') end
    local p, why = settling_policy(args[1])
    if not p then return fail(why) end
    local key = keys[1]
    local bad_key = check_key(key, p)
    if bad_key then return fail(bad_key) end
    local estimate = parse_count(args[2], MAX_COUNT)
    if not estimate then
        return fail('estimate must be a whole number from 1 to ' .. MAX_COUNT .. ', got ' .. shown(args[2]))
    end
    local reply = decide({key}, {p}, estimate, false)
    if reply.err or reply[1] == 0 then return reply end
    local entry = subject_override(p, key)
    if entry and entry.kind == 'a' then -- allow-listed: admitted without consuming
        reply[7] = ''
        return reply
    end
    local now = now_ms()
    local timeout, book = reserve_timeout(p), key .. RESERVED
    forget_old_reservations(book, now, timeout)
    reservations_made = reservations_made + 1
    local id = sub(sha1hex(LIBRARY.lease_secret .. key .. ':' .. now .. ':r' .. reservations_made), 1, 16) .. ':'
        .. estimate
    redis_call('ZADD', book, now + timeout, id)
    redis_call('PEXPIREAT', book, now + 2 * timeout)
    p.stats.reserved = p.stats.reserved + 1
    reply[7] = id
    return reply
end

-- FCALL sluice_settle 1 <key> <policy> <id> <actual>: [settled, uncharged, remaining]: what the
-- reservation finally cost, the part of its excess not charged (beyond max_debt), and the units
-- available after (negative in debt). The empty id settles nothing: [0, 0, 0].
local function settle(keys, args)
    if #keys ~= 1 or #args ~= 3 then return fail('expected 1 key, then <policy> <reservation id> <actual>') end
    local p, why = settling_policy(args[1])
    if not p then return fail(why) end
    local key, id = keys[1], args[2]
    local bad_key = check_key(key, p)
    if bad_key then return fail(bad_key) end
    local actual = args[3] == '0' and 0 or parse_count(args[3], MAX_COUNT)
    if not actual then
        return fail('actual must be a whole number from 0 to ' .. MAX_COUNT .. ', got ' .. shown(args[3]))
    end
    if id == '' then return {0, 0, 0} end
    local estimate = find(id, '^%x+:%d+$') and entry_cost(id)
    if not estimate then return fail('reservation id must be one sluice_reserve replied, got ' .. shown(id)) end
    local now, timeout, book = now_ms(), reserve_timeout(p), key .. RESERVED
    -- Reservations a timeout past their expiry are forgotten: the next reserve removes them, and until
    -- then a settlement reads them as gone (a refusal writes nothing).
    local expiry, err = read('ZSCORE', book, id)
    if err then return fail(err) end
    if expiry and math.abs(tonumber(expiry)) <= now - timeout then expiry = nil end
    if not expiry then
        return fail('no reservation ' .. shown(id) .. ' for this subject: it was never made for it, or was settled '
            .. 'or expired more than ' .. timeout .. ' ms ago')
    end
    expiry = tonumber(expiry)
    if expiry < 0 then return fail('reservation ' .. shown(id) .. ' is already settled') end
    if expiry <= now then
        return fail('reservation ' .. shown(id) .. ' expired ' .. (now - expiry) .. ' ms ago: its estimate stands')
    end
    local entry = subject_override(p, key)
    local view = entry and entry.view or p
    local uncharged, remaining, kept = SETTLE[view.algorithm](view, key, now, actual - estimate, expiry - timeout)
    if not uncharged then return fail(remaining) end
    redis_call('ZADD', book, -expiry, id)
    local stats, charged = p.stats, actual - uncharged - estimate
    stats.settled, stats.uncharged = stats.settled + 1, stats.uncharged + uncharged
    -- Of an excess charged, the part below empty: what was left before it was remaining + charged.
    if charged > 0 and remaining < 0 then
        stats.debt = stats.debt + (charged < -remaining and charged or -remaining)
    end
    return {actual - uncharged + (kept or 0), uncharged, remaining}
end
