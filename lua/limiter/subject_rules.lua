-- What a policy does for some subjects apart: its overrides (other limits, allow, deny) and its
-- penalty (block_ms). A policy with neither is never "special" and its calls never reach this code.
--
-- Overrides come as one string (see overridesLibraryText() in model/policy/policy_overrides.h),
-- parsed at setup into a table of exact subjects and one of prefixes; the longest match wins, an exact
-- subject before a prefix of its length. A limit override decides with a view of the policy: a copy
-- prepared with the other limit and burst, sharing the policy's name, counts and twins, one per distinct
-- limit and burst.
--
-- A block is a key beside the bucket, `<bucket key>:blocked` (the same hash tag, so the same slot),
-- holding when it ends on the library's clock and expiring then: a blocked call costs one GET and
-- leaves the bucket as it is.

local DENIED = -3 -- retry_after_ms of a call whose subject a list denies: never a wait
local BLOCKED = ':blocked'

-- A copy of policy p with another limit and burst, prepared: the policy an override makes.
local function override_view(p, limit, burst)
    local view = {}
    for field, value in pairs(p) do view[field] = value end
    view.limit, view.burst = limit, burst
    local ok, err = prepare(view)
    if not ok then error('sluice: policy ' .. shown(p.name) .. ': an override\'s ' .. err) end
    return view
end

-- An override as the policy file writes it: a prefix with its '*', an exact subject ending in '*' as "\*".
local function written_pattern(entry)
    if entry.prefix then return entry.pattern .. '*' end
    if sub(entry.pattern, -1) == '*' then return sub(entry.pattern, 1, -2) .. '\\*' end
    return entry.pattern
end

-- Reads one rules string (per rule "<e|p><l|a|d><limit>,<burst>,<length>:<pattern>") into a table of
-- exact subjects and one of prefixes, with the prefixes' lengths longest first. `view_of(limit, burst)`
-- gives the policy a limit rule makes; `owner` names the rules in errors.
local function parse_rules(text, owner, view_of)
    local pos = 1
    local exact, prefixes, lengths, seen, count = {}, {}, {}, {}, 0
    while pos <= #text do
        local _, stop, where, kind, limit, burst, length = find(text, '^([ep])([lad])(%d+),(%d+),(%d+):', pos)
        if not stop then error('sluice: ' .. owner .. ' are damaged at byte ' .. pos) end
        local pattern = sub(text, stop + 1, stop + tonumber(length))
        pos = stop + tonumber(length) + 1
        local entry = {kind = kind, pattern = pattern, prefix = where == 'p'}
        count = count + 1
        if kind == 'l' then entry.view = view_of(tonumber(limit), tonumber(burst)) end
        if entry.prefix then
            prefixes[pattern] = entry
            if not seen[#pattern] then
                seen[#pattern] = true
                lengths[#lengths + 1] = #pattern
            end
        else
            exact[pattern] = entry
        end
    end
    table.sort(lengths, function(a, b) return a > b end)
    return {exact = exact, prefixes = prefixes, lengths = lengths, count = count}
end

-- p's overrides, with one view per distinct limit and burst.
local function parse_overrides(p)
    local views = {}
    p.rules = parse_rules(p.overrides, 'policy ' .. shown(p.name) .. ': its overrides', function(limit, burst)
        local id = limit .. ',' .. burst
        views[id] = views[id] or override_view(p, limit, burst)
        return views[id]
    end)
    p.override_count = p.rules.count
end

-- The namespace's allow and deny lists (LISTS, generated beside the policies), the same for every policy;
-- nil when they are empty.
local list_rules

local function parse_lists()
    if LISTS == '' then return end
    list_rules = parse_rules(LISTS, 'the namespace\'s lists', function()
        error('sluice: the namespace\'s lists hold a limit, which only a policy\'s override may')
    end)
    for _, entry in pairs(list_rules.exact) do entry.listed = true end
    for _, entry in pairs(list_rules.prefixes) do entry.listed = true end
end

-- The rule of `rules` that decides `subject`, and its rank: a longer pattern ranks higher, an exact
-- subject above a prefix of its length; nil and -1 when none matches.
local function rule_for(rules, subject)
    local entry = rules.exact[subject]
    if entry then return entry, 2 * #subject + 1 end
    local lengths, prefixes, length = rules.lengths, rules.prefixes, #subject
    for i = 1, #lengths do
        local n = lengths[i]
        if n <= length then
            entry = prefixes[sub(subject, 1, n)]
            if entry then return entry, 2 * n end
        end
    end
    return nil, -1
end

-- The override of the subject of `key` under p, from the policy's overrides and the namespace's lists:
-- the higher rank wins, the lists for the same pattern; nil when none applies.
local function subject_override(p, key)
    if not p.rules and not list_rules then return nil end
    local subject = sub(key, #p.prefix + 1, p.spread and spread_mark(p, key) - 1 or -2)
    local entry, rank = nil, -1
    if p.rules then entry, rank = rule_for(p.rules, subject) end
    if list_rules then
        local listed, list_rank = rule_for(list_rules, subject)
        if listed and list_rank >= rank then return listed end
    end
    return entry
end

-- Ms until the block of the subject at `key` ends; 0 when it is not blocked.
local function block_left(key, now)
    local ends = tonumber(redis_call('GET', key .. BLOCKED) or '')
    if ends and ends > now then return ends - now end
    return 0
end

-- For a call of special policy p on `key`: the policy that decides it (p, or its override's view) and,
-- when the call is decided without the bucket, its state: listed (allow, deny) or blocked. The state's
-- `gate` tells which; a denied call ranks as one that can never pass.
local function subject_state(p, key, now)
    local view = p
    local entry = subject_override(p, key)
    if entry then
        if entry.kind == 'a' then return p, {ok = true, units = p.capacity, retry = -1, reset = 0, gate = 'allow'} end
        if entry.kind == 'd' then
            return p, {ok = false, units = 0, retry = DENIED, reset = 0, never = true, gate = 'deny'}
        end
        view = entry.view
    end
    if p.block_ms then
        local left = block_left(key, now)
        if left > 0 then return view, {ok = false, units = 0, retry = left, reset = left, gate = 'blocked'} end
    end
    return view
end

-- Blocks currently in force per policy, for readers: counted in granules of a 64th of block_ms (at
-- least a second), so at most 65 entries whatever the traffic, and a block is counted until the end of
-- its granule. A block lifted early (reset-key) is counted until it would have ended.
local function new_blocks(p)
    return {granule = max(1000, ceil(p.block_ms / 64)), first = 1, last = 0, ends = {}, counts = {}, started = 0}
end

local function blocked_now(b, now)
    while b.first <= b.last and b.ends[b.first] <= now do
        b.ends[b.first], b.counts[b.first] = nil, nil
        b.first = b.first + 1
    end
    local total = 0
    for i = b.first, b.last do total = total + b.counts[i] end
    return total
end

-- A real rejection of p's subject at `key` starts its block; the reply's waits become at least its length.
local function start_block(p, key, now, retry, reset)
    local block = p.block_ms
    local ends = now + block
    redis_call('SET', key .. BLOCKED, ends, 'PXAT', ends)
    local b = p.blocks
    b.started = b.started + 1
    if b.last >= b.first and ends - b.ends[b.last] < b.granule then
        b.counts[b.last], b.ends[b.last] = b.counts[b.last] + 1, ends
    else
        b.last = b.last + 1
        b.ends[b.last], b.counts[b.last] = ends, 1
    end
    return max(retry, block), max(reset, block)
end

-- Readies p's rules at setup: after every policy is prepared and its twins linked, so views share them,
-- and after parse_lists().
-- A shadow policy never blocks.
local function prepare_subject_rules(p)
    if p.shadow then p.block_ms = nil end
    if p.block_ms then p.blocks = new_blocks(p) end
    if p.overrides then parse_overrides(p) end
    p.special = p.rules ~= nil or list_rules ~= nil or p.block_ms ~= nil
end
