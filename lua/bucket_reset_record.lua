-- Records the reset of one bucket, before its key is deleted (the key lives in another slot).
-- KEYS[1] = <ns>:audit (stream)
-- ARGV = policy, who, subject, bucket key, the bucket's last state (JSON)
-- Reply: the time recorded (ms).
local time = redis.call('TIME')
local now = tostring(time[1] * 1000 + math.floor(time[2] / 1000))
redis.call('XADD', KEYS[1], 'MAXLEN', '~', '10000', '*', 'policy', ARGV[1], 'action', 'reset', 'who', ARGV[2],
           'at', now, 'version', '0', 'old', ARGV[5], 'new', '', 'subject', ARGV[3], 'key', ARGV[4])
return now
