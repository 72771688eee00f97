-- sluice_acquire, and with `lean` sluice_allow (whose callers never pass a third argument): a closure
-- each, so that neither calls the other.
local function acquire_function(lean)
    return function(keys, args)
        if not ready then setup() end -- registered without register()'s wrapper
        if #keys == 1 then
            local p, cost = POLICIES[args[1]], 1
            if #args == 2 then cost = parse_count(args[2], MAX_COUNT) end
            local key = keys[1]
            if p and cost and #args <= 2 and cost <= p.capacity and (key == p.last_key or not check_key(key, p))
                and (not lean or p.lean) then
                if not p.plain then return decide_one(key, p, cost, lean) end
                -- decide_one() written out for a policy that is its algorithm alone (p.plain): the common
                -- call, where the Lua call would cost a first-call window's decision a thirtieth of its time.
                local ok, units, retry, reset, extra = p.impl.acquire(p, key, p.clocked and now_ms(), cost, lean)
                if ok == nil then return fail(units) end
                local s = p.stats
                local reply
                if ok then
                    s.allowed = s.allowed + 1
                    if lean then
                        reply = p.lean
                        reply[1], reply[2], reply[3] = 1, units, extra or 0
                    else
                        reply = p.reply
                        reply[1], reply[2], reply[3], reply[4], reply[7] = 1, units, -1, reset, extra
                    end
                    return reply
                end
                local counts = p.top.counts
                local n = counts[key]
                s.rejected = s.rejected + 1
                if n then counts[key] = n + 1 else enter_top(p.top, key) end
                if lean then
                    reply = p.lean
                    reply[1], reply[2], reply[3] = 0, units, retry
                else
                    reply = p.reply
                    reply[1], reply[2], reply[3], reply[4], reply[7] = 0, units, retry, reset, nil
                end
                return reply
            end
        end
        -- Several policies, a spread policy's bucket, or something to report: resolve() names the problem.
        local policies, cost = resolve(keys, args)
        if not policies then return fail(cost) end
        local p = policies[1]
        if p.whole and cost <= p.capacity and (not lean or p.lean) then return decide_one(keys[1], p, cost, lean) end
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
end

-- FCALL sluice_acquire <n> <key>... <policy>... [cost]
local acquire = acquire_function(false)
-- FCALL sluice_allow <n> <key>... <policy>... [cost]: sluice_acquire's decision, counted the same way
-- (in the bucket and per policy), for callers that need only {allowed, remaining, wait_ms}.
local allow = acquire_function(true)

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
    if lease == '' then return 0 end -- an admission that held nothing: a shadow's, an allow-listed subject's
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
    -- The subject's override and block, shown beside the bucket that its view reads.
    local entry = subject_override(p, keys[1])
    local view = entry and entry.view or p
    local blocked = p.block_ms and block_left(keys[1], now) or 0
    local st, err = view.impl.evaluate(view, keys[1], now, 1, true)
    if not st then return fail(err) end
    local ttl = redis_call('PTTL', keys[1])
    local listed = entry and ({a = 'allow', d = 'deny'})[entry.kind] or ''
    return {'policy', p.name, 'algorithm', p.algorithm, 'available', st.units, 'capacity', view.capacity,
            'reset_after_ms', st.reset, 'retry_after_ms', st.retry,
            'allowed', st.allowed, 'rejected', st.rejected, 'ttl_ms', ttl, 'now_ms', now,
            'limit', view.limit, 'override', entry and written_pattern(entry) or '', 'listed', listed,
            'blocked_ms', blocked, 'from_list', entry and entry.listed and 1 or 0}
end

-- FCALL_RO sluice_rule_stats 0: [now_ms, epoch_ms, then per policy with overrides, lists or a penalty, or
-- that took a reservation: name, calls admitted by an allow rule, calls rejected by a deny rule (both also in
-- sluice_stats' totals), blocks started, subjects blocked now (see new_blocks()), reservations made,
-- reservations settled, units settlements charged into debt, units of excess not charged (past max_debt)],
-- since the library was loaded.
local function rule_stats()
    local now = now_ms()
    local reply = {now, epoch}
    for _, name in ipairs(NAMES) do
        local p = POLICIES[name]
        local stats = p.stats
        if p.special or stats.reserved > 0 then
            local b = p.blocks
            local n = #reply
            reply[n + 1], reply[n + 2], reply[n + 3] = name, stats.listed, stats.denied
            reply[n + 4], reply[n + 5] = b and b.started or 0, b and blocked_now(b, now) or 0
            reply[n + 6], reply[n + 7], reply[n + 8], reply[n + 9] = stats.reserved, stats.settled, stats.debt,
                stats.uncharged
        end
    end
    return reply
end

-- FCALL_RO sluice_stats 0 [since_second]: [now_ms, epoch_ms, then per policy: name, allowed total, rejected
-- total, moved], the totals since this copy of the library was loaded; a reader differences its own readings
-- for rates. `moved` is {ms} when a reading in the last MOVED_MS (this one included) saw the policy's totals
-- move since the reading before, ms the latest such reading, and after since_second; else {}. The counting
-- reads no clock, so "answered calls lately" is what the readings saw: at least the last minute, more when
-- nobody read in between (publish's guard against dropping a policy in use asks this). (Before clockless
-- counting the array held per-second counts; readers of that time pass a since_second asking for none.)
local MOVED_MS = 60000

local function stats(_, args)
    local now = now_ms()
    local since = tonumber(args[1] or '') or -1
    local reply = {now, epoch}
    for _, name in ipairs(NAMES) do
        local s = POLICIES[name].stats
        local total = s.allowed + s.rejected
        if total ~= s.read_total then s.read_total, s.moved_at = total, now end
        local moved = {}
        local lately = s.moved_at and s.moved_at > now - MOVED_MS
        if lately and floor(s.moved_at / 1000) > since then moved[1] = s.moved_at end
        local n = #reply
        reply[n + 1], reply[n + 2], reply[n + 3], reply[n + 4] = name, s.allowed, s.rejected, moved
    end
    return reply
end

-- FCALL_RO sluice_most_rejected 0 <policy>: [now_ms, epoch_ms, least, then per subject of the policy's
-- summary (policy_counts.lua), most rejected first: subject, count, entered], counts since this copy was
-- loaded; `least` is the smallest count when the summary is full (a subject it does not hold was rejected
-- at most that often), else 0. Between two readings a subject's rejections are its count's growth when
-- its `entered` is the same in both, else at least count - entered (the rejections since it entered,
-- short by at most entered minus the first reading's `least`).
local function most_rejected(_, args)
    if #args ~= 1 then return fail('expected <policy>') end
    local p = POLICIES[args[1]]
    if not p then return fail('unknown policy ' .. shown(args[1])) end
    local now = now_ms()
    local t = p.top
    local counts, keys, least = t.counts, {}, nil
    for key, n in pairs(counts) do
        keys[#keys + 1] = key
        if not least or n < least then least = n end
    end
    table.sort(keys, function(a, b)
        if counts[a] ~= counts[b] then return counts[a] > counts[b] end
        return a < b
    end)
    local reply = {now, epoch, t.size < TOP_SIZE and 0 or least}
    local skip = #p.prefix
    for _, key in ipairs(keys) do
        local n = #reply
        reply[n + 1], reply[n + 2], reply[n + 3] = sub(key, skip + 1, -2), counts[key], t.entered[key]
    end
    return reply
end

-- FCALL_RO sluice_top: what a reader written for the 10-second summaries that came before
-- sluice_most_rejected calls; it is told why it gets no list.
local function retired_top()
    return fail('this library counts rejections since it was loaded and no longer in 10-second periods: read '
        .. 'them with ' .. LIBRARY.name .. '_most_rejected (the reader that called ' .. LIBRARY.name .. '_top '
        .. 'is older than this library; update it)')
end

-- FCALL_RO sluice_version 0: [version, digest, code version, policy count, namespace, database].
local function version()
    return {LIBRARY.version, LIBRARY.digest, LIBRARY.code, #NAMES, NAMESPACE, DATABASE}
end

-- FCALL_RO sluice_policies 0: the compiled policy table, one array per policy, sorted by name: name,
-- algorithm, limit, window_ms, burst, shadow, description, first_call, overrides, block_ms, spread.
local function policies()
    local reply = {}
    for _, name in ipairs(NAMES) do
        local p = POLICIES[name]
        reply[#reply + 1] = {name, p.algorithm, p.limit, p.window_ms, p.burst, p.shadow and 1 or 0, p.description,
                             p.first_call and 1 or 0, p.override_count or 0, p.block_ms or 0, p.spread or 0}
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
    {'inspect', inspect, true}, {'stats', stats, true}, {'most_rejected', most_rejected, true},
    {'top', retired_top, true}, {'version', version, true},
    {'policies', policies, true}, {'rule_stats', rule_stats, true}, {'reserve', reserve}, {'settle', settle},
}
