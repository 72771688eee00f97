# SPDX-License-Identifier: GPL-3.0-or-later
"""Runs docs/snippets/limiter.py against the private server run_snippet_tests.sh started, as the service
role's user, and checks every outcome docs/services.md promises. Exits non-zero at the first that differs."""
import collections
import logging
import math
import multiprocessing
import os
import signal
import sys
import threading
import time

sys.path.insert(0, os.environ["SLUICE_SNIPPETS_DIR"])
import limiter  # noqa: E402 (docs/snippets/limiter.py)
import local_limits  # noqa: E402 (docs/snippets/local_limits.py)
import local_metrics  # noqa: E402 (docs/snippets/local_metrics.py)
import prometheus_client  # noqa: E402
import redis  # noqa: E402

SERVICE_URL = os.environ["SLUICE_SNIPPET_SERVICE_URL"]
ADMIN = redis.Redis.from_url(os.environ["SLUICE_SNIPPET_ADMIN_URL"])
SERVER_PID = int(os.environ["SLUICE_SNIPPET_SERVER_PID"])
REPLICA_PID = int(os.environ["SLUICE_SNIPPET_REPLICA_PID"])
REPUBLISH = os.environ["SLUICE_SNIPPET_REPUBLISH"]  # a shell command

logging.basicConfig(level=logging.ERROR)  # the snippet's warnings are expected here


def check(name, condition, detail=""):
    if not condition:
        sys.exit(f"FAIL: {name} {detail}")
    print(f"ok: {name}")


def keys_and_escaping(limit):
    for subject in ["plain", "a{b}c", "%7B", "100%", "{}{}", "ünï-cödé", "user@example.com", "2001:db8::1"]:
        escaped = limiter.escape_subject(subject)
        check(f"escaped {subject!r} has no brace and decodes back",
              "{" not in escaped and "}" not in escaped and limiter.unescape_subject(escaped) == subject, escaped)
    check("the key rule", limiter.bucket_key("api", "user{1}") == "sluice:api:{user%7B1%7D}",
          limiter.bucket_key("api", "user{1}"))
    decision = limit.acquire("odd{subject}%", "api")
    check("a subject with braces is a valid bucket", decision.allowed and decision.error is None, decision)
    check("its bucket key is the escaped one", ADMIN.exists(limiter.bucket_key("api", "odd{subject}%")) == 1)


def allowed_then_rejected(limit):
    for call in range(1, 6):
        decision = limit.acquire("alice", "api")
        headers = limit.headers(decision)
        check(f"call {call} admitted", decision.status == 200 and decision.remaining == 5 - call, decision)
        check(f"call {call} RateLimit", headers["RateLimit"].startswith(f'"api";r={5 - call};t='), headers)
        check(f"call {call} RateLimit-Policy", headers["RateLimit-Policy"] == '"api";q=5;w=3600', headers)
        check(f"call {call} no Retry-After", "Retry-After" not in headers, headers)
    decision = limit.acquire("alice", "api")
    headers = limit.headers(decision)
    retry_after = int(headers.get("Retry-After", "0"))
    check("call 6 rejected with 429", decision.status == 429 and not decision.allowed, decision)
    status, handled_headers, body = limiter.handle(limit, "alice", lambda: "served")
    check("the handler answers 429 with the headers", status == 429 and body == "Too many requests"
          and 0 <= retry_after - int(handled_headers["Retry-After"]) <= 1, (status, handled_headers, body))
    check("the handler serves another user", limiter.handle(limit, "alice2", lambda: "served")[::2] == (200, "served"))
    check("Retry-After is the wait, in whole seconds", 0 < retry_after <= 720
          and retry_after == -(-decision.retry_after_ms // 1000), headers)
    check("RateLimit says none left until then", headers["RateLimit"] == f'"api";r=0;t={retry_after}', headers)


def never_passes(limit):
    decision = limit.acquire("gina", "api", cost=6)  # api holds 5
    headers = limit.headers(decision)
    check("a cost above the capacity is a 429", decision.status == 429 and decision.never
          and decision.retry_after_ms == limiter.RETRY_NEVER_MS, decision)
    check("that names no time: no Retry-After, no t", "Retry-After" not in headers
          and headers["RateLimit"] == '"api";r=5' and headers["RateLimit-Policy"] == '"api";q=5;w=3600', headers)
    check("it took nothing", limit.acquire("gina", "api").remaining == 4)
    check("an ordinary rejection is no never", not limit.acquire("alice", "api").never)


def subject_bound(limit):
    longest = "{" * 170 + "ab"  # 512 bytes once escaped: the bound applies to what the key holds
    check("a subject of 512 escaped bytes passes", len(limiter.escape_subject(longest)) == 512
          and limit.acquire(longest, "api").allowed)
    try:
        limit.acquire("{" * 171, "api")
        check("a subject of 513 escaped bytes is refused", False)
    except limiter.LimiterError as error:
        check("a subject of 513 escaped bytes is refused", "the most is 512" in str(error), error)


def several_policies(limit):
    for call in range(1, 4):
        decision = limit.acquire("bob", "api", "api-daily")
        check(f"two policies, call {call} admitted by the tighter", decision.allowed
              and decision.policy == "api-daily" and decision.remaining == 3 - call, decision)
    decision = limit.acquire("bob", "api", "api-daily")
    check("two policies, call 4 rejected by api-daily", not decision.allowed and decision.policy == "api-daily",
          decision)
    headers = limit.headers(decision)
    check("both quotas advertised", headers["RateLimit-Policy"] == '"api";q=5;w=3600, "api-daily";q=3;w=86400',
          headers)
    peek = ADMIN.fcall_ro("sluice_peek", 1, limiter.bucket_key("api", "bob"), "api")
    check("the rejected call took nothing from api", peek[1] == 2, peek)


def spread_policy(limit):
    # 60 calls over 4 buckets of 2: every bucket gets its 2 unless a bucket drew at most one of 60 (about 1e-6).
    admitted = sum(limit.acquire("everyone", "global").allowed for _ in range(60))
    check("a spread policy admits its limit, each bucket its share", admitted == 8, admitted)
    buckets = [ADMIN.exists(limiter.bucket_key("global", f"everyone#{i}")) for i in range(4)]
    check("the calls reached every bucket, each in its own slot", buckets == [1, 1, 1, 1], buckets)
    check("no key without a bucket number", ADMIN.exists(limiter.bucket_key("global", "everyone")) == 0)
    try:
        limit.acquire("everyone", "global", "api")
        check("a spread policy does not join a multi-policy call", False)
    except limiter.LimiterError as error:
        check("a spread policy does not join a multi-policy call", "cannot join a multi-policy call" in str(error),
              error)


def leases(limit):
    with limit.lease("carol", "jobs") as held:
        check("lease granted", held.allowed and len(held.extras) == 1, held)
        second = limit.acquire("carol", "jobs")
        check("the one place is taken", second.status == 429, second)
        check("a concurrency limit advertises no window", limit.headers(second)["RateLimit-Policy"] == '"jobs";q=1')
    again = limit.acquire("carol", "jobs")
    check("released at the end of the block", again.allowed, again)
    check("release says it was held", limit.release("carol", "jobs", again.extras[0]) is True)
    check("a second release finds nothing", limit.release("carol", "jobs", again.extras[0]) is False)


def namespaces_and_databases(limit):
    names = {("sluice", 0): "sluice", ("teamb", 0): "sluice_teamb", ("sluice", 1): "sluice_sluice_db1",
             ("team.c-d_e", 2): "sluice_team_pc_md__e_db2"}
    for (namespace, database), name in names.items():
        check(f"the library of {namespace} in database {database}",
              limiter.library_name(namespace, database) == name, limiter.library_name(namespace, database))
    client = limiter.connect(os.environ["SLUICE_SNIPPET_ADMIN_URL"] + "/1", timeout_s=0.25)
    other = limiter.Limiter(client, namespace="team.b-c_d", database=1)
    decision = other.acquire("zoe", "api")
    check("another namespace decides through its own library", decision.allowed and decision.error is None
          and decision.remaining == 4, decision)
    check("in its own database", client.exists(limiter.bucket_key("api", "zoe", "team.b-c_d")) == 1
          and ADMIN.exists(limiter.bucket_key("api", "zoe")) == 0)


def unknown_policy(limit):
    for mode in (limiter.FAIL_OPEN, limiter.FAIL_CLOSED):
        try:
            limit.acquire("dave", "no-such-policy", on_failure=mode)
            check(f"unknown policy raises ({mode})", False)
        except limiter.UnknownPolicy as error:
            check(f"unknown policy raises ({mode})", "no-such-policy" in str(error), error)


def library_gone(limit):
    ADMIN.function_flush()
    opened = limit.acquire("erin", "api", on_failure=limiter.FAIL_OPEN)
    check("no library, failing open: served", opened.allowed and opened.status == 200
          and "Function not found" in str(opened.error), opened)
    check("failing open gives no RateLimit numbers", limit.headers(opened) == {}, limit.headers(opened))
    closed = limit.acquire("erin", "api", on_failure=limiter.FAIL_CLOSED)
    check("no library, failing closed: 503", closed.status == 503, closed)
    check("failing closed says when to retry", limit.headers(closed) == {"Retry-After": "1"}, limit.headers(closed))
    check("republished", os.system(REPUBLISH) == 0)
    check("served again after the publish", limit.acquire("erin", "api").error is None)


def out_of_memory(limit):
    """A server at maxmemory with noeviction refuses the library's writes (OOM): unavailable, not a bug."""
    ADMIN.config_set("maxmemory-policy", "noeviction")
    ADMIN.config_set("maxmemory", 1)
    try:
        for mode, status in ((limiter.FAIL_OPEN, 200), (limiter.FAIL_CLOSED, 503)):
            decision = limit.acquire("olga", "api", on_failure=mode)
            check(f"out of memory, failing {mode}: {status}", decision.status == status
                  and str(decision.error).startswith("OOM"), decision)
    finally:
        ADMIN.config_set("maxmemory", 0)
    check("served again with memory", limit.acquire("olga", "api").error is None)


def server_frozen(limit):
    os.kill(SERVER_PID, signal.SIGSTOP)
    try:
        for mode, status in ((limiter.FAIL_OPEN, 200), (limiter.FAIL_CLOSED, 503)):
            started = time.monotonic()
            decision = limit.acquire("frank", "api", on_failure=mode)
            elapsed = time.monotonic() - started
            check(f"frozen server, failing {mode}: {status}", decision.status == status
                  and isinstance(decision.error, redis.TimeoutError), decision)
            check(f"frozen server, failing {mode}: within the timeout", elapsed < 2, elapsed)
    finally:
        os.kill(SERVER_PID, signal.SIGCONT)
    check("served again after the thaw", limit.acquire("frank", "api").error is None)


def strict_calls(_):
    refusing = limiter.Limiter(limiter.connect(SERVICE_URL, timeout_s=0.25), strict=limiter.UNCONFIRMED_REFUSED)
    decision = refusing.acquire("sam", "api")
    check("a strict admission a replica confirmed is served", decision.status == 200 and decision.confirmed is True
          and decision.remaining == 4, decision)
    os.kill(REPLICA_PID, signal.SIGSTOP)
    try:
        started = time.monotonic()
        decision = refusing.acquire("sam", "api")
        elapsed = time.monotonic() - started
        check("with the replica frozen, an unconfirmed admission is refused", decision.status == 503
              and decision.confirmed is False and isinstance(decision.error, limiter.NotConfirmed), decision)
        check("after the replica timeout and not before", 0.045 <= elapsed < 1, elapsed)
        check("the primary counted it: a refusal, never an extra admission",
              ADMIN.fcall_ro("sluice_peek", 1, limiter.bucket_key("api", "sam"), "api")[1] == 3)
        unknown = limiter.Limiter(refusing.client, strict=limiter.UNCONFIRMED_UNKNOWN).acquire("sam", "api")
        check("the caller's choice: admitted, marked unconfirmed", unknown.status == 200 and unknown.confirmed is False
              and unknown.error is None and unknown.remaining == 2, unknown)
    finally:
        os.kill(REPLICA_PID, signal.SIGCONT)
    check("confirmed again after the thaw", refusing.acquire("sam", "api").confirmed is True)


# The published policies the degraded-mode check calls: their limit is 10 (local-bucket: a burst of 10, then
# 10 per 4 s), shared by 4 processes.
DEGRADED_POLICIES = ("local-bucket", "local-window", "local-sliding", "local-log", "local-jobs")
INSTANCES, DEGRADED_S = 4, 1.5


def degraded_instance(number, ready, go, results):
    local = local_limits.LocalLimits(instances=INSTANCES)
    registry = prometheus_client.CollectorRegistry()
    local_metrics.export_local_decisions(local, registry)
    own = limiter.Limiter(limiter.connect(SERVICE_URL, timeout_s=0.25, name=f"instance-{number}"),
                          on_failure=limiter.FAIL_LOCAL, local=local)
    ready.put(own.acquire(f"warm-{number}", "api").error is None)  # reads the published policies
    go.wait()
    admitted, sent, local_calls, started = collections.Counter(), 0, 0, time.monotonic()
    while time.monotonic() - started < DEGRADED_S:
        for policy in DEGRADED_POLICIES:
            asked = time.monotonic()
            decision = own.acquire("shared", policy)
            admitted[policy] += decision.allowed
            sent += time.monotonic() - asked >= 0.2  # it waited for the 250 ms timeout: it was sent
            local_calls += decision.local
    exported = sum(sample.value for metric in registry.collect() for sample in metric.samples
                   if sample.name == "sluice_local_decisions_total")
    results.put((dict(admitted), local_calls, exported, time.monotonic() - started, sent))


def degraded_mode(limit):
    """4 service processes with Redis frozen: what they admit together stays within each limit plus the
    rounding of 4 shares, decided at once (no timeout per call), counted, and never charged to Redis."""
    context = multiprocessing.get_context("fork")
    ready, results, go = context.Queue(), context.Queue(), context.Event()
    instances = [context.Process(target=degraded_instance, args=(number, ready, go, results))
                 for number in range(INSTANCES)]
    for instance in instances:
        instance.start()
    try:
        check("4 instances read the published policies", all(ready.get(timeout=10) for _ in instances))
        os.kill(SERVER_PID, signal.SIGSTOP)
        try:
            go.set()
            reports = [results.get(timeout=30) for _ in instances]
        finally:
            os.kill(SERVER_PID, signal.SIGCONT)
    finally:
        for instance in instances:
            instance.join(timeout=10)
            instance.kill()
    share = math.ceil(10 / INSTANCES)
    longest_s = max(report[3] for report in reports)
    for policy in DEGRADED_POLICIES:
        total = sum(report[0].get(policy, 0) for report in reports)
        if policy == "local-bucket":  # a burst share, then its share of 10 per 4 s
            bound = INSTANCES * math.floor(share + share * longest_s / 4)
            published = 10 + math.floor(10 * longest_s / 4)
        else:
            bound, published = INSTANCES * share, 10
        print(f"degraded: {INSTANCES} processes admitted {total} calls of {policy} in {longest_s:.2f} s "
              f"(the published policy: {published}; the bound, limit plus rounding of {INSTANCES} shares: {bound})")
        check(f"degraded {policy}: within the limit plus the rounding of the shares", 0 < total <= bound,
              (total, bound))
    # The calls sent before each instance noticed (one each, and a probe a second) run when Redis wakes: they
    # may have been applied. The calls decided locally are never sent.
    time.sleep(0.3)
    sent = sum(report[4] for report in reports)
    charged = sum(10 - ADMIN.fcall_ro("sluice_peek", 1, limiter.bucket_key(policy, "shared"), policy)[1]
                  for policy in DEGRADED_POLICIES[1:])
    print(f"degraded: {sent} calls were sent to the frozen server (a first one and a probe a second per instance); "
          f"{charged} units charged to the buckets after the thaw")
    check("nothing decided locally was charged to Redis", 0 < sent <= 4 * INSTANCES and charged <= sent,
          (sent, charged))
    local_calls = sum(report[1] for report in reports)
    print(f"degraded: {local_calls} calls decided locally in all, each counted in sluice_local_decisions_total")
    check("each instance exported every call it decided locally", all(report[1] == report[2] for report in reports),
          [report[1:3] for report in reports])
    check("locally decided at once, not one timeout per call", local_calls > 200, local_calls)
    time.sleep(1.1)  # the probe interval: the next call asks Redis again
    local = local_limits.LocalLimits(instances=INSTANCES)
    back = limiter.Limiter(limit.client, on_failure=limiter.FAIL_LOCAL, local=local).acquire("shared", "local-log")
    check("Redis decides again once it answers", back.allowed and not back.local and back.error is None, back)


def reserve_then_settle(limit):
    # llm-tokens: a bucket of 1000 that refills one token a week, and up to 50 tokens of debt.
    first = limit.reserve("mia", "llm-tokens", 100)
    check("a reservation takes its estimate", first.allowed and first.remaining == 900
          and first.reservation.endswith(":100"), first)
    settled = limit.settle("mia", "llm-tokens", first.reservation, 40)
    check("settling below the estimate gives the rest back", settled == limiter.Settlement(40, 0, 960), settled)
    check("settling twice is refused and logged", limit.settle("mia", "llm-tokens", first.reservation, 40) is None)
    check("another subject cannot settle it", limit.settle("max", "llm-tokens", first.reservation, 1) is None)
    second = limit.reserve("mia", "llm-tokens", 900)
    settled = limit.settle("mia", "llm-tokens", second.reservation, 1020)
    check("an excess goes into debt, up to max_debt", settled == limiter.Settlement(1010, 10, -50), settled)
    in_debt = limit.acquire("mia", "llm-tokens")
    check("a subject in debt is rejected", in_debt.status == 429 and in_debt.remaining == -50, in_debt)
    status, answer = limiter.complete(limit, "ned", 120, 500, lambda: ("an answer", 300))
    check("the LLM pattern serves and settles the usage", (status, answer) == (200, "an answer")
          and ADMIN.fcall_ro("sluice_peek", 1, limiter.bucket_key("llm-tokens", "ned"), "llm-tokens")[1] == 700)


def concurrent_settlements(_):
    """16 clients reserve and settle at once on one subject: what the bucket was charged is exactly the
    sum of what the settlements say the calls cost (the bucket holds 1,000,000 and refills one a week)."""
    rounds, costs, problems = 40, [], []

    def client(number):
        own = limiter.Limiter(limiter.connect(SERVICE_URL, timeout_s=2, name=f"client-{number}"))
        for round_number in range(rounds):
            estimate = 1 + (number * 7 + round_number * 13) % 20
            decision = own.reserve("shared", "llm-shared", estimate)
            if not decision.allowed or decision.error is not None:
                problems.append(f"client {number}: reserve refused: {decision}")
                return
            settlement = own.settle("shared", "llm-shared", decision.reservation, (number + round_number * 3) % 31)
            if settlement is None or settlement.uncharged:
                problems.append(f"client {number}: settle failed: {settlement}")
                return
            costs.append(settlement.settled)

    threads = [threading.Thread(target=client, args=(number,)) for number in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    check("16 clients reserved and settled without a refusal", not problems and len(costs) == 16 * rounds, problems)
    left = ADMIN.fcall_ro("sluice_peek", 1, limiter.bucket_key("llm-shared", "shared"), "llm-shared")[1]
    check("the bucket was charged exactly the settled costs", left == 1000000 - sum(costs), (left, sum(costs)))


def main():
    limit = limiter.Limiter(limiter.connect(SERVICE_URL, timeout_s=0.25))
    for case in (keys_and_escaping, allowed_then_rejected, never_passes, subject_bound, several_policies, spread_policy,
                 leases,
                 reserve_then_settle, concurrent_settlements, namespaces_and_databases, unknown_policy, library_gone,
                 out_of_memory, server_frozen, strict_calls, degraded_mode):
        case(limit)


main()
