-- The Spring Cloud Gateway token bucket's layout (seed 000), so Sluice can watch and test-fire an
-- existing gateway's buckets and share them with it: two strings per id,
-- request_rate_limiter.{id}.tokens and request_rate_limiter.{id}.timestamp (epoch seconds).
-- KEYS[1] = tokens key, KEYS[2] = timestamp key
-- ARGV[1] = replenish rate (tokens per second), ARGV[2] = burst capacity,
-- ARGV[3] = now in epoch seconds (empty: the server's TIME), ARGV[4] = tokens requested
-- Reply: {allowed (1 or 0), whole tokens left}. The arithmetic is the gateway's (floating point,
-- second resolution), so both compute the same state from the same keys.
local rate, capacity, requested = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[4])
if not rate or rate <= 0 or not capacity or capacity <= 0 or not requested or requested < 0 then
  return redis.error_reply('ERR sluice compat: rate and capacity must be positive numbers, requested not negative')
end
local now = tonumber(ARGV[3])
if not now then now = tonumber(redis.call('TIME')[1]) end
local ttl = math.floor(capacity / rate * 2)
local tokens = tonumber(redis.call('GET', KEYS[1])) or capacity
local stamp = tonumber(redis.call('GET', KEYS[2])) or 0
local filled = math.min(capacity, tokens + math.max(0, now - stamp) * rate)
local allowed = filled >= requested
if allowed then filled = filled - requested end
if ttl > 0 then
  redis.call('SETEX', KEYS[1], ttl, filled)
  redis.call('SETEX', KEYS[2], ttl, now)
end
return {allowed and 1 or 0, filled}
