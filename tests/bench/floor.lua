#!lua name=sluice_floor
-- The least any library keeping the limiter contract must do per call, with no logic at all:
-- read Redis TIME, touch the bucket, and reply with the six-element array. The benchmark runs
-- these next to the real algorithms, so a target below the floor shows as such.
local BUCKET = 'Txxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' -- a packed bucket's size, 41 bytes

-- A string bucket that admits: TIME, GET, SET ... KEEPTTL.
redis.register_function('floor_admit', function(keys)
    redis.call('TIME')
    redis.call('GET', keys[1])
    redis.call('SET', keys[1], BUCKET, 'KEEPTTL')
    return {1, 0, -1, 0, 1, 'floor'}
end)

-- A string bucket that rejects: TIME, GET, SETRANGE of the rejection counter.
redis.register_function('floor_reject', function(keys)
    redis.call('TIME')
    redis.call('GET', keys[1])
    redis.call('SETRANGE', keys[1], 33, 'rejected')
    return {0, 0, 1, 1, 1, 'floor'}
end)

-- A counter that admits: TIME, HINCRBY.
redis.register_function('floor_count', function(keys)
    redis.call('TIME')
    redis.call('HINCRBY', keys[1], 'w', 1)
    return {1, 0, -1, 0, 1, 'floor'}
end)

-- A window that opens at the first call, with the lean reply: TIME (the per-policy counts' clock),
-- INCRBY, then PEXPIRE on the window's first call or PTTL (the wait) after it. The least a first-call
-- window keeping the contract does on sluice_allow's path.
redis.register_function('floor_window', function(keys)
    redis.call('TIME')
    if redis.call('INCRBY', keys[1], 1) == 1 then
        redis.call('PEXPIRE', keys[1], 999)
        return {1, 99, 0}
    end
    return {0, 0, redis.call('PTTL', keys[1]) + 1}
end)

-- The same without TIME: what the per-policy counts' clock costs. (Written out again: a shared Lua
-- function would add its call to both floors.)
redis.register_function('floor_window_unclocked', function(keys)
    if redis.call('INCRBY', keys[1], 1) == 1 then
        redis.call('PEXPIRE', keys[1], 999)
        return {1, 99, 0}
    end
    return {0, 0, redis.call('PTTL', keys[1]) + 1}
end)

-- The same with sluice_acquire's contract: the policy's name passed after the key, the key checked to be a
-- bucket of that policy (the policy's prefix, then a subject without braces, as the library checks it: three
-- plain finds, skipped for the key that passed last) and the six-element reply naming it. What the full path
-- pays beyond the lean floor before any logic of its own.
local PREFIX, LONGEST, find, last_key = 'floorfull:{', 600, nil, nil
local START = #PREFIX + 1 -- the subject's first byte
redis.register_function('floor_window_unclocked_full', function(keys, args)
    find = find or string.find -- an upvalue from the first call on, as the library keeps its own
    local key = keys[1]
    if key ~= last_key then
        local length = #key
        if not (length > START and length <= LONGEST and find(key, PREFIX, 1, true) == 1
                and find(key, '}', START, true) == length and not find(key, '{', START, true)) then
            return redis.error_reply('key ' .. key .. ' is not a bucket of policy ' .. args[1])
        end
        last_key = key
    end
    if redis.call('INCRBY', key, 1) == 1 then
        redis.call('PEXPIRE', key, 999)
        return {1, 99, -1, 1000, 100, args[1]}
    end
    local wait = redis.call('PTTL', key) + 1
    return {0, 0, wait, wait, 100, args[1]}
end)

-- The lean floor with sluice_allow's contract: the policy's name passed after the key and the key checked as
-- above (a prefix of its own, so the two floors' last keys stay apart), with the three-element reply. What
-- the lean path pays before any logic of its own. (Written out again: a shared function would add a Lua call
-- to both floors, a closure of one body a branch on its reply.)
local LEAN_PREFIX, lean_last_key = 'floorlean:{', nil
local LEAN_START = #LEAN_PREFIX + 1
redis.register_function('floor_window_unclocked_lean', function(keys, args)
    find = find or string.find
    local key = keys[1]
    if key ~= lean_last_key then
        local length = #key
        if not (length > LEAN_START and length <= LONGEST and find(key, LEAN_PREFIX, 1, true) == 1
                and find(key, '}', LEAN_START, true) == length and not find(key, '{', LEAN_START, true)) then
            return redis.error_reply('key ' .. key .. ' is not a bucket of policy ' .. args[1])
        end
        lean_last_key = key
    end
    if redis.call('INCRBY', key, 1) == 1 then
        redis.call('PEXPIRE', key, 999)
        return {1, 99, 0}
    end
    return {0, 0, redis.call('PTTL', key) + 1}
end)

-- The six-element reply alone: what every call of the contract pays before any Redis call.
redis.register_function('floor_reply', function()
    return {1, 0, -1, 0, 1, 'floor'}
end)
