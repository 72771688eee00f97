-- Test-only clock: replaces lua/clock.lua in libraries that tests build, so a test decides what
-- time it is (FCALL <library>_test_set_clock 0 <ms>: sluice_test_set_clock for namespace sluice).
-- Never part of a published library.
local test_now = 0
local clock_reads = 0
local function now_ms()
    clock_reads = clock_reads + 1
    return test_now
end
redis.register_function(LIBRARY.name .. '_test_set_clock', function(_, args)
    test_now = tonumber(args[1])
    return test_now
end)
-- How many times the library read the clock since it was loaded (FCALL_RO <library>_test_clock_reads 0): the
-- paths that need no clock must read none.
redis.register_function{function_name = LIBRARY.name .. '_test_clock_reads', flags = {'no-writes'},
                        callback = function() return clock_reads end}
