// Runs docs/snippets/limiter.js against the private server run_snippet_tests.sh started, as the service
// role's user, and checks every outcome docs/services.md promises. Exits non-zero at the first that differs.
"use strict";
const { execSync, fork } = require("node:child_process");
const path = require("node:path");
const Redis = require("ioredis");
const limiter = require(path.join(process.env.SLUICE_SNIPPETS_DIR, "limiter.js"));
const { LocalLimits } = require(path.join(process.env.SLUICE_SNIPPETS_DIR, "local_limits.js"));
const { exportLocalDecisions } = require(path.join(process.env.SLUICE_SNIPPETS_DIR, "local_metrics.js"));
const prometheus = require("prom-client");

const admin = new Redis(process.env.SLUICE_SNIPPET_ADMIN_URL);
const serverPid = Number(process.env.SLUICE_SNIPPET_SERVER_PID);
const replicaPid = Number(process.env.SLUICE_SNIPPET_REPLICA_PID);
const quiet = { warn() {} }; // the snippet's warnings are expected here

function check(name, condition, detail = "") {
  if (!condition) {
    console.error(`FAIL: ${name} ${typeof detail === "string" ? detail : JSON.stringify(detail)}`);
    process.exit(1);
  }
  console.log(`ok: ${name}`);
}

async function keysAndEscaping(limit) {
  for (const subject of ["plain", "a{b}c", "%7B", "100%", "{}{}", "ünï-cödé", "user@example.com", "2001:db8::1"]) {
    const escaped = limiter.escapeSubject(subject);
    check(`escaped ${JSON.stringify(subject)} has no brace and decodes back`,
          !/[{}]/.test(escaped) && limiter.unescapeSubject(escaped) === subject, escaped);
  }
  check("the key rule", limiter.bucketKey("api", "user{1}") === "sluice:api:{user%7B1%7D}");
  const decision = await limit.acquire("odd{subject}%", ["api"]);
  check("a subject with braces is a valid bucket", decision.allowed && !decision.error, decision);
  check("its bucket key is the escaped one", (await admin.exists(limiter.bucketKey("api", "odd{subject}%"))) === 1);
}

async function allowedThenRejected(limit) {
  for (let call = 1; call <= 5; ++call) {
    const decision = await limit.acquire("alice", ["api"]);
    const headers = await limit.headers(decision);
    check(`call ${call} admitted`, decision.status === 200 && decision.remaining === 5 - call, decision);
    check(`call ${call} RateLimit`, headers.RateLimit.startsWith(`"api";r=${5 - call};t=`), headers);
    check(`call ${call} RateLimit-Policy`, headers["RateLimit-Policy"] === '"api";q=5;w=3600', headers);
    check(`call ${call} no Retry-After`, !("Retry-After" in headers), headers);
  }
  const decision = await limit.acquire("alice", ["api"]);
  const headers = await limit.headers(decision);
  const retryAfter = Number(headers["Retry-After"]);
  check("call 6 rejected with 429", decision.status === 429 && !decision.allowed, decision);
  const handled = await limiter.handle(limit, "alice", async () => "served");
  check("the handler answers 429 with the headers", handled.status === 429 && handled.body === "Too many requests"
        && [0, 1].includes(retryAfter - Number(handled.headers["Retry-After"])), handled);
  const served = await limiter.handle(limit, "alice2", async () => "served");
  check("the handler serves another user", served.status === 200 && served.body === "served", served);
  check("Retry-After is the wait, in whole seconds",
        retryAfter > 0 && retryAfter <= 720 && retryAfter === Math.ceil(decision.retryAfterMs / 1000), headers);
  check("RateLimit says none left until then", headers.RateLimit === `"api";r=0;t=${retryAfter}`, headers);
}

async function neverPasses(limit) {
  const decision = await limit.acquire("gina", ["api"], { cost: 6 }); // api holds 5
  const headers = await limit.headers(decision);
  check("a cost above the capacity is a 429", decision.status === 429 && decision.never
        && decision.retryAfterMs === limiter.RETRY_NEVER_MS, decision);
  check("that names no time: no Retry-After, no t", !("Retry-After" in headers) && headers.RateLimit === '"api";r=5'
        && headers["RateLimit-Policy"] === '"api";q=5;w=3600', headers);
  check("it took nothing", (await limit.acquire("gina", ["api"])).remaining === 4);
  check("an ordinary rejection is no never", !(await limit.acquire("alice", ["api"])).never);
}

async function subjectBound(limit) {
  const longest = "{".repeat(170) + "ab"; // 512 bytes once escaped: the bound applies to what the key holds
  check("a subject of 512 escaped bytes passes", limiter.escapeSubject(longest).length === 512
        && (await limit.acquire(longest, ["api"])).allowed);
  let raised = null;
  await limit.acquire("{".repeat(171), ["api"]).catch((error) => { raised = error; });
  check("a subject of 513 escaped bytes is refused",
        raised instanceof limiter.LimiterError && raised.message.includes("the most is 512"), String(raised));
}

async function severalPolicies(limit) {
  for (let call = 1; call <= 3; ++call) {
    const decision = await limit.acquire("bob", ["api", "api-daily"]);
    check(`two policies, call ${call} admitted by the tighter`,
          decision.allowed && decision.policy === "api-daily" && decision.remaining === 3 - call, decision);
  }
  const decision = await limit.acquire("bob", ["api", "api-daily"]);
  check("two policies, call 4 rejected by api-daily", !decision.allowed && decision.policy === "api-daily", decision);
  const headers = await limit.headers(decision);
  check("both quotas advertised", headers["RateLimit-Policy"] === '"api";q=5;w=3600, "api-daily";q=3;w=86400',
        headers);
  const peek = await admin.fcall_ro("sluice_peek", 1, limiter.bucketKey("api", "bob"), "api");
  check("the rejected call took nothing from api", peek[1] === 2, peek);
}

async function spreadPolicy(limit) {
  // 60 calls over 4 buckets of 2: every bucket gets its 2 unless a bucket drew at most one of 60 (about 1e-6).
  let admitted = 0;
  for (let call = 0; call < 60; ++call) admitted += (await limit.acquire("everyone", ["global"])).allowed ? 1 : 0;
  check("a spread policy admits its limit, each bucket its share", admitted === 8, admitted);
  const buckets = [];
  for (let i = 0; i < 4; ++i) buckets.push(await admin.exists(limiter.bucketKey("global", `everyone#${i}`)));
  check("the calls reached every bucket, each in its own slot", buckets.join() === "1,1,1,1", buckets);
  check("no key without a bucket number", (await admin.exists(limiter.bucketKey("global", "everyone"))) === 0);
  let raised = null;
  await limit.acquire("everyone", ["global", "api"]).catch((error) => { raised = error; });
  check("a spread policy does not join a multi-policy call",
        raised instanceof limiter.LimiterError && raised.message.includes("cannot join a multi-policy call"),
        String(raised));
}

async function leases(limit) {
  await limit.withLease("carol", "jobs", async (held) => {
    check("lease granted", held.allowed && held.extras.length === 1, held);
    const second = await limit.acquire("carol", ["jobs"]);
    check("the one place is taken", second.status === 429, second);
    check("a concurrency limit advertises no window",
          (await limit.headers(second))["RateLimit-Policy"] === '"jobs";q=1');
  });
  const again = await limit.acquire("carol", ["jobs"]);
  check("released at the end of the work", again.allowed, again);
  check("release says it was held", (await limit.release("carol", "jobs", again.extras[0])) === true);
  check("a second release finds nothing", (await limit.release("carol", "jobs", again.extras[0])) === false);
  // Work that throws releases too.
  await limit.withLease("carol", "jobs", async () => { throw new Error("work failed"); }).catch(() => {});
  check("released when the work throws", (await limit.acquire("carol", ["jobs"])).allowed);
}

async function namespacesAndDatabases() {
  const names = [["sluice", 0, "sluice"], ["teamb", 0, "sluice_teamb"], ["sluice", 1, "sluice_sluice_db1"],
                 ["team.c-d_e", 2, "sluice_team_pc_md__e_db2"]];
  for (const [namespace, database, name] of names) {
    check(`the library of ${namespace} in database ${database}`, limiter.libraryName(namespace, database) === name,
          limiter.libraryName(namespace, database));
  }
  const client = limiter.connect(`${process.env.SLUICE_SNIPPET_ADMIN_URL}/1`, { timeoutMs: 250 });
  const other = new limiter.Limiter(client, { namespace: "team.b-c_d", database: 1, log: quiet });
  const decision = await other.acquire("zoe", ["api"]);
  check("another namespace decides through its own library",
        decision.allowed && !decision.error && decision.remaining === 4, decision);
  check("in its own database", (await client.exists(limiter.bucketKey("api", "zoe", "team.b-c_d"))) === 1
        && (await admin.exists(limiter.bucketKey("api", "zoe"))) === 0);
  client.disconnect();
}

async function unknownPolicy(limit) {
  for (const onFailure of [limiter.FAIL_OPEN, limiter.FAIL_CLOSED]) {
    let raised = null;
    await limit.acquire("dave", ["no-such-policy"], { onFailure }).catch((error) => { raised = error; });
    check(`unknown policy throws (${onFailure})`,
          raised instanceof limiter.UnknownPolicy && raised.message.includes("no-such-policy"), String(raised));
  }
}

async function libraryGone(limit) {
  await admin.call("FUNCTION", "FLUSH");
  const opened = await limit.acquire("erin", ["api"], { onFailure: limiter.FAIL_OPEN });
  check("no library, failing open: served",
        opened.allowed && opened.status === 200 && /Function not found/.test(opened.error.message), opened);
  check("failing open gives no RateLimit numbers", Object.keys(await limit.headers(opened)).length === 0);
  const closed = await limit.acquire("erin", ["api"], { onFailure: limiter.FAIL_CLOSED });
  check("no library, failing closed: 503", closed.status === 503, closed);
  check("failing closed says when to retry", JSON.stringify(await limit.headers(closed)) === '{"Retry-After":"1"}');
  execSync(process.env.SLUICE_SNIPPET_REPUBLISH, { stdio: "inherit" });
  check("served again after the publish", !(await limit.acquire("erin", ["api"])).error);
}

// A server at maxmemory with noeviction refuses the library's writes (OOM): unavailable, not a bug.
async function outOfMemory(limit) {
  await admin.config("SET", "maxmemory-policy", "noeviction");
  await admin.config("SET", "maxmemory", "1");
  try {
    for (const [onFailure, status] of [[limiter.FAIL_OPEN, 200], [limiter.FAIL_CLOSED, 503]]) {
      const decision = await limit.acquire("olga", ["api"], { onFailure });
      check(`out of memory, failing ${onFailure}: ${status}`,
            decision.status === status && /^OOM/.test(decision.error.message), String(decision.error));
    }
  } finally {
    await admin.config("SET", "maxmemory", "0");
  }
  check("served again with memory", !(await limit.acquire("olga", ["api"])).error);
}

async function serverFrozen(limit) {
  process.kill(serverPid, "SIGSTOP");
  try {
    for (const [onFailure, status] of [[limiter.FAIL_OPEN, 200], [limiter.FAIL_CLOSED, 503]]) {
      const started = Date.now();
      const decision = await limit.acquire("frank", ["api"], { onFailure });
      const elapsedMs = Date.now() - started;
      check(`frozen server, failing ${onFailure}: ${status}`,
            decision.status === status && /timed out/.test(decision.error.message), String(decision.error));
      check(`frozen server, failing ${onFailure}: within the timeout`, elapsedMs < 2000, String(elapsedMs));
    }
  } finally {
    process.kill(serverPid, "SIGCONT");
  }
  check("served again after the thaw", !(await limit.acquire("frank", ["api"])).error);
}

async function strictCalls(limit) {
  const refusing = new limiter.Limiter(limit.redis, { strict: limiter.UNCONFIRMED_REFUSED, log: quiet });
  const decision = await refusing.acquire("sam", ["api"]);
  check("a strict admission a replica confirmed is served", decision.status === 200 && decision.confirmed === true
        && decision.remaining === 4, decision);
  process.kill(replicaPid, "SIGSTOP");
  try {
    const started = Date.now();
    const unconfirmed = await refusing.acquire("sam", ["api"]);
    const elapsedMs = Date.now() - started;
    check("with the replica frozen, an unconfirmed admission is refused", unconfirmed.status === 503
          && unconfirmed.confirmed === false && unconfirmed.error instanceof limiter.NotConfirmed, unconfirmed);
    check("after the replica timeout and not before", elapsedMs >= 45 && elapsedMs < 1000, String(elapsedMs));
    const peek = await admin.fcall_ro("sluice_peek", 1, limiter.bucketKey("api", "sam"), "api");
    check("the primary counted it: a refusal, never an extra admission", peek[1] === 3, peek);
    const unknown = await new limiter.Limiter(limit.redis, { strict: limiter.UNCONFIRMED_UNKNOWN, log: quiet })
      .acquire("sam", ["api"]);
    check("the caller's choice: admitted, marked unconfirmed", unknown.status === 200 && unknown.confirmed === false
          && !unknown.error && unknown.remaining === 2, unknown);
  } finally {
    process.kill(replicaPid, "SIGCONT");
  }
  check("confirmed again after the thaw", (await refusing.acquire("sam", ["api"])).confirmed === true);
}

// The published policies the degraded-mode check calls: their limit is 10 (local-bucket: a burst of 10, then
// 10 per 4 s), shared by 4 processes.
const DEGRADED_POLICIES = ["local-bucket", "local-window", "local-sliding", "local-log", "local-jobs"];
const INSTANCES = 4;
const DEGRADED_MS = 1500;

// One service process of the degraded-mode check (forked by it): reads the policies, waits for "go", then
// calls for DEGRADED_MS and reports.
async function degradedInstance(number) {
  const local = new LocalLimits({ instances: INSTANCES });
  const registry = new prometheus.Registry();
  exportLocalDecisions(local, registry);
  const client = limiter.connect(process.env.SLUICE_SNIPPET_SERVICE_URL, { timeoutMs: 250, name: `instance-${number}` });
  const own = new limiter.Limiter(client, { onFailure: limiter.FAIL_LOCAL, local, log: quiet });
  const warm = await own.acquire(`warm-${number}`, ["api"]); // reads the published policies
  process.send({ ready: !warm.error });
  await new Promise((resolve) => process.once("message", resolve));
  const admitted = Object.fromEntries(DEGRADED_POLICIES.map((policy) => [policy, 0]));
  let [sent, localCalls] = [0, 0];
  const started = Date.now();
  while (Date.now() - started < DEGRADED_MS) {
    for (const policy of DEGRADED_POLICIES) {
      const asked = Date.now();
      const decision = await own.acquire("shared", [policy]);
      admitted[policy] += decision.allowed ? 1 : 0;
      sent += Date.now() - asked >= 200 ? 1 : 0; // it waited for the 250 ms timeout: it was sent
      localCalls += decision.local ? 1 : 0;
    }
  }
  const exported = (await registry.getSingleMetric("sluice_local_decisions_total").get()).values
    .reduce((sum, sample) => sum + sample.value, 0);
  process.send({ admitted, localCalls, exported, elapsedMs: Date.now() - started, sent });
  client.disconnect();
}

// 4 service processes with Redis frozen: what they admit together stays within each limit plus the rounding
// of 4 shares, decided at once (no timeout per call), counted, and never charged to Redis.
async function degradedMode(limit) {
  const instances = Array.from({ length: INSTANCES }, (_, number) =>
    fork(__filename, ["--degraded-instance", String(number)], { stdio: "inherit" }));
  const nextMessage = (child) => new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("an instance did not answer")), 30000);
    child.once("message", (message) => { clearTimeout(timer); resolve(message); });
  });
  let reports;
  try {
    const ready = await Promise.all(instances.map(nextMessage));
    check("4 instances read the published policies", ready.every((message) => message.ready));
    process.kill(serverPid, "SIGSTOP");
    try {
      const finished = instances.map(nextMessage);
      instances.forEach((child) => child.send("go"));
      reports = await Promise.all(finished);
    } finally {
      process.kill(serverPid, "SIGCONT");
    }
  } finally {
    instances.forEach((child) => child.kill("SIGKILL"));
  }
  const share = Math.ceil(10 / INSTANCES);
  const longestS = Math.max(...reports.map((report) => report.elapsedMs)) / 1000;
  for (const policy of DEGRADED_POLICIES) {
    const total = reports.reduce((sum, report) => sum + report.admitted[policy], 0);
    const [bound, published] = policy === "local-bucket" // a burst share, then its share of 10 per 4 s
      ? [INSTANCES * Math.floor(share + (share * longestS) / 4), 10 + Math.floor((10 * longestS) / 4)]
      : [INSTANCES * share, 10];
    console.log(`degraded: ${INSTANCES} processes admitted ${total} calls of ${policy} in ${longestS.toFixed(2)} s ` +
                `(the published policy: ${published}; the bound, limit plus rounding of ${INSTANCES} shares: ${bound})`);
    check(`degraded ${policy}: within the limit plus the rounding of the shares`, total > 0 && total <= bound,
          { total, bound });
  }
  // The calls sent before each instance noticed (one each, and a probe a second) run when Redis wakes: they may
  // have been applied. The calls decided locally are never sent.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const sent = reports.reduce((sum, report) => sum + report.sent, 0);
  let charged = 0;
  for (const policy of DEGRADED_POLICIES.slice(1)) {
    charged += 10 - (await admin.fcall_ro("sluice_peek", 1, limiter.bucketKey(policy, "shared"), policy))[1];
  }
  console.log(`degraded: ${sent} calls were sent to the frozen server (a first one and a probe a second per ` +
              `instance); ${charged} units charged to the buckets after the thaw`);
  check("nothing decided locally was charged to Redis", sent > 0 && sent <= 4 * INSTANCES && charged <= sent,
        { sent, charged });
  const localCalls = reports.reduce((sum, report) => sum + report.localCalls, 0);
  console.log(`degraded: ${localCalls} calls decided locally in all, each counted in sluice_local_decisions_total`);
  check("each instance exported every call it decided locally",
        reports.every((report) => report.localCalls === report.exported), reports);
  check("locally decided at once, not one timeout per call", localCalls > 200, String(localCalls));
  await new Promise((resolve) => setTimeout(resolve, 1100)); // the probe interval: the next call asks Redis again
  const back = await new limiter.Limiter(limit.redis, { onFailure: limiter.FAIL_LOCAL, log: quiet,
                                                        local: new LocalLimits({ instances: INSTANCES }) })
    .acquire("shared", ["local-log"]);
  check("Redis decides again once it answers", back.allowed && !back.local && !back.error, back);
}

async function reserveThenSettle(limit) {
  // llm-tokens: a bucket of 1000 that refills one token a week, and up to 50 tokens of debt.
  const first = await limit.reserve("mia", "llm-tokens", 100);
  check("a reservation takes its estimate", first.allowed && first.remaining === 900
        && first.reservation.endsWith(":100"), first);
  let settled = await limit.settle("mia", "llm-tokens", first.reservation, 40);
  check("settling below the estimate gives the rest back", JSON.stringify(settled)
        === JSON.stringify({ settled: 40, uncharged: 0, remaining: 960 }), settled);
  check("settling twice is refused and logged", (await limit.settle("mia", "llm-tokens", first.reservation, 40)) === null);
  check("another subject cannot settle it", (await limit.settle("max", "llm-tokens", first.reservation, 1)) === null);
  const second = await limit.reserve("mia", "llm-tokens", 900);
  settled = await limit.settle("mia", "llm-tokens", second.reservation, 1020);
  check("an excess goes into debt, up to max_debt", JSON.stringify(settled)
        === JSON.stringify({ settled: 1010, uncharged: 10, remaining: -50 }), settled);
  const inDebt = await limit.acquire("mia", ["llm-tokens"]);
  check("a subject in debt is rejected", inDebt.status === 429 && inDebt.remaining === -50, inDebt);
  const served = await limiter.complete(limit, "ned", 120, 500, async () => ({ answer: "an answer", usedTokens: 300 }));
  const peek = await admin.fcall_ro("sluice_peek", 1, limiter.bucketKey("llm-tokens", "ned"), "llm-tokens");
  check("the LLM pattern serves and settles the usage", served.status === 200 && served.answer === "an answer"
        && peek[1] === 700, { served, peek });
}

// 16 clients reserve and settle at once on one subject: what the bucket was charged is exactly the sum of
// what the settlements say the calls cost (the bucket holds 1,000,000 and refills one a week).
async function concurrentSettlements() {
  const rounds = 40;
  const costs = [];
  const problems = [];
  const clients = Array.from({ length: 16 }, (_, number) =>
    limiter.connect(process.env.SLUICE_SNIPPET_SERVICE_URL, { timeoutMs: 2000, name: `client-${number}` }));
  await Promise.all(clients.map(async (client, number) => {
    const own = new limiter.Limiter(client, { log: quiet });
    for (let round = 0; round < rounds; ++round) {
      const decision = await own.reserve("shared", "llm-shared", 1 + ((number * 7 + round * 13) % 20));
      if (!decision.allowed || decision.error) return problems.push(`client ${number}: reserve refused`);
      const settlement = await own.settle("shared", "llm-shared", decision.reservation, (number + round * 3) % 31);
      if (!settlement || settlement.uncharged) return problems.push(`client ${number}: settle failed`);
      costs.push(settlement.settled);
    }
    return null;
  }));
  clients.forEach((client) => client.disconnect());
  check("16 clients reserved and settled without a refusal", problems.length === 0 && costs.length === 16 * rounds,
        problems);
  const left = (await admin.fcall_ro("sluice_peek", 1, limiter.bucketKey("llm-shared", "shared"), "llm-shared"))[1];
  const charged = costs.reduce((sum, cost) => sum + cost, 0);
  check("the bucket was charged exactly the settled costs", left === 1000000 - charged, { left, charged });
}

async function main() {
  const client = limiter.connect(process.env.SLUICE_SNIPPET_SERVICE_URL, { timeoutMs: 250 });
  const limit = new limiter.Limiter(client, { log: quiet });
  for (const run of [keysAndEscaping, allowedThenRejected, neverPasses, subjectBound, severalPolicies, spreadPolicy,
                     leases,
                     reserveThenSettle, concurrentSettlements, namespacesAndDatabases, unknownPolicy, libraryGone,
                     outOfMemory, serverFrozen, strictCalls, degradedMode]) {
    await run(limit);
  }
  client.disconnect();
  admin.disconnect();
}

const instanceFlag = process.argv.indexOf("--degraded-instance");
(instanceFlag > 0 ? degradedInstance(Number(process.argv[instanceFlag + 1])) : main()).catch((error) => {
  console.error(`FAIL: ${error.stack}`);
  process.exit(1);
});
