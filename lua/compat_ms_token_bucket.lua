-- The millisecond token bucket's layout (seed 003): the token count in KEY and the last refill time
-- (epoch ms, from the client) in KEY:last. The client's clock decides the refill, which is what
-- goes wrong when clients' clocks disagree (seed 004); Sluice keeps this only to watch and test-fire
-- existing buckets.
-- KEYS[1] = KEY, KEYS[2] = KEY:last (named here, not derived, so a Cluster routes both)
-- ARGV[1] = tokens per second, ARGV[2] = capacity, ARGV[3] = tokens requested, ARGV[4] = now in ms
-- Reply: 1 when allowed, 0 when not. Idle buckets expire once they would be full again.
local rate, capacity, requested, now = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
if not rate or rate <= 0 or not capacity or capacity <= 0 or not requested or requested < 0 or not now then
  return redis.error_reply('ERR sluice compat: rate, capacity, requested and now must be numbers'
    .. ' (rate and capacity positive)')
end
local tokens = tonumber(redis.call('GET', KEYS[1])) or capacity
local last = tonumber(redis.call('GET', KEYS[2])) or now
tokens = math.min(capacity, tokens + math.max(0, now - last) * rate / 1000)
local ttl = math.ceil(capacity / rate * 1000) + 1000
redis.call('SET', KEYS[2], now, 'PX', ttl)
if tokens < requested then
  redis.call('SET', KEYS[1], tokens, 'PX', ttl)
  return 0
end
redis.call('SET', KEYS[1], tokens - requested, 'PX', ttl)
return 1
