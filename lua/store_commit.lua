-- Applies a set of policy changes atomically, or none of them.
-- KEYS[1] = <ns>:policies (set of names), KEYS[2] = <ns>:audit (stream), KEYS[3..] = <ns>:policy:<name>
-- ARGV[1] = who, then per change (in KEYS order from 3): op ("put" | "del"), expected version
-- ("-1" = do not check, "0" = must not exist), the version a put rolls back to ("0" = not a
-- rollback), field count, then that many field/value pairs.
-- All keys share the namespace's hash tag, so this runs in one Cluster slot.
-- Reply: the names that changed. Error: "CONFLICT <name> expected <v> found <w>".
local who = ARGV[1]
local time = redis.call('TIME')
local now = tostring(time[1] * 1000 + math.floor(time[2] / 1000))

local changes = {}
local pos = 2
for i = 3, #KEYS do
  local op, expected, rollback, count = ARGV[pos], tonumber(ARGV[pos + 1]), ARGV[pos + 2], tonumber(ARGV[pos + 3])
  local fields = {}
  for f = 1, count do
    fields[ARGV[pos + 2 + 2 * f]] = ARGV[pos + 3 + 2 * f]
  end
  pos = pos + 4 + 2 * count
  changes[#changes + 1] = { key = KEYS[i], op = op, expected = expected, rollback = rollback, fields = fields }
end

local function current(key)
  local flat = redis.call('HGETALL', key)
  if #flat == 0 then return nil end
  local map = {}
  for j = 1, #flat, 2 do map[flat[j]] = flat[j + 1] end
  return map
end

-- Check every version before writing anything.
for _, change in ipairs(changes) do
  change.old = current(change.key)
  local found = change.old and tonumber(change.old.version) or 0
  if change.expected >= 0 and found ~= change.expected then
    return redis.error_reply('CONFLICT ' .. change.fields.name .. ' expected ' .. change.expected .. ' found ' .. found)
  end
end

local DEFINITION = { 'algorithm', 'limit', 'window_ms', 'burst', 'shadow', 'description' }
local function same(old, new)
  if not old then return false end
  for _, field in ipairs(DEFINITION) do
    if (old[field] or '') ~= (new[field] or '') then return false end
  end
  return true
end
local function definition(map)
  if not map then return '' end
  local out = {}
  for _, field in ipairs(DEFINITION) do out[field] = map[field] end
  return cjson.encode(out)
end

local changed = {}
for _, change in ipairs(changes) do
  local name = change.fields.name
  if change.op == 'del' then
    if change.old then
      redis.call('DEL', change.key)
      redis.call('SREM', KEYS[1], name)
      redis.call('XADD', KEYS[2], 'MAXLEN', '~', '10000', '*', 'policy', name, 'action', 'delete', 'who', who,
                 'at', now, 'version', change.old.version, 'old', definition(change.old), 'new', '')
      changed[#changed + 1] = name
    end
  elseif not same(change.old, change.fields) then
    local version = (change.old and tonumber(change.old.version) or 0) + 1
    local args = { 'HSET', change.key, 'version', version, 'updated_at', now, 'updated_by', who }
    for field, value in pairs(change.fields) do
      if field ~= 'name' then args[#args + 1] = field; args[#args + 1] = value end
    end
    redis.call(unpack(args))
    redis.call('SADD', KEYS[1], name)
    local action = change.old and 'update' or 'create'
    if change.rollback ~= '0' then action = 'rollback' end
    redis.call('XADD', KEYS[2], 'MAXLEN', '~', '10000', '*', 'policy', name, 'action', action, 'who', who,
               'at', now, 'version', version, 'old', definition(change.old), 'new', definition(change.fields),
               'rollback_to', change.rollback)
    changed[#changed + 1] = name
  end
end
return changed
