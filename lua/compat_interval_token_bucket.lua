-- The interval-refill token bucket's layout (seed 001): the tokens in KEY and the time of the last
-- refill (epoch seconds, from the caller) in KEY_time. Tokens come back in whole batches of ARGV[2]
-- every ARGV[3] seconds, counted from the last refill (so part of an interval carries over), never
-- beyond the capacity; a call is allowed only when the tokens are there (no borrowing ahead); a bucket
-- seen for the first time, or expired, is full.
-- KEYS[1] = KEY, KEYS[2] = KEY_time (named here, not derived, so a Cluster routes both)
-- ARGV[1] = capacity, ARGV[2] = tokens per batch, ARGV[3] = interval in seconds, ARGV[4] = now in
-- seconds, ARGV[5] = tokens requested (default 1, what the seed's callers take)
-- Reply: the tokens left when allowed, -1 when not. A refused call writes nothing; an allowed one
-- keeps the keys for as long as an empty bucket takes to fill (the time key a second longer, so a
-- live bucket always has its refill time).
local function whole(value)
  return value and value >= 1 and value < 2 ^ 53 and value == math.floor(value)
end
local capacity, add, interval = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local now, requested = tonumber(ARGV[4]), tonumber(ARGV[5] or '1')
if not whole(capacity) or not whole(add) or not whole(interval) or not now or now ~= now or math.abs(now) >= 2 ^ 53
    or not requested or requested < 0 or requested >= 2 ^ 53 then
  return redis.error_reply('ERR sluice compat: capacity, add and interval must be whole numbers from 1,'
    .. ' now a finite number, requested not negative')
end
local tokens, last = tonumber(redis.call('GET', KEYS[1])), now
if tokens then
  last = tonumber(redis.call('GET', KEYS[2])) or now
  -- A clock behind the last refill brings nothing back.
  local batches = math.max(0, math.floor((now - last) / interval))
  tokens = math.min(capacity, tokens + batches * add)
  last = last + batches * interval
else
  tokens = capacity
end
if tokens < requested then
  return -1
end
local keep = math.ceil(capacity / add) * interval
redis.call('SET', KEYS[1], tokens - requested, 'EX', keep)
redis.call('SET', KEYS[2], last, 'EX', keep + 1)
return tokens - requested
