-- floor_reject of floor.lua sent as a script (EVALSHA) instead of a function (FCALL): measured at
-- once beside it, the pair shows what calling through FUNCTION costs over EVALSHA for the same body,
-- a cost every Sluice row pays against the peers' scripts.
redis.call('TIME')
redis.call('GET', KEYS[1])
redis.call('SETRANGE', KEYS[1], 33, 'rejected')
return {0, 0, 1, 1, 1, 'floor'}
