-- Applies a set of policy changes atomically, or none of them.
-- KEYS[1] = <ns>:policies (set of names), KEYS[2] = <ns>:audit (stream), KEYS[3..] = <ns>:policy:<name>
-- ARGV[1] = who; ARGV[2] = how many names the set must hold ("-1" = do not check the set), then
-- those names; then per change (in KEYS order from 3): op ("put" | "del" | "check"), expected
-- version ("-1" = do not check, "0" = must not exist), the version a put rolls back to ("0" = not
-- a rollback), field count, then that many field/value pairs.
-- A policy exists when its name is listed and its hash is there: a hash whose name is not listed
-- is a leftover that a put may take over (its version continues).
-- The last ARGV, after the changes, is the most policies the namespace may hold: a commit that would
-- hold more (and more than it holds now) is refused whole.
-- All keys share the namespace's hash tag, so this runs in one Cluster slot.
-- Reply: the names that changed. Error: "CONFLICT <what moved>", "INVALID <rule broken>".
local who = ARGV[1]
local time = redis.call('TIME')
local now = tostring(time[1] * 1000 + math.floor(time[2] / 1000))

local pos = 2
local expected_names = tonumber(ARGV[pos])
pos = pos + 1
if expected_names >= 0 then
  local listed = redis.call('SMEMBERS', KEYS[1])
  local read = {}
  for i = 0, expected_names - 1 do read[ARGV[pos + i]] = true end
  for _, name in ipairs(listed) do
    if not read[name] then
      return redis.error_reply('CONFLICT policy ' .. name .. ' was created since the policies were read')
    end
    read[name] = nil
  end
  local gone = next(read)
  if gone then
    return redis.error_reply('CONFLICT policy ' .. gone .. ' was deleted since the policies were read')
  end
  pos = pos + expected_names
end

local changes = {}
for i = 3, #KEYS do
  local op, expected, rollback, count = ARGV[pos], tonumber(ARGV[pos + 1]), ARGV[pos + 2], tonumber(ARGV[pos + 3])
  local fields = {}
  for f = 1, count do
    fields[ARGV[pos + 2 + 2 * f]] = ARGV[pos + 3 + 2 * f]
  end
  pos = pos + 4 + 2 * count
  changes[#changes + 1] = { key = KEYS[i], op = op, expected = expected, rollback = rollback, fields = fields }
end

-- The stored fields; a key that is not a hash is damage, read as a hash without a version.
local function current(key)
  local flat = redis.pcall('HGETALL', key)
  if flat.err then return {} end
  if #flat == 0 then return nil end
  local map = {}
  for j = 1, #flat, 2 do map[flat[j]] = flat[j + 1] end
  return map
end

-- A version that is not a plain whole number is damage: read as 0, as the client reads it.
local function stored_version(text)
  if text and #text <= 15 and string.match(text, '^%d+$') then return tonumber(text) end
  return 0
end

-- Check every version before writing anything.
for _, change in ipairs(changes) do
  change.listed = redis.call('SISMEMBER', KEYS[1], change.fields.name) == 1
  change.old = current(change.key)
  change.old_version = change.old and stored_version(change.old.version) or 0
  local found = change.listed and change.old_version or 0
  if change.expected >= 0 and found ~= change.expected then
    return redis.error_reply('CONFLICT ' .. change.fields.name .. ' expected ' .. change.expected .. ' found ' .. found)
  end
  if not change.listed then change.old = nil end
end

-- The bound on policies, checked against what the set holds now, before anything is written.
local held = redis.call('SCARD', KEYS[1])
local after = held
for _, change in ipairs(changes) do
  if change.op == 'put' and not change.listed then after = after + 1 end
  if change.op == 'del' and change.listed then after = after - 1 end
end
local most = tonumber(ARGV[#ARGV])
if after > most and after > held then
  return redis.error_reply('INVALID the namespace would hold ' .. after .. ' policies; it may hold at most ' .. most)
end

local DEFINITION = { 'algorithm', 'limit', 'window_ms', 'burst', 'shadow', 'window_start', 'shadow_of',
                     'predicted_rejected_share', 'overrides', 'block_ms', 'max_debt', 'reserve_timeout_ms',
                     'calendar', 'utc_offset_minutes', 'anchor_day', 'spread', 'description' }
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
  if change.op == 'check' then
    -- kept as it is: its version was checked above
  elseif change.op == 'del' then
    if change.listed then
      redis.call('DEL', change.key)
      redis.call('SREM', KEYS[1], name)
      redis.call('XADD', KEYS[2], 'MAXLEN', '~', '10000', '*', 'policy', name, 'action', 'delete', 'who', who,
                 'at', now, 'version', change.old_version, 'old', definition(change.old), 'new', '')
      changed[#changed + 1] = name
    end
  elseif not same(change.old, change.fields) then
    local version = change.old_version + 1
    -- Written whole, so nothing of a damaged or taken-over hash survives beside the definition.
    redis.call('DEL', change.key)
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
