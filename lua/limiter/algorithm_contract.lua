-- Every algorithm answers a call of `cost` units at `now` with four numbers:
--   ok      the call fits
--   units   whole units left after the call, when it fits and is consumed; otherwise available now
--   retry   ms until the same call could pass (-1 when it fits)
--   reset   ms until full again: after the call, when it fits and is consumed; otherwise as it stands
-- Each algorithm has
--   evaluate(p, key, now, cost, peek): those numbers and what apply() needs, in an outcome table
--     with the per-key counters `allowed` and `rejected`; it only reads (fixed_window counts ahead
--     and apply() takes it back when needed);
--   apply(p, key, st, verdict, now): writes the outcome: 'consume', 'reject' (count a rejection) or
--     'none' (the bucket left exactly as it was before the call); returns the extra reply element of
--     algorithms that have one;
--   acquire(p, key, now, cost): one policy deciding alone, in one pass (the common call):
--     ok, units, retry, reset, extra; or nil and a message.

-- acquire() through evaluate() and apply(), for algorithms without a faster path.
local function acquire_by_outcome(impl)
    return function(p, key, now, cost)
        local st, err = impl.evaluate(p, key, now, cost, false)
        if not st then return nil, err end
        local extra = impl.apply(p, key, st, st.ok and 'consume' or 'reject', now)
        return st.ok, st.units, st.retry, st.reset, extra
    end
end

