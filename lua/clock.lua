-- The limiter's clock: Redis TIME in whole milliseconds. Every decision reads the server's clock,
-- never a client's, so limiters on many hosts agree (seed 004). Scripts replicate by effects, so
-- replicas never re-read it.
--
-- TIME replies with two texts, seconds and microseconds (0 to 999999, no leading zeros). Lua turns
-- text into a number with strtod, the dearest part of reading the clock, so the seconds are
-- converted once per second and the milliseconds are read off the microseconds' leading digits.
local clock_seconds, clock_seconds_ms, clock_byte
local function now_ms()
    local t = redis.call('TIME')
    local seconds, micros = t[1], t[2]
    if seconds ~= clock_seconds then
        clock_seconds, clock_seconds_ms, clock_byte = seconds, tonumber(seconds) * 1000, string.byte
    end
    local digits = #micros
    if digits == 6 then
        local a, b, c = clock_byte(micros, 1, 3)
        return clock_seconds_ms + a * 100 + b * 10 + c - 5328 -- '0' is 48: 48 * 111
    end
    if digits == 5 then
        local a, b = clock_byte(micros, 1, 2)
        return clock_seconds_ms + a * 10 + b - 528 -- 48 * 11
    end
    if digits == 4 then return clock_seconds_ms + clock_byte(micros, 1) - 48 end
    return clock_seconds_ms
end
