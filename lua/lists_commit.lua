-- Saves a namespace's allow and deny lists, if nobody saved them in between.
-- KEYS[1] = <ns>:lists (hash: entries, version, updated_at, updated_by), KEYS[2] = <ns>:audit (stream)
-- ARGV = who, expected version (what the caller read; 0 = never saved), the entries (JSON object)
-- Reply: the new version, or the stored one when the entries are already those. Error: "CONFLICT <found>".
local function stored_version(text)
  if text and #text <= 15 and string.match(text, '^%d+$') then return tonumber(text) end
  return 0
end
local old = redis.pcall('HMGET', KEYS[1], 'version', 'entries')
if old.err then old = {false, false} end -- not a hash: damage, replaced whole
local found = stored_version(old[1])
if found ~= tonumber(ARGV[2]) then
  return redis.error_reply('CONFLICT ' .. found)
end
if old[2] == ARGV[3] then return found end
local time = redis.call('TIME')
local now = tostring(time[1] * 1000 + math.floor(time[2] / 1000))
local version = found + 1
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'entries', ARGV[3], 'version', version, 'updated_at', now, 'updated_by', ARGV[1])
redis.call('XADD', KEYS[2], 'MAXLEN', '~', '10000', '*', 'policy', '', 'action', 'lists', 'who', ARGV[1],
           'at', now, 'version', version, 'old', old[2] or '', 'new', ARGV[3])
return version
