local function subject_too_long(key, length)
    return 'the subject of key ' .. shown(key) .. ' is ' .. length .. ' bytes; the most is ' .. MAX_SUBJECT
        .. ' (as the key holds it, escaped)'
end

-- The bucket of a spread policy that `key` (a key of the policy, check_key()) names: the key is
-- `<namespace>:<policy>:{<subject>#<i>}`, bucket i from 0 to spread - 1 written without leading zeros (so each
-- bucket has one key) in a slot of its own. Nil and why when it names none.
local function spread_bucket(key, p)
    local mark = spread_mark(p, key)
    local part = mark and not (byte(key, mark + 1) == 48 and mark + 2 < #key) -- '0'
        and p.parts[tonumber(sub(key, mark + 1, -2)) + 1]
    if part then return part end
    return nil, 'key ' .. shown(key) .. ' is not a bucket of policy ' .. shown(p.name) .. ', spread over ' .. p.spread
        .. ' buckets (expected ' .. shown(p.prefix .. '<subject>#<i>}') .. ' with i from 0 to ' .. (p.spread - 1) .. ')'
end

-- A key is `<namespace>:<policy>:{<subject>}`: the subject is the Cluster hash tag, so one
-- subject's buckets under several policies share a slot (a spread policy's subject names its bucket too,
-- see spread_bucket()). The last key that passed is kept in p.last_key, so acquire() skips the check for a
-- hot subject.
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
        if p.parts then
            if n > 1 then
                return nil, 'policy ' .. shown(p.name) .. ' is spread over ' .. p.spread .. ' buckets in as many '
                    .. 'slots: it cannot join a multi-policy call, whose keys share a slot; call it on its own'
            end
            p, bad_key = spread_bucket(keys[i], p)
            if not p then return nil, bad_key end
        end
        for j = 1, i - 1 do
            if policies[j] == p then return nil, 'policy ' .. shown(p.name) .. ' is named twice' end
        end
        policies[i] = p
    end
    return policies, cost
end

