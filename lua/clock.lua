-- The limiter's clock: Redis TIME in whole milliseconds. Every decision reads the server's clock,
-- never a client's, so limiters on many hosts agree (seed 004). Scripts replicate by effects, so
-- replicas never re-read it.
local function now_ms()
    local t = redis.call('TIME')
    return t[1] * 1000 + math.floor(t[2] / 1000)
end
