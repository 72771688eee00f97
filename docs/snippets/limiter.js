// Calling Sluice's limiter from a Node service with ioredis (docs/services.md explains each part).
// Copy this file into a service; it needs ioredis 5 (npm install ioredis).
"use strict";
const Redis = require("ioredis");

const NAMESPACE = "sluice"; // the namespace whose policies were published
const DATABASE = 0; // the database they were published in (the client's)

// What a call does when the limiter cannot decide (no library loaded, no answer in time).
const FAIL_OPEN = "open"; // let the request through: for limits that protect capacity
const FAIL_CLOSED = "closed"; // refuse it: for limits that stop abuse (login, password reset, sign-up)
const FAIL_LOCAL = "local"; // decide in this process at its share of the limit (local_limits.js)
// What a strict call makes of an admission no replica confirmed in time (new Limiter(redis, { strict })).
const UNCONFIRMED_REFUSED = "refused"; // not admitted: a 503, as failing closed
const UNCONFIRMED_UNKNOWN = "unknown"; // admitted with decision.confirmed false: the caller decides
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
// A spread policy's bucket key: <namespace>:<policy>:{<subject>#<i>}, i at random below its spread.
const spreadKey = (key, definition) =>
  definition?.spread ? `${key.slice(0, -1)}#${Math.floor(Math.random() * definition.spread)}}` : key;

// A call the library refused: a bug in the call or the deployment, never a reason to allow.
class LimiterError extends Error {}
// The policy is not in the published library (a typo, or not published yet).
class UnknownPolicy extends LimiterError {}

// Errors that pass by themselves (a restart without persistence until the next publish, a failover, a
// long script, a primary without its replicas or memory): the limiter is unavailable. Errors that are not Redis
// replies are timeouts and lost connections.
const UNAVAILABLE = /^(ERR Function not found|LOADING|BUSY|MASTERDOWN|TRYAGAIN|CLUSTERDOWN|READONLY|NOREPLICAS|OOM)/;

// A strict call's admission that no replica acknowledged within replicaTimeoutMs.
class NotConfirmed extends Error {}

class Decision {
  constructor(fields) {
    // local: decided by this process's LocalLimits, Redis being unreachable. confirmed: a strict call's
    // admission a replica acknowledged in time (null: not asked).
    Object.assign(this, { allowed: false, remaining: 0, retryAfterMs: -1, resetAfterMs: 0, limit: 0,
                          policy: "", extras: [], policies: [], error: null, local: false, confirmed: null }, fields);
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
    return this.error && !this.local ? 503 : 429;
  }
}

class Limiter {
  // redis: an ioredis Redis (standalone, or with sentinels) or Cluster. local: a LocalLimits, for
  // onFailure FAIL_LOCAL. strict: UNCONFIRMED_REFUSED or UNCONFIRMED_UNKNOWN to have each decision
  // acknowledged by a replica (WAIT 1 replicaTimeoutMs).
  constructor(redis, { namespace = NAMESPACE, database = DATABASE, onFailure = FAIL_OPEN, local = null, strict = null,
                       replicaTimeoutMs = 50, log = console } = {}) {
    if (onFailure === FAIL_LOCAL && !local) throw new RangeError("FAIL_LOCAL needs local: new LocalLimits(...)");
    Object.assign(this, { redis, namespace, onFailure, local, strict, replicaTimeoutMs, log, policyTable: new Map(),
                          policyTableReadAt: -Infinity });
    this.library = libraryName(namespace, database);
  }

  // One decision over every policy named, all or nothing (sluice_acquire). A spread policy (a hot subject's
  // buckets, each in a slot of its own) is called alone, on one of its buckets picked at random.
  async acquire(subject, policies, { cost = 1, onFailure } = {}) {
    const table = await this.policies();
    const keys = policies.map((policy) => spreadKey(bucketKey(policy, subject, this.namespace), table.get(policy)));
    return this.decide("acquire", subject, keys, [...policies, cost], policies, onFailure);
  }

  // Takes `estimate` now for a cost known only after the call (sluice_reserve: token_bucket, gcra,
  // fixed_window and sliding_window policies); settle() then gives back or charges the difference. Admitted, decision.reservation is the id.
  async reserve(subject, policy, estimate, { onFailure } = {}) {
    const key = bucketKey(policy, subject, this.namespace);
    return this.decide("reserve", subject, [key], [policy, estimate], [policy], onFailure);
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

  async decide(fn, subject, keys, args, policies, onFailure) {
    const mode = onFailure || this.onFailure;
    if (mode === FAIL_LOCAL && !this.local) throw new RangeError("FAIL_LOCAL needs local: new LocalLimits(...)");
    const cost = args[args.length - 1];
    if (mode === FAIL_LOCAL && this.local.redisPaused()) { // Redis failed a moment ago: no timeout to wait
      return this.unavailable(new Error("the limiter failed less than a second ago"), subject, policies, mode, cost);
    }
    let reply, confirmed;
    try {
      [reply, confirmed] = await this.fcall(`${this.library}_${fn}`, keys, args);
    } catch (error) {
      if (error.name !== "ReplyError" || UNAVAILABLE.test(error.message)) {
        return this.unavailable(error, subject, policies, mode, cost);
      }
      if (error.message.includes("unknown policy")) throw new UnknownPolicy(error.message);
      throw new LimiterError(error.message);
    }
    if (this.local) {
      this.local.redisAnswered();
      this.local.learn(await this.policies());
    }
    const [allowed, remaining, retryAfterMs, resetAfterMs, limit, policy, ...extras] = reply;
    if (allowed === 1 && confirmed === false && this.strict === UNCONFIRMED_REFUSED) {
      this.log.warn(`limiter: an admission of ${policies.join(", ")} no replica confirmed in ` +
                    `${this.replicaTimeoutMs} ms: refused`);
      return new Decision({ policy, policies, confirmed, error: new NotConfirmed(
        `no replica confirmed within ${this.replicaTimeoutMs} ms`) });
    }
    return new Decision({ allowed: allowed === 1, remaining, retryAfterMs, resetAfterMs, limit, policy, extras,
                          policies, confirmed });
  }

  // [reply, confirmed]. A strict call sends WAIT 1 right behind the FCALL, in the same round trip and on the
  // same connection (WAIT counts only its own connection's writes): an ioredis pipeline goes on one
  // connection, and on a Cluster to the node of its keys (WAIT has none).
  async fcall(fn, keys, args) {
    if (!this.strict) return [await this.redis.fcall(fn, keys.length, ...keys, ...args), null];
    const [[callError, reply], [waitError, replicas]] = await this.redis.pipeline()
      .fcall(fn, keys.length, ...keys, ...args).call("wait", 1, this.replicaTimeoutMs).exec();
    if (callError || waitError) throw callError || waitError;
    return [reply, replicas >= 1];
  }

  // Ends a concurrency lease; false when it had ended already or the release failed (it then ends by
  // itself after the policy's window_ms).
  async release(subject, policy, lease) {
    if (String(lease).startsWith("local-")) return Boolean(this.local && this.local.release(subject, policy, lease));
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
    if (decision.error && !decision.local) return decision.allowed ? {} : { "Retry-After": String(FAULT_RETRY_AFTER_S) };
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
        this.policyTable = new Map(rows.map(([name, algorithm, limit, windowMs, burst, shadow, , firstCall, , ,
          spread]) => [name, { algorithm, limit, windowMs, burst, shadow: shadow === 1, firstCall: firstCall === 1,
          spread: spread ?? 0 }]));
      } catch (error) {
        this.log.warn(`limiter: policy table unreadable: ${error.message}`);
      }
    }
    return this.policyTable;
  }

  unavailable(error, subject, policies, mode, cost) {
    if (mode !== FAIL_LOCAL) {
      this.log.warn(`limiter unavailable (${policies.join(", ")}), failing ${mode}: ${error.message}`);
      return new Decision({ allowed: mode === FAIL_OPEN, policy: policies[0], policies, error });
    }
    if (!this.local.redisPaused()) { // the first failure since Redis last answered, or a failed probe
      this.log.warn(`limiter unavailable (${policies.join(", ")}), deciding locally: ${error.message}`);
      this.local.redisFailed();
    }
    const local = this.local.decide(subject, policies, cost);
    if (!local) {
      this.log.warn(`limiter unavailable and no local definition of ${policies.join(", ")}: refused`);
      return new Decision({ policy: policies[0], policies, error });
    }
    return new Decision({ ...local, policies, error, local: true });
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

module.exports = { NAMESPACE, FAIL_OPEN, FAIL_CLOSED, FAIL_LOCAL, UNCONFIRMED_REFUSED, UNCONFIRMED_UNKNOWN,
                   RETRY_NEVER_MS, NotConfirmed, connect, escapeSubject, unescapeSubject,
                   libraryName, bucketKey, Limiter, Decision, LimiterError, UnknownPolicy, handle, complete };
