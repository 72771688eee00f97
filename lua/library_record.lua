-- Records a publish of the limiter library, if nobody published in between.
-- KEYS[1] = <ns>:library (hash), KEYS[2] = <ns>:audit (stream)
-- ARGV = expected version (what the publisher read), version, digest, source, who, policy count,
-- the published policies (the JSON policy file form), the published lists (ListsStore::entriesJson)
-- Reply: the time recorded (ms). Error: "CONFLICT <version>" when the stored version moved on.
local found = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if found ~= tonumber(ARGV[1]) then
  return redis.error_reply('CONFLICT ' .. found)
end
local time = redis.call('TIME')
local now = tostring(time[1] * 1000 + math.floor(time[2] / 1000))
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'digest', ARGV[3], 'source', ARGV[4], 'published_at', now,
           'published_by', ARGV[5], 'policies', ARGV[6], 'definitions', ARGV[7], 'lists', ARGV[8])
redis.call('XADD', KEYS[2], 'MAXLEN', '~', '10000', '*', 'policy', '', 'action', 'publish', 'who', ARGV[5],
           'at', now, 'version', ARGV[2], 'old', '', 'new', ARGV[3])
return now
