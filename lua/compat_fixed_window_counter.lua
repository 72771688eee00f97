-- The INCR + EXPIRE fixed-window counter (seed 001): one integer per key, counting the calls of a
-- window that starts at the key's first call and lasts ARGV[2] seconds.
-- KEYS[1] = counter key; ARGV[1] = limit per window, ARGV[2] = window in seconds
-- Reply: the calls counted in this window, or -1 when over the limit (the count still rises, as in
-- the seed, so a caller over the limit keeps being refused until the window ends).
local limit, window = tonumber(ARGV[1]), tonumber(ARGV[2])
if not limit or limit < 1 or not window or window < 1 then
  return redis.error_reply('ERR sluice compat: limit and window must be positive numbers')
end
local count = redis.call('INCR', KEYS[1])
if count == 1 then
  redis.call('EXPIRE', KEYS[1], window)
elseif count > limit then
  return -1
end
return count
