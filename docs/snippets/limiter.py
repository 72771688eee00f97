"""Calling Sluice's limiter from a Python service with redis-py (docs/services.md explains each part).

Copy this file into a service; it needs redis-py 4.3 or later (Debian 12: python3-redis).
"""
import bisect
import contextlib
import dataclasses
import logging
import math
import random
import re
import time

import redis
import redis.sentinel
from redis.backoff import NoBackoff
from redis.crc import key_slot
from redis.retry import Retry

NAMESPACE = "sluice"  # the namespace whose policies were published
DATABASE = 0  # the database they were published in (the client's)

# What a call does when the limiter cannot decide (no library loaded, no answer in time).
FAIL_OPEN = "open"  # let the request through: for limits that protect capacity
FAIL_CLOSED = "closed"  # refuse it: for limits that stop abuse (login, password reset, sign-up)
FAIL_LOCAL = "local"  # decide in this process at its share of the limit (local_limits.py)
# What a strict call makes of an admission no replica confirmed in time (Limiter(strict=...)).
UNCONFIRMED_REFUSED = "refused"  # not admitted: a 503, as failing closed
UNCONFIRMED_UNKNOWN = "unknown"  # admitted with decision.confirmed False: the caller decides
FAULT_RETRY_AFTER_S = 1  # what a request refused by FAIL_CLOSED is told to wait
RETRY_NEVER_MS = -2  # retry_after_ms of a call whose cost is above what the policy admits at once

log = logging.getLogger("limiter")


def connect(url, timeout_s=0.1, name="my-service"):
    """A client that gives up fast and never sends a decision twice (the first may have been taken)."""
    return redis.Redis.from_url(url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s,
                                retry=Retry(NoBackoff(), 0), client_name=name)


def connect_sentinel(sentinels, service, username=None, password=None, timeout_s=0.1, name="my-service"):
    """The same client for the primary that Sentinels name: [(host, port), ...] and the service they watch.
    Each new connection asks the Sentinels, so after a failover the next call finds the new primary."""
    watchers = redis.sentinel.Sentinel(sentinels, socket_timeout=timeout_s, socket_connect_timeout=timeout_s)
    return watchers.master_for(service, socket_timeout=timeout_s, socket_connect_timeout=timeout_s,
                               retry=Retry(NoBackoff(), 0), client_name=name, username=username, password=password)


class ClusterClients:
    """A Cluster's primaries, one client each (connect()'s options), found from any node's URL by CLUSTER SLOTS,
    which the service role allows (redis-py's RedisCluster also needs INFO and COMMAND). The Limiter sends each
    call to the primary of its key's slot, and rereads the map after a call failed (a failover moves slots)."""

    def __init__(self, url, timeout_s=0.1, name="my-service"):
        self.seed = connect(url, timeout_s, name)
        self._options = dict(self.seed.connection_pool.connection_kwargs)
        self._primaries = {}  # (host, port): client
        self._slots = []  # (last slot, (host, port)), by last slot
        self._read_at = -math.inf
        self.refresh()

    def client_for(self, key):
        slot = key_slot(key.encode())
        index = bisect.bisect_left(self._slots, (slot,))
        if index == len(self._slots):
            raise redis.ConnectionError(f"no primary serves slot {slot}")
        return self._primaries[self._slots[index][1]]

    def any(self):
        return next(iter(self._primaries.values()), self.seed)

    def refresh(self, at_most_every_s=1.0):
        """Rereads the slot map from the first node that answers; at most once a second."""
        if time.monotonic() - self._read_at < at_most_every_s:
            return
        self._read_at = time.monotonic()
        for node in [*self._primaries.values(), self.seed]:
            try:
                ranges = node.execute_command("CLUSTER SLOTS")
                break
            except redis.RedisError as error:
                log.warning("limiter: no slot map from a node: %s", error)
        else:
            return
        slots = []
        for first, last, (host, port, *_), *_replicas in ranges:
            address = (_text(host), port)
            if address not in self._primaries:
                self._primaries[address] = redis.Redis(**{**self._options, "host": address[0], "port": port})
            slots.append((last, address))
        self._slots = sorted(slots)


_ESCAPES = {"%": "%25", "{": "%7B", "}": "%7D"}


def escape_subject(subject):
    """Any id as a subject: %, { and } percent-encoded, so the subject holds no brace and decodes back."""
    return "".join(_ESCAPES.get(char, char) for char in subject)


def unescape_subject(escaped):
    return re.sub("%(25|7B|7D)", lambda match: chr(int(match.group(1), 16)), escaped)


def library_name(namespace=NAMESPACE, database=DATABASE):
    """The library a namespace publishes in a database (sluicectl status prints it); its functions are
    <library>_acquire, ...: sluice_acquire for the default namespace in database 0."""
    if namespace == "sluice" and database == 0:
        return "sluice"
    spelled = "".join({"_": "__", ".": "_p", "-": "_m"}.get(char, char) for char in namespace)
    return f"sluice_{spelled}" + (f"_db{database}" if database else "")


def bucket_key(policy, subject, namespace=NAMESPACE):
    """<namespace>:<policy>:{<subject>}: the subject is the Cluster hash tag, so one subject's buckets
    under several policies share a slot and one call can decide them together."""
    return f"{namespace}:{policy}:{{{escape_subject(subject)}}}"


class LimiterError(Exception):
    """A call the library refused: a bug in the call or the deployment, never a reason to allow."""


class UnknownPolicy(LimiterError):
    """The policy is not in the published library (a typo, or not published yet)."""


@dataclasses.dataclass
class Decision:
    allowed: bool
    remaining: int = 0
    retry_after_ms: int = -1
    reset_after_ms: int = 0
    limit: int = 0
    policy: str = ""  # the deciding policy
    extras: list = dataclasses.field(default_factory=list)  # lease ids, queue delays (ms)
    policies: tuple = ()  # every policy of the call
    error: Exception = None  # set when the limiter did not decide and on_failure did
    local: bool = False  # decided by this process's LocalLimits, Redis being unreachable
    confirmed: bool = None  # strict calls: a replica acknowledged the decision in time (None: not asked)

    @property
    def reservation(self):
        """An admitted reserve()'s reservation id, for settle() (empty for an allow-listed subject)."""
        return self.extras[0] if self.extras else ""

    @property
    def never(self):
        """Rejected for good: the cost is above what the policy admits at once, so no wait lets it pass."""
        return not self.allowed and self.retry_after_ms == RETRY_NEVER_MS

    @property
    def status(self):
        """The HTTP status to answer: 200 (serve it), 429 (rate limited), 503 (limiter down, failing closed)."""
        if self.allowed:
            return 200
        return 503 if self.error is not None and not self.local else 429


@dataclasses.dataclass
class Settlement:
    settled: int  # what the call finally cost
    uncharged: int  # the part of its excess beyond what was left and the policy's max_debt
    remaining: int  # units available now: negative while the subject is in debt


def _text(value):
    return value.decode() if isinstance(value, bytes) else value


# Errors that pass by themselves (a restart without persistence until the next publish, a failover, a
# long script, a primary without its replicas or memory, a Cluster's map out of date): the limiter is
# unavailable.
# redis-py raises LOADING and READONLY as classes of their own.
_UNAVAILABLE_ERRORS = (redis.ConnectionError, redis.TimeoutError, redis.exceptions.ReadOnlyError)
_UNAVAILABLE_REPLIES = ("Function not found", "BUSY", "MASTERDOWN", "TRYAGAIN", "CLUSTERDOWN", "NOREPLICAS",
                        "MOVED", "ASK", "OOM")


class NotConfirmed(redis.RedisError):
    """A strict call's admission that no replica acknowledged within replica_timeout_ms."""


class Limiter:
    def __init__(self, client, namespace=NAMESPACE, database=DATABASE, on_failure=FAIL_OPEN, local=None,
                 strict=None, replica_timeout_ms=50):
        """client: a redis.Redis (connect() or connect_sentinel()) or a ClusterClients.
        local: a local_limits.LocalLimits, for on_failure=FAIL_LOCAL. strict: UNCONFIRMED_REFUSED or
        UNCONFIRMED_UNKNOWN to have each decision acknowledged by a replica (WAIT 1 replica_timeout_ms)."""
        if on_failure == FAIL_LOCAL and local is None:
            raise ValueError("on_failure=FAIL_LOCAL needs local=LocalLimits(instances=...)")
        self.client = client
        self.namespace = namespace
        self.library = library_name(namespace, database)
        self.on_failure = on_failure
        self.local = local
        self.strict = strict
        self.replica_timeout_ms = replica_timeout_ms
        self._policy_table = {}
        self._policy_table_read_at = -math.inf

    def acquire(self, subject, *policies, cost=1, on_failure=None):
        """One decision over every policy named, all or nothing (sluice_acquire). A spread policy (a hot
        subject's buckets, each in a slot of its own) is called alone, on one of its buckets picked at random."""
        keys = [self._spread_key(policy, subject) for policy in policies]
        return self._decide("acquire", subject, keys, [*policies, cost], policies, on_failure)

    def _spread_key(self, policy, subject):
        """The subject's bucket key; for a spread policy, <namespace>:<policy>:{<subject>#<i>} with i at random."""
        key = bucket_key(policy, subject, self.namespace)
        spread = self.policy_table().get(policy, {}).get("spread", 0)
        return f"{key[:-1]}#{random.randrange(spread)}}}" if spread else key

    def reserve(self, subject, policy, estimate, on_failure=None):
        """Takes `estimate` now for a cost known only after the call (sluice_reserve: token_bucket, gcra,
        fixed_window and sliding_window policies); settle() then gives back or charges the difference. Admitted, decision.reservation is the id."""
        key = bucket_key(policy, subject, self.namespace)
        return self._decide("reserve", subject, [key], [policy, estimate], (policy,), on_failure)

    def settle(self, subject, policy, reservation, actual):
        """What the reserved call really cost (sluice_settle): a Settlement, or None when it could not be
        settled (logged: too late, settled already, or the limiter unreachable); its estimate then stands."""
        key = bucket_key(policy, subject, self.namespace)
        try:
            settled, uncharged, remaining = self._client_for(key).fcall(
                f"{self.library}_settle", 1, key, policy, reservation, actual)
        except redis.RedisError as error:
            log.warning("limiter: reservation %s of %s not settled: %s", reservation, policy, error)
            return None
        return Settlement(settled, uncharged, remaining)

    def _decide(self, function, subject, keys, args, policies, on_failure):
        mode = on_failure or self.on_failure
        if mode == FAIL_LOCAL and self.local is None:
            raise ValueError("on_failure=FAIL_LOCAL needs Limiter(local=LocalLimits(instances=...))")
        if mode == FAIL_LOCAL and self.local.redis_paused():  # Redis failed a moment ago: no timeout to wait
            return self._unavailable(redis.ConnectionError("the limiter failed less than a second ago"), subject,
                                     policies, mode, args[-1])
        try:
            reply, confirmed = self._fcall(f"{self.library}_{function}", keys, args)
        except _UNAVAILABLE_ERRORS as error:
            return self._unavailable(error, subject, policies, mode, args[-1])
        except redis.ResponseError as error:
            if str(error).startswith(_UNAVAILABLE_REPLIES):
                return self._unavailable(error, subject, policies, mode, args[-1])
            if "unknown policy" in str(error):
                raise UnknownPolicy(str(error)) from error
            raise LimiterError(str(error)) from error
        if self.local is not None:
            self.local.redis_answered()
            self.local.learn(self.policy_table())
        allowed, remaining, retry_after_ms, reset_after_ms, limit, policy = reply[:6]
        decision = Decision(allowed == 1, remaining, retry_after_ms, reset_after_ms, limit, _text(policy),
                            [_text(extra) for extra in reply[6:]], policies, confirmed=confirmed)
        if decision.allowed and confirmed is False and self.strict == UNCONFIRMED_REFUSED:
            log.warning("limiter: an admission of %s no replica confirmed in %d ms: refused", ", ".join(policies),
                        self.replica_timeout_ms)
            return Decision(False, policy=decision.policy, policies=policies, confirmed=False,
                            error=NotConfirmed(f"no replica confirmed within {self.replica_timeout_ms} ms"))
        return decision

    def _fcall(self, function, keys, args):
        """(reply, confirmed). A strict call sends WAIT 1 right behind the FCALL, in the same round trip and on
        the same connection (WAIT counts only its own connection's writes): a pipeline holds one connection."""
        client = self._client_for(keys[0])
        if self.strict is None:
            return client.fcall(function, len(keys), *keys, *args), None
        pipe = client.pipeline(transaction=False)
        pipe.fcall(function, len(keys), *keys, *args)
        pipe.execute_command("WAIT", 1, self.replica_timeout_ms)
        reply, replicas = pipe.execute(raise_on_error=False)
        for answer in (reply, replicas):
            if isinstance(answer, Exception):
                raise answer
        return reply, replicas >= 1

    def _client_for(self, key):
        """The client of the primary holding the key (on a Cluster, that node's own client)."""
        return self.client.client_for(key) if isinstance(self.client, ClusterClients) else self.client

    def _cluster_map_out_of_date(self):
        if isinstance(self.client, ClusterClients):
            self.client.refresh()

    def release(self, subject, policy, lease):
        """Ends a concurrency lease; False when it had ended already or the release failed (it then ends
        by itself after the policy's window_ms)."""
        if lease.startswith("local-"):
            return self.local is not None and self.local.release(subject, policy, lease)
        key = bucket_key(policy, subject, self.namespace)
        try:
            return self._client_for(key).fcall(f"{self.library}_release", 1, key, policy, lease) == 1
        except redis.RedisError as error:
            log.warning("limiter: lease %s of %s not released: %s", lease, policy, error)
            return False

    @contextlib.contextmanager
    def lease(self, subject, policy, cost=1, on_failure=None):
        """Holds a concurrency policy's lease while the block runs: `with limiter.lease(user, "exports") as d:`."""
        decision = self.acquire(subject, policy, cost=cost, on_failure=on_failure)
        try:
            yield decision
        finally:
            if decision.allowed and decision.extras:
                self.release(subject, policy, decision.extras[0])

    def headers(self, decision):
        """RateLimit-Policy and RateLimit as draft-ietf-httpapi-ratelimit-headers-10 writes them, and
        Retry-After on a refusal that some wait ends."""
        if decision.error is not None and not decision.local:  # no numbers from the limiter to give
            return {} if decision.allowed else {"Retry-After": str(FAULT_RETRY_AFTER_S)}
        wait_ms = decision.reset_after_ms if decision.allowed else decision.retry_after_ms
        seconds = max(math.ceil(wait_ms / 1000), 0 if decision.allowed else 1)
        # Policy names are [A-Za-z0-9_.-], so they are Structured Field strings as they are. A call that can
        # never pass gets no time (t, Retry-After): none would let it through.
        quota_left = f'"{decision.policy}";r={decision.remaining}'
        headers = {"RateLimit": quota_left if decision.never else f"{quota_left};t={seconds}"}
        quotas = []
        for name in decision.policies:
            definition = self.policy_table().get(name)
            if definition and not definition["shadow"]:
                quota = f'"{name}";q={definition["limit"]}'
                # w is whole seconds; a concurrency policy's window_ms is a lease timeout, not a window.
                if definition["window_ms"] % 1000 == 0 and definition["algorithm"] != "concurrency":
                    quota += f';w={definition["window_ms"] // 1000}'
                quotas.append(quota)
        if quotas:
            headers["RateLimit-Policy"] = ", ".join(quotas)
        if not decision.allowed and not decision.never:
            headers["Retry-After"] = str(seconds)
        return headers

    def policy_table(self, max_age_s=60):
        """The published policies (sluice_policies), reread at most once a minute; {} while unreadable."""
        if time.monotonic() - self._policy_table_read_at > max_age_s:
            self._policy_table_read_at = time.monotonic()
            # Every primary holds the library.
            client = self.client.any() if isinstance(self.client, ClusterClients) else self.client
            try:
                rows = client.fcall_ro(f"{self.library}_policies", 0)
                self._policy_table = {_text(row[0]): {"algorithm": _text(row[1]), "limit": row[2],
                                                      "window_ms": row[3], "burst": row[4], "shadow": row[5] == 1,
                                                      "first_call": len(row) > 7 and row[7] == 1,
                                                      "spread": row[10] if len(row) > 10 else 0} for row in rows}
            except redis.RedisError as error:
                log.warning("limiter: policy table unreadable: %s", error)
        return self._policy_table

    def _unavailable(self, error, subject, policies, mode, cost):
        if mode != FAIL_LOCAL:
            self._cluster_map_out_of_date()
            log.warning("limiter unavailable (%s), failing %s: %s", ", ".join(policies), mode, error)
            return Decision(mode == FAIL_OPEN, policy=policies[0], policies=policies, error=error)
        if not self.local.redis_paused():  # the first failure since Redis last answered, or a failed probe
            self._cluster_map_out_of_date()
            log.warning("limiter unavailable (%s), deciding locally: %s", ", ".join(policies), error)
            self.local.redis_failed()
        local = self.local.decide(subject, policies, cost)
        if local is None:
            log.warning("limiter unavailable and no local definition of %s: refused", ", ".join(policies))
            return Decision(False, policy=policies[0], policies=policies, error=error)
        allowed, remaining, retry_after_ms, policy, extras = local
        return Decision(allowed, remaining, retry_after_ms, policy=policy, extras=extras, policies=policies,
                        error=error, local=True)


def handle(limit, user_id, serve):
    """A request handler's use of it, in any framework: (status, headers, body)."""
    decision = limit.acquire(user_id, "api")  # or several: limit.acquire(user_id, "api", "api-daily")
    headers = limit.headers(decision)
    if decision.status != 200:
        return decision.status, headers, "Too many requests" if decision.status == 429 else "Try again soon"
    return 200, headers, serve()


def complete(limit, user_id, prompt_tokens, max_completion_tokens, call_model):
    """The LLM pattern: reserve the prompt's tokens plus the most the completion may take, call the model,
    settle with the usage it returned: (status, answer). If the call raises, nothing is settled and the
    estimate stands (the reservation expires after the policy's reserve_timeout_ms)."""
    decision = limit.reserve(user_id, "llm-tokens", prompt_tokens + max_completion_tokens)
    if decision.status != 200:
        return decision.status, None
    answer, used_tokens = call_model()  # used_tokens: the usage the model returned, prompt and completion
    if decision.error is None:  # failing open reserved nothing
        limit.settle(user_id, "llm-tokens", decision.reservation, used_tokens)
    return 200, answer
