"""Per-tenant request rates and failed-authentication throttling, with the `limits` library.

    a tenant's keys over tenant_rate_limit          -> 429, Retry-After, RateLimit headers;
                                                       refused before the key's database lookup
    one source over auth_failure_limit wrong keys   -> 429 for that source's keyed requests
                                                       (a right key too: guessing stops)
    keyless requests in single-user mode            -> not limited (one user; rate_limit_single_user)

Once a tenant (or a source) has been refused, this process refuses it again from memory until the
Retry-After it was told has passed: ``RateGate``, a pure ASGI middleware, answers those 429s before
routing, the thread pool, the store or the database are touched, so a tenant that keeps flooding
after its first 429 costs the API a dictionary lookup and a small JSON body per request.

Counts live in Redis when the broker is Redis, so every API process (compose runs several) shares
one count per tenant; in process memory otherwise (the embedded default runs one API process).
Sliding-window counters: O(1) per request, in one Redis round trip. If the store is unreachable the
request goes through (logged): losing the broker must not turn every request into an error.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from limits import RateLimitItem, parse_many
from limits.storage import Storage, storage_from_string
from limits.strategies import SlidingWindowCounterRateLimiter
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from app.api.errors import problem_response
from app.auth import key_sha256
from app.db.models import DEFAULT_TENANT_ID
from app.errors import TooManyRequests
from app.settings import Settings

log = logging.getLogger(__name__)

__all__ = ["RateGate", "RateLimited", "RateLimits", "storage_url"]


class RateLimited(TooManyRequests):
    """A 429 that says which limit, when to retry (``Retry-After``) and, in the IETF draft's
    ``RateLimit-Policy``/``RateLimit`` fields, the quota and what is left of it."""

    def __init__(self, detail: str, *, policy: str, limit: RateLimitItem, retry_after_s: int) -> None:
        super().__init__(detail, retry_after_s=retry_after_s)
        window = limit.get_expiry()
        self.headers = {
            **(self.headers or {}),
            "RateLimit-Policy": f'"{policy}";q={limit.amount};w={window}',
            "RateLimit": f'"{policy}";r=0;t={retry_after_s}',
            "RateLimit-Limit": str(limit.amount),
            "RateLimit-Remaining": "0",
            "RateLimit-Reset": str(retry_after_s),
        }


def storage_url(settings: Settings) -> str:
    if settings.rate_limit_storage_url:
        return settings.rate_limit_storage_url
    if settings.broker_url.startswith(("redis://", "rediss://")):
        return settings.broker_url
    return "memory://"


def _storage(url: str) -> Storage:
    # A hung Redis must cost a request a quarter second, not hang it.
    options = {"socket_timeout": 0.25, "socket_connect_timeout": 0.25} if url.startswith("redis") else {}
    storage = storage_from_string(url, **options)
    if not isinstance(storage, Storage):
        raise ValueError(
            f"rate_limit_storage_url {url!r} names an asynchronous storage; use a synchronous one"
        )
    return storage


class RateLimits:
    """The process's limiter (``app.state.limits``). Its methods block on the store (Redis): call
    them from the thread pool, as ``app.api.deps.get_principal`` does with its key lookup."""

    def __init__(
        self, settings: Settings, *, known_keys: int = 10_000, clock: Callable[[], float] = time.time
    ) -> None:
        self.tenant = parse_many(settings.tenant_rate_limit) if settings.tenant_rate_limit.strip() else []
        self.auth_failures = (
            parse_many(settings.auth_failure_limit) if settings.auth_failure_limit.strip() else []
        )
        self.limit_single_user = settings.rate_limit_single_user
        self._limiter = SlidingWindowCounterRateLimiter(_storage(storage_url(settings)))
        # key sha256 -> tenant id, so a flooding tenant's requests are refused before the key's
        # database lookup. A revoked key is still refused by that lookup, which always runs.
        self._tenants: OrderedDict[str, str] = OrderedDict()
        self._known_keys = known_keys
        self._lock = threading.Lock()
        self._warned_at = 0.0
        # (policy, tenant id or source) -> (clock time until which it is refused, the limit): what
        # this process has refused, answered again from memory (RateGate) until that time.
        self._refused: dict[tuple[str, str], tuple[float, RateLimitItem]] = {}
        self._clock = clock

    # --- tenants ----------------------------------------------------------------------------------

    def tenant_of(self, key_sha256: str) -> str | None:
        with self._lock:
            return self._tenants.get(key_sha256)

    def remember(self, key_sha256: str, tenant_id: str) -> None:
        with self._lock:
            self._tenants[key_sha256] = tenant_id
            self._tenants.move_to_end(key_sha256)
            while len(self._tenants) > self._known_keys:
                self._tenants.popitem(last=False)

    def hit_tenant(self, tenant_id: str) -> None:
        """Count one request of ``tenant_id``; raise :class:`RateLimited` when over a limit."""
        for limit in self.tenant:
            if not self._hit(limit, "tenant", tenant_id):
                raise self._refuse(limit, "tenant", tenant_id)

    # --- failed authentication ----------------------------------------------------------------

    def check_source(self, source: str) -> None:
        """Raise :class:`RateLimited` if ``source`` has used up its failed attempts."""
        for limit in self.auth_failures:
            if not self._test(limit, "auth-failure", source):
                raise self._refuse(limit, "auth-failure", source)

    def fail_source(self, source: str) -> None:
        for limit in self.auth_failures:
            self._hit(limit, "auth-failure", source)

    # --- refusals remembered in this process ---------------------------------------------------

    def refusal(self, authorization: str | None, source: str, *, single_user: bool) -> RateLimited | None:
        """The 429 a request with this ``Authorization`` header from ``source`` gets from memory:
        its tenant, or its source (for a keyed request), was refused and its Retry-After has not
        passed. None: the request goes on to the usual checks. No store, no database."""
        if authorization is not None:
            if (refused := self._still_refused("auth-failure", source)) is not None:
                return refused
            scheme, _sep, key = authorization.partition(" ")
            if scheme.lower() != "bearer" or not key.strip():
                return None
            tenant_id = self.tenant_of(key_sha256(key.strip()))
        else:
            tenant_id = DEFAULT_TENANT_ID if single_user and self.limit_single_user else None
        return None if tenant_id is None else self._still_refused("tenant", tenant_id)

    def _refuse(self, limit: RateLimitItem, policy: str, who: str) -> RateLimited:
        retry_at = self._retry_at(limit, policy, who)
        with self._lock:
            if len(self._refused) >= self._known_keys:  # many sources: forget the lapsed ones
                now = self._clock()
                self._refused = {k: v for k, v in self._refused.items() if v[0] > now}
            self._refused[(policy, who)] = (retry_at, limit)
        return self._rate_limited(policy, limit, retry_at)

    def _still_refused(self, policy: str, who: str) -> RateLimited | None:
        with self._lock:
            found = self._refused.get((policy, who))
            if found is None:
                return None
            retry_at, limit = found
            if retry_at <= self._clock():
                del self._refused[(policy, who)]
                return None
        return self._rate_limited(policy, limit, retry_at)

    def _rate_limited(self, policy: str, limit: RateLimitItem, retry_at: float) -> RateLimited:
        detail = (
            f"this tenant is over its request rate ({limit}); retry after the Retry-After seconds"
            if policy == "tenant"
            else f"too many requests with a wrong API key from this address ({limit})"
        )
        retry_after_s = max(1, math.ceil(retry_at - self._clock()))
        return RateLimited(detail, policy=policy, limit=limit, retry_after_s=retry_after_s)

    # --- the store, failing open --------------------------------------------------------------

    def _hit(self, limit: RateLimitItem, *ids: str) -> bool:
        try:
            return bool(self._limiter.hit(limit, *ids))
        except Exception as exc:
            self._warn(exc)
            return True

    def _test(self, limit: RateLimitItem, *ids: str) -> bool:
        try:
            return bool(self._limiter.test(limit, *ids))
        except Exception as exc:
            self._warn(exc)
            return True

    def _retry_at(self, limit: RateLimitItem, *ids: str) -> float:
        """When one more request would pass (clock time; the store's clock is time.time too)."""
        try:
            return float(self._limiter.get_window_stats(limit, *ids).reset_time)
        except Exception as exc:
            self._warn(exc)
            return self._clock() + 1

    def _warn(self, exc: Exception) -> None:
        now = time.monotonic()
        if now - self._warned_at > 30:
            self._warned_at = now
            log.warning("rate-limit store unreachable (%s); requests are not limited meanwhile", exc)


# Probes carry no key and must answer whatever a tenant does.
_NEVER_REFUSED = frozenset({"/healthz", "/readyz"})


class RateGate:
    """Pure ASGI middleware: the 429 of a tenant or source this process has refused and whose
    Retry-After has not passed (``RateLimits.refusal``), before routing and the thread pool.
    Reads ``app.state.limits`` and ``app.state.settings`` of the app it serves."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] not in _NEVER_REFUSED:
            state = scope["app"].state
            client = scope.get("client")
            refused = state.limits.refusal(
                Headers(scope=scope).get("authorization"),
                client[0] if client else "unknown",
                single_user=state.settings.single_user,
            )
            if refused is not None:
                response = problem_response(
                    refused.status, refused.title, refused.slug, refused.detail, headers=refused.headers
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)
