-- Token bucket, GCRA, leaky bucket and sliding window keep one string: a tag byte, the key's
-- expiry (ms), the algorithm's values, then the allowed and rejected counters, all doubles. The
-- wide forms of the token and leaky buckets keep one value more (the level's remainder) under a tag
-- of their own; GCRA and the sliding window keep the same values in both forms.
local TOKEN_TAG, GCRA_TAG, LEAKY_TAG, SLIDING_TAG = 84, 71, 76, 83 -- 'T', 'G', 'L', 'S'
local WIDE_TOKEN_TAG, WIDE_LEAKY_TAG = 116, 108                   -- 't', 'l'
local FOUR, FIVE = 'ddddd', 'dddddd'              -- the expiry and 4 or 5 values, after the tag
local TAGGED_FOUR, TAGGED_FIVE = 'B' .. FOUR, 'B' .. FIVE
local FOUR_SIZE, FIVE_SIZE = 1 + 8 * 5, 1 + 8 * 6
-- Where the rejection counter (the last double) starts, as text: a number argument would be
-- formatted on every call.
local FOUR_REJECTED_AT, FIVE_REJECTED_AT = '33', '41'

-- Stored doubles that are NaN or infinite make a bucket foreign data: x * 0 is 0 for every finite
-- x and NaN otherwise, so one comparison of (sum of the values) * 0 checks them all.
local function packed_state(p, key, tag, format, size)
    local raw = redis_pcall('GET', key)
    if not raw then return false end
    -- A wrong type's error reply is a table, whose length is no bucket's size.
    if #raw ~= size or byte(raw, 1) ~= tag then return nil, not_a_bucket(key, p, raw) end
    -- After four values `e` is unpack's next position, a finite number too.
    local expires, a, b, c, d, e = unpack(format, raw, 2)
    if (expires + a + b + c + d + e) * 0 ~= 0 then return nil, not_a_bucket(key, p) end
    return expires, a, b, c, d, e
end

-- Writes a bucket that must live `reset` ms after `now`, and at least p.usual_ttl ms. The expiry
-- moves only when it falls short, and then an eighth further, so a busy key mostly keeps its TTL
-- (SET KEEPTTL costs about half of SET PX); an idle key still goes at most ttl/8 after the last
-- write made it necessary. Redis formats a number argument on every call, so the usual lifetime
-- goes as the text prepare() made.
local function write_packed(p, key, format, now, reset, expires, tag, a, b, c, d, e)
    local ttl = p.usual_ttl
    if reset > ttl then ttl = reset end
    if expires and expires >= now + ttl then
        redis_call('SET', key, pack(format, tag, expires, a, b, c, d, e), 'KEEPTTL')
        return
    end
    local lifetime = ttl + floor(ttl / 8)
    redis_call('SET', key, pack(format, tag, now + lifetime, a, b, c, d, e), 'PX',
               ttl == p.usual_ttl and p.usual_lifetime or lifetime)
end

-- A rejection consumes nothing: the stored state still describes the bucket and its expiry still
-- falls when it is full again, so only the rejection counter changes, in place.
local function count_rejection(key, offset, rejected)
    redis_call('SETRANGE', key, offset, pack('d', rejected + 1))
end

