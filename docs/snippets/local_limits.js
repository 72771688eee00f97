// Sluice's degraded mode for a Node service (docs/services.md#degraded-mode explains it): while Redis cannot
// answer, each process decides alone, by the policy's own algorithm at its share of the policy's limit.
// Copy this file beside limiter.js and pass new LocalLimits({ instances: N }) to
// new Limiter(redis, { onFailure: FAIL_LOCAL, local }).
"use strict";

// What each admits over time is a token bucket's: `burst` at once, then `limit` per `windowMs`.
const RATE_ALGORITHMS = ["token_bucket", "gcra", "leaky_bucket"];
const ALGORITHMS = [...RATE_ALGORITHMS, "fixed_window", "sliding_window", "sliding_log", "concurrency"];
const NEVER_MS = -2; // retryAfterMs of a cost above what the share admits at once

class RateBucket {
  constructor(limit, windowMs, burst, nowMs) {
    Object.assign(this, { capacity: burst, perMs: limit / windowMs, tokens: burst, at: nowMs });
  }

  verdict(cost, nowMs) {
    this.tokens = Math.min(this.capacity, this.tokens + (nowMs - this.at) * this.perMs);
    this.at = nowMs;
    const remaining = Math.floor(this.tokens);
    if (cost > this.capacity) return [false, remaining, NEVER_MS];
    if (cost <= this.tokens) return [true, Math.floor(this.tokens - cost), -1];
    return [false, remaining, Math.ceil((cost - this.tokens) / this.perMs)];
  }

  take(cost) {
    this.tokens -= cost;
  }
}

// Aligned windows on the wall clock, or a window that opens at the subject's first local call.
class FixedWindow {
  constructor(limit, windowMs, firstCall, nowMs) {
    Object.assign(this, { limit, windowMs, firstCall, count: 0 });
    this.start = this.startAt(nowMs);
  }

  startAt(nowMs) {
    return this.firstCall ? nowMs : nowMs - (nowMs % this.windowMs);
  }

  verdict(cost, nowMs) {
    if (nowMs >= this.start + this.windowMs) Object.assign(this, { start: this.startAt(nowMs), count: 0 });
    const left = this.limit - this.count;
    if (cost > this.limit) return [false, left, NEVER_MS];
    if (cost <= left) return [true, left - cost, -1];
    return [false, left, this.start + this.windowMs - nowMs];
  }

  take(cost) {
    this.count += cost;
  }
}

// The previous aligned window's count, weighted by the share of it still inside the trailing window.
class SlidingWindow {
  constructor(limit, windowMs, nowMs) {
    Object.assign(this, { limit, windowMs, start: nowMs - (nowMs % windowMs), previous: 0, current: 0 });
  }

  verdict(cost, nowMs) {
    const start = nowMs - (nowMs % this.windowMs);
    if (start !== this.start) {
      this.previous = start === this.start + this.windowMs ? this.current : 0;
      Object.assign(this, { start, current: 0 });
    }
    const elapsed = nowMs - start;
    const used = (this.previous * (this.windowMs - elapsed)) / this.windowMs + this.current;
    const left = Math.max(0, Math.floor(this.limit - used));
    if (cost > this.limit) return [false, left, NEVER_MS];
    if (used + cost <= this.limit) return [true, Math.floor(this.limit - used - cost), -1];
    if (this.current + cost <= this.limit) { // the previous window's weight falls enough within this one
      const wait = this.windowMs * (1 - (this.limit - this.current - cost) / this.previous) - elapsed;
      return [false, left, Math.max(1, Math.ceil(wait))];
    }
    return [false, left, this.windowMs - elapsed];
  }

  take(cost) {
    this.current += cost;
  }
}

class SlidingLog {
  constructor(limit, windowMs) {
    Object.assign(this, { limit, windowMs, log: [], used: 0 });
  }

  verdict(cost, nowMs) {
    while (this.log.length > 0 && this.log[0][0] <= nowMs - this.windowMs) this.used -= this.log.shift()[1];
    const left = this.limit - this.used;
    if (cost > this.limit) return [false, left, NEVER_MS];
    if (cost <= left) return [true, left - cost, -1];
    let freed = 0;
    for (const [admittedAt, admittedCost] of this.log) {
      freed += admittedCost;
      if (this.used - freed + cost <= this.limit) return [false, left, admittedAt + this.windowMs - nowMs + 1];
    }
    return [false, left, this.windowMs];
  }

  take(cost, nowMs) {
    this.log.push([nowMs, cost]);
    this.used += cost;
  }
}

// A concurrency policy's places: leases end at release() or windowMs after they were granted.
class Leases {
  constructor(limit, windowMs) {
    Object.assign(this, { limit, windowMs, held: new Map() });
  }

  verdict(cost, nowMs) {
    let used = 0;
    let firstEnd = Infinity;
    for (const [lease, [ends, held]] of this.held) {
      if (ends <= nowMs) {
        this.held.delete(lease);
      } else {
        used += held;
        firstEnd = Math.min(firstEnd, ends);
      }
    }
    const left = this.limit - used;
    if (cost > this.limit) return [false, left, NEVER_MS];
    if (cost <= left) return [true, left - cost, -1];
    return [false, left, firstEnd - nowMs];
  }

  take(cost, nowMs, lease) {
    this.held.set(lease, [nowMs + this.windowMs, cost]);
  }
}

// This process's part of a limit: the instances' parts add up to at most amount + instances - 1.
const share = (amount, instances) => Math.ceil(amount / instances);

// The limits a process applies alone while Redis cannot answer, and what it decided that way.
class LocalLimits {
  // instances: how many processes share each limit (each admits its 1/instances share).
  // configured: { policy: { algorithm, limit, windowMs, burst, firstCall } }, the service's own definitions,
  // used for a policy until the limiter has read the published ones.
  constructor({ instances, configured = {}, probeIntervalMs = 1000, maxBuckets = 100000 }) {
    if (!(instances >= 1)) throw new RangeError("instances must be at least 1");
    Object.assign(this, { instances, configured, probeIntervalMs, maxBuckets });
    // Calls decided here, by `${policy} allowed|rejected`: export it as a counter (services.md).
    this.decided = new Map();
    this.published = new Map();
    this.buckets = new Map();
    this.leaseNumber = 0;
    this.redisRetryAt = -Infinity;
  }

  // The policy table the limiter last read from Redis (Limiter.policies()).
  learn(published) {
    this.published = published;
  }

  definition(policy) {
    return this.published.get(policy) || this.configured[policy];
  }

  // True while the last failure is recent: calls decide here at once instead of waiting for a timeout.
  redisPaused() {
    return Date.now() < this.redisRetryAt;
  }

  redisFailed() {
    this.redisRetryAt = Date.now() + this.probeIntervalMs;
  }

  redisAnswered() {
    this.redisRetryAt = -Infinity;
  }

  // { allowed, remaining, retryAfterMs, policy, extras }, all or nothing over the policies; null when a
  // policy has no definition this process can apply (never read and not configured).
  decide(subject, policies, cost) {
    const definitions = policies.map((policy) => [policy, this.definition(policy)]);
    if (definitions.some(([, d]) => !d || !ALGORITHMS.includes(d.algorithm) || !(d.windowMs > 0))) return null;
    const nowMs = Date.now();
    // A shadow policy never changes a decision.
    const verdicts = definitions.filter(([, definition]) => !definition.shadow).map(([policy, definition]) => {
      const bucket = this.bucket(policy, subject, definition, nowMs);
      return [policy, bucket, ...bucket.verdict(cost, nowMs)];
    });
    const refusal = verdicts.find(([, , admits]) => !admits);
    if (refusal) {
      const [policy, , , remaining, retryAfterMs] = refusal;
      this.count(policy, "rejected");
      return { allowed: false, remaining, retryAfterMs, policy, extras: [] };
    }
    const extras = [];
    for (const [, bucket] of verdicts) {
      if (bucket instanceof Leases) {
        const lease = `local-${++this.leaseNumber}`;
        bucket.take(cost, nowMs, lease);
        extras.push(lease);
      } else {
        bucket.take(cost, nowMs);
      }
    }
    let [policy, remaining] = [policies[0], 0];
    if (verdicts.length > 0) [policy, , , remaining] = verdicts.reduce((a, b) => (b[3] < a[3] ? b : a));
    this.count(policy, "allowed");
    return { allowed: true, remaining, retryAfterMs: -1, policy, extras };
  }

  release(subject, policy, lease) {
    const bucket = this.buckets.get(`${policy}\n${subject}`);
    return bucket instanceof Leases && bucket.held.delete(lease);
  }

  count(policy, outcome) {
    const key = `${policy} ${outcome}`;
    this.decided.set(key, (this.decided.get(key) || 0) + 1);
  }

  bucket(policy, subject, definition, nowMs) {
    const key = `${policy}\n${subject}`;
    if (!this.buckets.has(key)) {
      // A bucket forgotten admits its share again: the bound then holds per sweep.
      if (this.buckets.size >= this.maxBuckets) this.buckets.clear();
      this.buckets.set(key, this.newBucket(definition, nowMs));
    }
    return this.buckets.get(key);
  }

  newBucket({ algorithm, limit, windowMs, burst, firstCall }, nowMs) {
    const mine = share(limit, this.instances);
    if (RATE_ALGORITHMS.includes(algorithm)) {
      return new RateBucket(mine, windowMs, share(burst || limit, this.instances), nowMs);
    }
    if (algorithm === "fixed_window") return new FixedWindow(mine, windowMs, Boolean(firstCall), nowMs);
    if (algorithm === "sliding_window") return new SlidingWindow(mine, windowMs, nowMs);
    if (algorithm === "sliding_log") return new SlidingLog(mine, windowMs);
    return new Leases(mine, windowMs);
  }
}

module.exports = { LocalLimits, ALGORITHMS };
