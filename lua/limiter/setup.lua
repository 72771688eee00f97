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
        if p.spread then
            p.longest_key = p.longest_key + #tostring(p.spread - 1) + 1 -- a subject's bound leaves room for "#<i>"
            p.parts = spread_parts(p)
        end
        local ok, err = prepare(p)
        if not ok then error('sluice: policy ' .. shown(name) .. ': ' .. err) end
        p.stats = new_counts()
        p.top = new_top()
        for i, part in ipairs(p.parts or {}) do
            ok, err = prepare(part)
            if not ok then error('sluice: policy ' .. shown(name) .. ', bucket ' .. (i - 1) .. ': ' .. err) end
            part.stats, part.top = p.stats, p.top -- counted, and most rejected, as the policy
        end
        -- A spread policy decides in its buckets: acquire()'s quick path (cost <= capacity) never takes it, so
        -- resolve() picks the bucket, and the common path costs nothing more.
        if p.parts then p.capacity = 0 end
        NAMES[#NAMES + 1] = name
    end
    table.sort(NAMES)
    -- Each live policy's shadow twins, by name. A twin whose live policy is not in this library (it was
    -- deleted) is an ordinary shadow policy that nothing calls.
    for _, name in ipairs(NAMES) do
        local twin = POLICIES[name]
        local live = twin.shadow_of and POLICIES[twin.shadow_of]
        if live and not live.shadow then
            live.twins = live.twins or {}
            live.twins[#live.twins + 1] = twin
        end
    end
    parse_lists()
    epoch = now_ms() -- the one clock reading a first-call window's calls ever cause: the counts start here
    for _, name in ipairs(NAMES) do
        local p = POLICIES[name]
        for _, part in ipairs(p.parts or {}) do
            prepare_subject_rules(part)
            part.clocked = part.clocked or part.special
        end
        prepare_subject_rules(p)
        p.clocked = p.clocked or p.special or p.twins ~= nil
        -- Its algorithm alone decides: no subject rules, penalty, twins or shadow (acquire()'s quick path).
        p.plain = not (p.special or p.twins or p.shadow)
    end
    ready = true
end

