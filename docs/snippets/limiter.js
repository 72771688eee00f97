// Calling Sluice's limiter from a Node service with ioredis (docs/services.md explains each part).
// Copy this file into a service; it needs ioredis 5 (npm install ioredis).
"use strict";
const Redis = require("ioredis");

const NAMESPACE = "sluice"; // the namespace whose policies were published
const DATABASE = 0; // the database they were published in (the client's)

// What a call does when the limiter cannot decide (no library loaded, no answer in time).
const FAIL_OPEN = "open"; // let the request through: for limits that protect capacity
const FAIL_CLOSED = "closed"; // refuse it: for limits that stop abuse (login, password reset, sign-up)
const FAULT_RETRY_AFTER_S = 1; // what a request refused by FAIL_CLOSED is told to wait
const RETRY_NEVER_MS = -2; // retryAfterMs of a call whose cost is above what the policy admits at once

// A client that gives up fast and never sends a decision twice (the first may have been taken).
function connect(url, { timeoutMs = 100, name = "my-service" } = {}) {
  return new Redis(url, {
    commandTimeout: timeoutMs,
    connectTimeout: Math.max(timeoutMs, 1000),
    autoResendUnfulfilledCommands: false,
    enableReadyCheck: false, // the ready check sends INFO, which the service role does not allow
    disableClientInfo: true, // CLIENT SETINFO (Redis 7.2) is not in the role either
    connectionName: name,
  });
}

// Any id as a subject: %, { and } percent-encoded, so the subject holds no brace and decodes back.
const ESCAPES = { "%": "%25", "{": "%7B", "}": "%7D" };
const escapeSubject = (subject) => subject.replace(/[%{}]/g, (char) => ESCAPES[char]);
const unescapeSubject = (escaped) =>
  escaped.replace(/%(25|7B|7D)/g, (_, hex) => String.fromCharCode(parseInt(hex, 16)));

// <namespace>:<policy>:{<subject>}: the subject is the Cluster hash tag, so one subject's buckets under
// several policies share a slot and one call can decide them together.
// The library a namespace publishes in a database (sluicectl status prints it); its functions are
// <library>_acquire, ...: sluice_acquire for the default namespace in database 0.
function libraryName(namespace = NAMESPACE, database = DATABASE) {
  if (namespace === "sluice" && database === 0) return "sluice";
  const spelled = namespace.replace(/[_.-]/g, (char) => ({ _: "__", ".": "_p", "-": "_m" })[char]);
  return `sluice_${spelled}` + (database ? `_db${database}` : "");
}

const bucketKey = (policy, subject, namespace = NAMESPACE) => `${namespace}:${policy}:{${escapeSubject(subject)}}`;

// A call the library refused: a bug in the call or the deployment, never a reason to allow.
class LimiterError extends Error {}
// The policy is not in the published library (a typo, or not published yet).
class UnknownPolicy extends LimiterError {}

// Errors that pass by themselves (a restart without persistence until the next publish, a failover, a
// long script): the limiter is unavailable. Errors that are not Redis replies are timeouts and lost connections.
const UNAVAILABLE = /^(ERR Function not found|LOADING|BUSY|MASTERDOWN|TRYAGAIN|CLUSTERDOWN|READONLY)/;

class Decision {
  constructor(fields) {
    Object.assign(this, { allowed: false, remaining: 0, retryAfterMs: -1, resetAfterMs: 0, limit: 0,
                          policy: "", extras: [], policies: [], error: null }, fields);
  }

  // An admitted reserve()'s reservation id, for settle() (empty for an allow-listed subject).
  get reservation() {
    return this.extras.length > 0 ? this.extras[0] : "";
  }

  // Rejected for good: the cost is above what the policy admits at once, so no wait lets it pass.
  get never() {
    return !this.allowed && this.retryAfterMs === RETRY_NEVER_MS;
  }

  // The HTTP status to answer: 200 (serve it), 429 (rate limited), 503 (limiter down, failing closed).
  get status() {
    if (this.allowed) return 200;
    return this.error ? 503 : 429;
  }
}

class Limiter {
  constructor(redis, { namespace = NAMESPACE, database = DATABASE, onFailure = FAIL_OPEN, log = console } = {}) {
    Object.assign(this, { redis, namespace, onFailure, log, policyTable: new Map(), policyTableReadAt: -Infinity });
    this.library = libraryName(namespace, database);
  }

  // One decision over every policy named, all or nothing (sluice_acquire).
  async acquire(subject, policies, { cost = 1, onFailure } = {}) {
    const keys = policies.map((policy) => bucketKey(policy, subject, this.namespace));
    return this.decide("acquire", keys, [...policies, cost], policies, onFailure);
  }

  // Takes `estimate` now for a cost known only after the call (sluice_reserve: token_bucket, gcra,
  // fixed_window and sliding_window policies); settle() then gives back or charges the difference. Admitted, decision.reservation is the id.
  async reserve(subject, policy, estimate, { onFailure } = {}) {
    const key = bucketKey(policy, subject, this.namespace);
    return this.decide("reserve", [key], [policy, estimate], [policy], onFailure);
  }

  // What the reserved call really cost (sluice_settle): { settled, uncharged, remaining } (remaining is
  // negative while the subject is in debt), or null when it could not be settled (logged: too late,
  // settled already, or the limiter unreachable); its estimate then stands.
  async settle(subject, policy, reservation, actual) {
    try {
      const [settled, uncharged, remaining] = await this.redis.fcall(
        `${this.library}_settle`, 1, bucketKey(policy, subject, this.namespace), policy, reservation, actual);
      return { settled, uncharged, remaining };
    } catch (error) {
      this.log.warn(`limiter: reservation ${reservation} of ${policy} not settled: ${error.message}`);
      return null;
    }
  }

  async decide(fn, keys, args, policies, onFailure) {
    let reply;
    try {
      reply = await this.redis.fcall(`${this.library}_${fn}`, keys.length, ...keys, ...args);
    } catch (error) {
      if (error.name !== "ReplyError" || UNAVAILABLE.test(error.message)) {
        return this.unavailable(error, policies, onFailure);
      }
      if (error.message.includes("unknown policy")) throw new UnknownPolicy(error.message);
      throw new LimiterError(error.message);
    }
    const [allowed, remaining, retryAfterMs, resetAfterMs, limit, policy, ...extras] = reply;
    return new Decision({ allowed: allowed === 1, remaining, retryAfterMs, resetAfterMs, limit, policy, extras,
                          policies });
  }

  // Ends a concurrency lease; false when it had ended already or the release failed (it then ends by
  // itself after the policy's window_ms).
  async release(subject, policy, lease) {
    try {
      return (await this.redis.fcall(`${this.library}_release`, 1, bucketKey(policy, subject, this.namespace),
                                     policy, lease)) === 1;
    } catch (error) {
      this.log.warn(`limiter: lease ${lease} of ${policy} not released: ${error.message}`);
      return false;
    }
  }

  // Holds a concurrency policy's lease while `work(decision)` runs, and releases it however work ends.
  async withLease(subject, policy, work, options = {}) {
    const decision = await this.acquire(subject, [policy], options);
    try {
      return await work(decision);
    } finally {
      if (decision.allowed && decision.extras.length > 0) await this.release(subject, policy, decision.extras[0]);
    }
  }

  // RateLimit-Policy and RateLimit as draft-ietf-httpapi-ratelimit-headers-10 writes them, and
  // Retry-After on a refusal that some wait ends.
  async headers(decision) {
    if (decision.error) return decision.allowed ? {} : { "Retry-After": String(FAULT_RETRY_AFTER_S) };
    const waitMs = decision.allowed ? decision.resetAfterMs : decision.retryAfterMs;
    const seconds = Math.max(Math.ceil(waitMs / 1000), decision.allowed ? 0 : 1);
    // Policy names are [A-Za-z0-9_.-], so they are Structured Field strings as they are. A call that can
    // never pass gets no time (t, Retry-After): none would let it through.
    const quotaLeft = `"${decision.policy}";r=${decision.remaining}`;
    const headers = { RateLimit: decision.never ? quotaLeft : `${quotaLeft};t=${seconds}` };
    const table = await this.policies();
    const quotas = [];
    for (const name of decision.policies) {
      const definition = table.get(name);
      if (!definition || definition.shadow) continue;
      let quota = `"${name}";q=${definition.limit}`;
      // w is whole seconds; a concurrency policy's window_ms is a lease timeout, not a window.
      if (definition.windowMs % 1000 === 0 && definition.algorithm !== "concurrency") {
        quota += `;w=${definition.windowMs / 1000}`;
      }
      quotas.push(quota);
    }
    if (quotas.length > 0) headers["RateLimit-Policy"] = quotas.join(", ");
    if (!decision.allowed && !decision.never) headers["Retry-After"] = String(seconds);
    return headers;
  }

  // The published policies (sluice_policies), reread at most once a minute; empty while unreadable.
  async policies(maxAgeMs = 60000) {
    if (Date.now() - this.policyTableReadAt > maxAgeMs) {
      this.policyTableReadAt = Date.now();
      try {
        const rows = await this.redis.fcall_ro(`${this.library}_policies`, 0);
        this.policyTable = new Map(rows.map(([name, algorithm, limit, windowMs, , shadow]) =>
          [name, { algorithm, limit, windowMs, shadow: shadow === 1 }]));
      } catch (error) {
        this.log.warn(`limiter: policy table unreadable: ${error.message}`);
      }
    }
    return this.policyTable;
  }

  unavailable(error, policies, onFailure) {
    const mode = onFailure || this.onFailure;
    this.log.warn(`limiter unavailable (${policies.join(", ")}), failing ${mode}: ${error.message}`);
    return new Decision({ allowed: mode === FAIL_OPEN, policy: policies[0], policies, error });
  }
}

// A request handler's use of it, in any framework: { status, headers, body }.
async function handle(limit, userId, serve) {
  const decision = await limit.acquire(userId, ["api"]); // or several: ["api", "api-daily"]
  const headers = await limit.headers(decision);
  if (decision.status !== 200) {
    return { status: decision.status, headers, body: decision.status === 429 ? "Too many requests" : "Try again soon" };
  }
  return { status: 200, headers, body: await serve() };
}

// The LLM pattern: reserve the prompt's tokens plus the most the completion may take, call the model,
// settle with the usage it returned: { status, answer }. If the call throws, nothing is settled and the
// estimate stands (the reservation expires after the policy's reserve_timeout_ms).
async function complete(limit, userId, promptTokens, maxCompletionTokens, callModel) {
  const decision = await limit.reserve(userId, "llm-tokens", promptTokens + maxCompletionTokens);
  if (decision.status !== 200) return { status: decision.status, answer: null };
  const { answer, usedTokens } = await callModel(); // usedTokens: the usage the model returned
  if (!decision.error) await limit.settle(userId, "llm-tokens", decision.reservation, usedTokens);
  return { status: 200, answer };
}

module.exports = { NAMESPACE, FAIL_OPEN, FAIL_CLOSED, RETRY_NEVER_MS, connect, escapeSubject, unescapeSubject,
                   libraryName, bucketKey, Limiter, Decision, LimiterError, UnknownPolicy, handle, complete };
