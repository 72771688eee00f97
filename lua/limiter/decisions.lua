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

-- The shadow twins of live policy `p` decide its call too, each on its own bucket of the same subject
-- and as if it alone decided: what one admits it consumes whatever `p` answered, so its counts are
-- those a replay of the same traffic predicts. A twin never changes the reply; one whose bucket
-- cannot be read (a key of another type) is skipped.
local function decide_twins(key, p, cost, now)
    local subject = sub(key, #p.prefix + 1)
    for i = 1, #p.twins do
        local t = p.twins[i]
        local twin_key = t.prefix .. subject
        local listed
        if t.special then t, listed = subject_state(t, twin_key, now) end
        if listed then
            if listed.ok then record_admission(t) else record_rejection(t, twin_key) end
        elseif cost > t.capacity then
            record_rejection(t, twin_key)
        else
            local ok = t.impl.acquire(t, twin_key, now, cost, true)
            if ok then
                record_admission(t)
            elseif ok == false then
                record_rejection(t, twin_key)
            end
        end
    end
end

-- All-or-nothing over the policies: a call passes when no enforcing (non-shadow) policy rejects
-- it. Then every policy that admits it consumes, and shadow policies that would reject count a
-- rejection. When it is rejected nothing is consumed anywhere; each policy that rejected counts
-- it. The reply describes the deciding policy: the one with the longest wait when rejected (a
-- policy the call can never pass first), the tightest enforcing one when admitted. A call that
-- fails (a key of another type) changes nothing at all. Policies of sluice_check have no counts.
-- A special policy decides with its subject's override, and a listed or blocked subject's call is
-- decided without its bucket (subject_rules.lua); a real rejection by a policy with a penalty, when
-- that policy decides, blocks the subject.
local function decide(keys, policies, cost, peek)
    local now = now_ms()
    local states = {}
    for i = 1, #policies do
        local p, st = policies[i], nil
        if p.special then
            p, st = subject_state(p, keys[i], now)
            policies[i] = p
        end
        if not st then
            -- A cost above the capacity never fits; its bucket is only read.
            local never = cost > p.capacity
            local err
            st, err = p.impl.evaluate(p, keys[i], now, cost, peek or never)
            if not st then
                if not peek then
                    for j = 1, i - 1 do -- (a state decided without its bucket wrote nothing)
                        local q = policies[j]
                        if not states[j].gate then q.impl.apply(q, keys[j], states[j], 'none', now) end
                    end
                end
                return fail(err)
            end
            if never then st.ok, st.retry, st.never = false, NEVER, true end
        end
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
    local retry, reset = st.retry, st.reset
    if blocked and not peek and p.block_ms and not st.never and not st.gate then
        retry, reset = start_block(p, keys[decider], now, retry, reset)
    end
    local reply = {blocked and 0 or 1, st.units, blocked and retry or -1, reset, p.limit, p.name}
    if peek then return reply end
    for i = 1, #policies do
        local q, s = policies[i], states[i]
        local verdict = (not s.ok and 'reject') or (blocked and 'none') or 'consume'
        local extra
        if s.gate then
            -- decided without the bucket: nothing to write
        elseif s.never then
            count_never(q, keys[i], s, now)
        else
            extra = q.impl.apply(q, keys[i], s, verdict, now)
        end
        if q.stats then -- none for sluice_check's parameters: no policy to count for
            if verdict == 'consume' then
                record_admission(q)
                if s.gate then q.stats.listed = q.stats.listed + 1 end
            elseif verdict == 'reject' then
                record_rejection(q, keys[i])
                if s.gate == 'deny' then q.stats.denied = q.stats.denied + 1 end
            end
        end
        if not blocked and q.extra then reply[#reply + 1] = extra or q.extra end
        if q.twins then decide_twins(keys[i], q, cost, now) end
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

-- decide()'s answer for one special policy whose subject's call is decided without its bucket (listed,
-- or blocked; see subject_state()), written out: the path of every call of a blocked or denied subject.
local function gated_reply(key, p, st, cost, lean, now)
    local admitted = st.ok or p.shadow -- a shadow policy never rejects
    if st.ok then
        record_admission(p)
        p.stats.listed = p.stats.listed + 1
    else
        record_rejection(p, key)
        if st.gate == 'deny' then p.stats.denied = p.stats.denied + 1 end
    end
    if p.twins then decide_twins(key, p, cost, now) end
    if lean then return {admitted and 1 or 0, st.units, admitted and 0 or st.retry} end
    local reply = {admitted and 1 or 0, st.units, admitted and -1 or st.retry, st.reset, p.limit, p.name}
    if admitted and p.extra then reply[7] = p.extra end
    return reply
end

-- One key, one policy, decided in one pass without the bookkeeping of decide(); acquire's quick path
-- writes it out for a policy that is its algorithm alone (p.plain).
-- Parameters from sluice_check have no policy, so nothing to count per policy. `lean` replies with
-- sluice_allow's three elements (see lean_reply()) instead of the six of sluice_acquire. A policy
-- whose decision needs no clock (p.clocked false: a first-call window without subject rules or twins)
-- reads none.
local function decide_one(key, p, cost, lean)
    local now = p.clocked and now_ms()
    if p.special then
        local view, listed = subject_state(p, key, now)
        if listed then return gated_reply(key, p, listed, cost, lean, now) end
        -- A cost above what the subject's override admits at once: the general path.
        if cost > view.capacity then
            local reply = decide({key}, {p}, cost, false)
            if lean and not reply.err then return lean_reply(reply) end
            return reply
        end
        p = view
    end
    local ok, units, retry, reset, extra = p.impl.acquire(p, key, now, cost, lean)
    if ok == nil then return fail(units) end
    if p.twins then decide_twins(key, p, cost, now) end
    local s = p.stats
    if ok then
        if s then s.allowed = s.allowed + 1 end -- record_admission(), written out: a Lua call costs as much
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
        -- record_rejection(), written out for a key the summary counts already: a hot key's rejections,
        -- the common case of the deny path.
        local counts = p.top.counts
        if p.whole then key = whole_key(p, key) end
        local n = counts[key]
        s.rejected = s.rejected + 1
        if n then counts[key] = n + 1 else enter_top(p.top, key) end
    end
    if p.block_ms and not p.shadow then retry, reset = start_block(p, key, now, retry, reset) end
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

