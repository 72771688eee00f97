"""Calling Sluice's limiter from a Python service with redis-py (docs/services.md explains each part).

Copy this file into a service; it needs redis-py 4.3 or later (Debian 12: python3-redis).
"""
import contextlib
import dataclasses
import logging
import math
import re
import time

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

NAMESPACE = "sluice"  # the namespace whose policies were published
DATABASE = 0  # the database they were published in (the client's)

# What a call does when the limiter cannot decide (no library loaded, no answer in time).
FAIL_OPEN = "open"  # let the request through: for limits that protect capacity
FAIL_CLOSED = "closed"  # refuse it: for limits that stop abuse (login, password reset, sign-up)
FAULT_RETRY_AFTER_S = 1  # what a request refused by FAIL_CLOSED is told to wait
RETRY_NEVER_MS = -2  # retry_after_ms of a call whose cost is above what the policy admits at once

log = logging.getLogger("limiter")


def connect(url, timeout_s=0.1, name="my-service"):
    """A client that gives up fast and never sends a decision twice (the first may have been taken)."""
    return redis.Redis.from_url(url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s,
                                retry=Retry(NoBackoff(), 0), client_name=name)


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
        return 503 if self.error is not None else 429


@dataclasses.dataclass
class Settlement:
    settled: int  # what the call finally cost
    uncharged: int  # the part of its excess beyond what was left and the policy's max_debt
    remaining: int  # units available now: negative while the subject is in debt


def _text(value):
    return value.decode() if isinstance(value, bytes) else value


# Errors that pass by themselves (a restart without persistence until the next publish, a failover, a
# long script): the limiter is unavailable. redis-py raises LOADING and READONLY as classes of their own.
_UNAVAILABLE_ERRORS = (redis.ConnectionError, redis.TimeoutError, redis.exceptions.ReadOnlyError)
_UNAVAILABLE_REPLIES = ("Function not found", "BUSY", "MASTERDOWN", "TRYAGAIN", "CLUSTERDOWN")


class Limiter:
    def __init__(self, client, namespace=NAMESPACE, database=DATABASE, on_failure=FAIL_OPEN):
        self.client = client
        self.namespace = namespace
        self.library = library_name(namespace, database)
        self.on_failure = on_failure
        self._policy_table = {}
        self._policy_table_read_at = -math.inf

    def acquire(self, subject, *policies, cost=1, on_failure=None):
        """One decision over every policy named, all or nothing (sluice_acquire)."""
        keys = [bucket_key(policy, subject, self.namespace) for policy in policies]
        return self._decide("acquire", keys, [*policies, cost], policies, on_failure)

    def reserve(self, subject, policy, estimate, on_failure=None):
        """Takes `estimate` now for a cost known only after the call (sluice_reserve: token_bucket, gcra,
        fixed_window and sliding_window policies); settle() then gives back or charges the difference. Admitted, decision.reservation is the id."""
        key = bucket_key(policy, subject, self.namespace)
        return self._decide("reserve", [key], [policy, estimate], (policy,), on_failure)

    def settle(self, subject, policy, reservation, actual):
        """What the reserved call really cost (sluice_settle): a Settlement, or None when it could not be
        settled (logged: too late, settled already, or the limiter unreachable); its estimate then stands."""
        try:
            settled, uncharged, remaining = self.client.fcall(
                f"{self.library}_settle", 1, bucket_key(policy, subject, self.namespace), policy, reservation, actual)
        except redis.RedisError as error:
            log.warning("limiter: reservation %s of %s not settled: %s", reservation, policy, error)
            return None
        return Settlement(settled, uncharged, remaining)

    def _decide(self, function, keys, args, policies, on_failure):
        try:
            reply = self.client.fcall(f"{self.library}_{function}", len(keys), *keys, *args)
        except _UNAVAILABLE_ERRORS as error:
            return self._unavailable(error, policies, on_failure)
        except redis.ResponseError as error:
            if str(error).startswith(_UNAVAILABLE_REPLIES):
                return self._unavailable(error, policies, on_failure)
            if "unknown policy" in str(error):
                raise UnknownPolicy(str(error)) from error
            raise LimiterError(str(error)) from error
        allowed, remaining, retry_after_ms, reset_after_ms, limit, policy = reply[:6]
        return Decision(allowed == 1, remaining, retry_after_ms, reset_after_ms, limit, _text(policy),
                        [_text(extra) for extra in reply[6:]], policies)

    def release(self, subject, policy, lease):
        """Ends a concurrency lease; False when it had ended already or the release failed (it then ends
        by itself after the policy's window_ms)."""
        try:
            return self.client.fcall(f"{self.library}_release", 1, bucket_key(policy, subject, self.namespace),
                                     policy, lease) == 1
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
        if decision.error is not None:  # no numbers from the limiter to give
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
            try:
                rows = self.client.fcall_ro(f"{self.library}_policies", 0)
                self._policy_table = {_text(row[0]): {"algorithm": _text(row[1]), "limit": row[2],
                                                      "window_ms": row[3], "shadow": row[5] == 1} for row in rows}
            except redis.RedisError as error:
                log.warning("limiter: policy table unreadable: %s", error)
        return self._policy_table

    def _unavailable(self, error, policies, on_failure):
        mode = on_failure or self.on_failure
        log.warning("limiter unavailable (%s), failing %s: %s", ", ".join(policies), mode, error)
        return Decision(mode == FAIL_OPEN, policy=policies[0], policies=policies, error=error)


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
