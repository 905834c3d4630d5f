"""Per-tenant request rates and failed-authentication throttling, with the `limits` library.

    a tenant's keys over tenant_rate_limit          -> 429, Retry-After, RateLimit headers;
                                                       refused before the key's database lookup
    one source over auth_failure_limit wrong keys   -> 429 for that source's keyed requests
                                                       (a right key too: guessing stops)
    keyless requests in single-user mode            -> not limited (one user; rate_limit_single_user)

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

from limits import RateLimitItem, parse_many
from limits.storage import Storage, storage_from_string
from limits.strategies import SlidingWindowCounterRateLimiter

from app.errors import TooManyRequests
from app.settings import Settings

log = logging.getLogger(__name__)

__all__ = ["RateLimited", "RateLimits", "storage_url"]


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

    def __init__(self, settings: Settings, *, known_keys: int = 10_000) -> None:
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
                raise RateLimited(
                    f"this tenant is over its request rate ({limit}); retry after the Retry-After seconds",
                    policy="tenant",
                    limit=limit,
                    retry_after_s=self._retry_after(limit, "tenant", tenant_id),
                )

    # --- failed authentication ----------------------------------------------------------------

    def check_source(self, source: str) -> None:
        """Raise :class:`RateLimited` if ``source`` has used up its failed attempts."""
        for limit in self.auth_failures:
            if not self._test(limit, "auth-failure", source):
                raise RateLimited(
                    f"too many requests with a wrong API key from this address ({limit})",
                    policy="auth-failure",
                    limit=limit,
                    retry_after_s=self._retry_after(limit, "auth-failure", source),
                )

    def fail_source(self, source: str) -> None:
        for limit in self.auth_failures:
            self._hit(limit, "auth-failure", source)

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

    def _retry_after(self, limit: RateLimitItem, *ids: str) -> int:
        try:
            reset_at = self._limiter.get_window_stats(limit, *ids).reset_time
        except Exception as exc:
            self._warn(exc)
            return 1
        return max(1, math.ceil(reset_at - time.time()))

    def _warn(self, exc: Exception) -> None:
        now = time.monotonic()
        if now - self._warned_at > 30:
            self._warned_at = now
            log.warning("rate-limit store unreachable (%s); requests are not limited meanwhile", exc)
