"""Sluice's degraded mode for a Python service (docs/services.md#degraded-mode explains it): while Redis cannot
answer, each process decides alone, by the policy's own algorithm at its share of the policy's limit.

Copy this file beside limiter.py and pass LocalLimits(instances=N) to Limiter(on_failure=FAIL_LOCAL, local=...).
"""
import collections
import itertools
import math
import threading
import time

# What each admits over time is a token bucket's: `burst` at once, then `limit` per `window_ms`.
RATE_ALGORITHMS = ("token_bucket", "gcra", "leaky_bucket")
ALGORITHMS = (*RATE_ALGORITHMS, "fixed_window", "sliding_window", "sliding_log", "concurrency")
NEVER_MS = -2  # retry_after_ms of a cost above what the share admits at once


class _RateBucket:
    def __init__(self, limit, window_ms, burst, now_ms):
        self.capacity, self.per_ms = burst, limit / window_ms
        self.tokens, self.at = float(burst), now_ms

    def verdict(self, cost, now_ms):
        self.tokens = min(self.capacity, self.tokens + (now_ms - self.at) * self.per_ms)
        self.at = now_ms
        if cost > self.capacity:
            return False, int(self.tokens), NEVER_MS
        if cost <= self.tokens:
            return True, int(self.tokens - cost), -1
        return False, int(self.tokens), math.ceil((cost - self.tokens) / self.per_ms)

    def take(self, cost, _now_ms):
        self.tokens -= cost


class _FixedWindow:
    """Aligned windows on the wall clock, or a window that opens at the subject's first local call."""

    def __init__(self, limit, window_ms, first_call, now_ms):
        self.limit, self.window_ms, self.first_call = limit, window_ms, first_call
        self.start, self.count = self._start_at(now_ms), 0

    def _start_at(self, now_ms):
        return now_ms if self.first_call else now_ms - now_ms % self.window_ms

    def verdict(self, cost, now_ms):
        if now_ms >= self.start + self.window_ms:
            self.start, self.count = self._start_at(now_ms), 0
        if cost > self.limit:
            return False, self.limit - self.count, NEVER_MS
        if self.count + cost <= self.limit:
            return True, self.limit - self.count - cost, -1
        return False, self.limit - self.count, self.start + self.window_ms - now_ms

    def take(self, cost, _now_ms):
        self.count += cost


class _SlidingWindow:
    """The previous aligned window's count, weighted by the share of it still inside the trailing window."""

    def __init__(self, limit, window_ms, now_ms):
        self.limit, self.window_ms = limit, window_ms
        self.start, self.previous, self.current = now_ms - now_ms % window_ms, 0, 0

    def verdict(self, cost, now_ms):
        start = now_ms - now_ms % self.window_ms
        if start != self.start:
            self.previous = self.current if start == self.start + self.window_ms else 0
            self.start, self.current = start, 0
        elapsed = now_ms - start
        used = self.previous * (self.window_ms - elapsed) / self.window_ms + self.current
        if cost > self.limit:
            return False, max(0, int(self.limit - used)), NEVER_MS
        if used + cost <= self.limit:
            return True, int(self.limit - used - cost), -1
        if self.current + cost <= self.limit:  # the previous window's weight falls enough within this one
            wait = self.window_ms * (1 - (self.limit - self.current - cost) / self.previous) - elapsed
            return False, max(0, int(self.limit - used)), max(1, math.ceil(wait))
        return False, max(0, int(self.limit - used)), self.window_ms - elapsed

    def take(self, cost, _now_ms):
        self.current += cost


class _SlidingLog:
    def __init__(self, limit, window_ms):
        self.limit, self.window_ms, self.log, self.used = limit, window_ms, collections.deque(), 0

    def verdict(self, cost, now_ms):
        while self.log and self.log[0][0] <= now_ms - self.window_ms:
            self.used -= self.log.popleft()[1]
        if cost > self.limit:
            return False, self.limit - self.used, NEVER_MS
        if self.used + cost <= self.limit:
            return True, self.limit - self.used - cost, -1
        freed = 0
        for admitted_at, admitted_cost in self.log:
            freed += admitted_cost
            if self.used - freed + cost <= self.limit:
                return False, self.limit - self.used, admitted_at + self.window_ms - now_ms + 1
        return False, self.limit - self.used, self.window_ms

    def take(self, cost, now_ms):
        self.log.append((now_ms, cost))
        self.used += cost


class _Leases:
    """A concurrency policy's places: leases end at release() or window_ms after they were granted."""

    def __init__(self, limit, window_ms):
        self.limit, self.window_ms, self.held = limit, window_ms, {}

    def verdict(self, cost, now_ms):
        self.held = {lease: (ends, held) for lease, (ends, held) in self.held.items() if ends > now_ms}
        used = sum(held for _, held in self.held.values())
        if cost > self.limit:
            return False, self.limit - used, NEVER_MS
        if used + cost <= self.limit:
            return True, self.limit - used - cost, -1
        return False, self.limit - used, min(ends for ends, _ in self.held.values()) - now_ms

    def take(self, cost, now_ms, lease):
        self.held[lease] = (now_ms + self.window_ms, cost)


def _share(amount, instances):
    """This process's part of a limit: the instances' parts add up to at most amount + instances - 1."""
    return math.ceil(amount / instances)


class LocalLimits:
    """The limits a process applies alone while Redis cannot answer, and what it decided that way."""

    def __init__(self, instances, configured=None, probe_interval_s=1.0, max_buckets=100_000):
        """instances: how many processes share each limit (each admits its 1/instances share).
        configured: {policy: {"algorithm", "limit", "window_ms", "burst", "first_call"}}, the service's own
        definitions, used for a policy until the limiter has read the published ones."""
        if instances < 1:
            raise ValueError("instances must be at least 1")
        self.instances = instances
        self.configured = dict(configured or {})
        self.probe_interval_s = probe_interval_s
        self.max_buckets = max_buckets
        # Calls decided here, by (policy, "allowed" | "rejected"): export it as a counter (services.md).
        self.decided = collections.Counter()
        self._published = {}
        self._buckets = {}
        self._lock = threading.Lock()
        self._lease_numbers = itertools.count(1)
        self._redis_retry_at = -math.inf

    def learn(self, published):
        """The policy table the limiter last read from Redis (Limiter.policy_table())."""
        self._published = published

    def definition(self, policy):
        return self._published.get(policy) or self.configured.get(policy)

    def redis_paused(self):
        """True while the last failure is recent: calls decide here at once instead of waiting for a timeout."""
        return time.monotonic() < self._redis_retry_at

    def redis_failed(self):
        self._redis_retry_at = time.monotonic() + self.probe_interval_s

    def redis_answered(self):
        self._redis_retry_at = -math.inf

    def decide(self, subject, policies, cost):
        """(allowed, remaining, retry_after_ms, deciding policy, extras), all or nothing over the policies;
        None when a policy has no definition this process can apply (never read and not configured)."""
        definitions = [(policy, self.definition(policy)) for policy in policies]
        if any(definition is None or definition["algorithm"] not in ALGORITHMS or definition["window_ms"] <= 0
               for _, definition in definitions):
            return None
        # A shadow policy never changes a decision.
        live = [(policy, definition) for policy, definition in definitions if not definition.get("shadow")]
        now_ms = time.time() * 1000
        with self._lock:
            buckets = [(policy, self._bucket(policy, subject, definition, now_ms)) for policy, definition in live]
            verdicts = [(policy, bucket, *bucket.verdict(cost, now_ms)) for policy, bucket in buckets]
            refusal = next((verdict for verdict in verdicts if not verdict[2]), None)
            if refusal is not None:
                policy, _, _, remaining, retry_after_ms = refusal
                self.decided[(policy, "rejected")] += 1
                return False, remaining, retry_after_ms, policy, []
            extras = []
            for policy, bucket, _, _, _ in verdicts:
                if isinstance(bucket, _Leases):
                    lease = f"local-{next(self._lease_numbers)}"
                    bucket.take(cost, now_ms, lease)
                    extras.append(lease)
                else:
                    bucket.take(cost, now_ms)
            policy, remaining = min(((verdict[0], verdict[3]) for verdict in verdicts), key=lambda pair: pair[1],
                                    default=(policies[0], 0))
            self.decided[(policy, "allowed")] += 1
            return True, remaining, -1, policy, extras

    def release(self, subject, policy, lease):
        with self._lock:
            bucket = self._buckets.get((policy, subject))
            return isinstance(bucket, _Leases) and bucket.held.pop(lease, None) is not None

    def _bucket(self, policy, subject, definition, now_ms):
        key = (policy, subject)
        if key not in self._buckets:
            if len(self._buckets) >= self.max_buckets:
                self._buckets.clear()  # a bucket forgotten admits its share again: the bound then is per sweep
            self._buckets[key] = self._new_bucket(definition, now_ms)
        return self._buckets[key]

    def _new_bucket(self, definition, now_ms):
        algorithm, window_ms = definition["algorithm"], definition["window_ms"]
        limit = _share(definition["limit"], self.instances)
        if algorithm in RATE_ALGORITHMS:
            return _RateBucket(limit, window_ms, _share(definition.get("burst") or definition["limit"],
                                                        self.instances), now_ms)
        if algorithm == "fixed_window":
            return _FixedWindow(limit, window_ms, definition.get("first_call", False), now_ms)
        if algorithm == "sliding_window":
            return _SlidingWindow(limit, window_ms, now_ms)
        if algorithm == "sliding_log":
            return _SlidingLog(limit, window_ms)
        return _Leases(limit, window_ms)
