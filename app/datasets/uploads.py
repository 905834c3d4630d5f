"""What one tenant's uploads may cost: a bounded number parsed at once (an upload's table is
several times its file in memory while it is decoded), and a quota on what a tenant stores.

    more than max_concurrent_uploads_per_tenant of one tenant     -> 429, Retry-After, at once
    max_concurrent_uploads already parsing in this process        -> wait up to upload_wait_s,
                                                                     then 503, Retry-After
    the tenant already stores max_datasets_per_tenant datasets,   -> 409 before the body is read
    or max_stored_bytes_per_tenant bytes of tables                   (one upload may pass the byte
                                                                     quota by its own size)
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.db.models import Dataset
from app.errors import Conflict, ServiceUnavailable, TooManyRequests
from app.settings import Settings

__all__ = ["UploadGate", "stored"]

_POLL_S = 0.05


def stored(session: Session, tenant_id: str) -> tuple[int, int]:
    """The tenant's datasets and the bytes of their stored tables."""
    count, size = session.execute(
        select(func.count(Dataset.id), func.coalesce(func.sum(Dataset.size_bytes), 0)).where(
            Dataset.tenant_id == tenant_id
        )
    ).one()
    return int(count), int(size)


class UploadGate:
    """One per API process (``app.state.uploads``); its counters live on the event loop."""

    def __init__(self, settings: Settings, sessionmaker: Callable[[], Session]) -> None:
        self.settings = settings
        self._sessionmaker = sessionmaker
        self._open: Counter[str] = Counter()  # uploads in flight per tenant, parsing or waiting
        self._parsing = 0

    @asynccontextmanager
    async def slot(self, tenant_id: str) -> AsyncIterator[None]:
        """Hold one of the process's parse slots: 429 at once when the tenant already has its
        uploads in flight; otherwise wait up to ``upload_wait_s`` for a free slot, then 503."""
        s = self.settings
        if self._open[tenant_id] >= s.max_concurrent_uploads_per_tenant:
            raise TooManyRequests(
                f"this tenant has {s.max_concurrent_uploads_per_tenant} upload(s) in flight "
                "(max_concurrent_uploads_per_tenant); send the next when one has finished",
                retry_after_s=s.retry_after_s,
            )
        self._open[tenant_id] += 1
        try:
            deadline = time.monotonic() + s.upload_wait_s
            while self._parsing >= s.max_concurrent_uploads:
                if time.monotonic() >= deadline:
                    raise ServiceUnavailable(
                        f"{s.max_concurrent_uploads} upload(s) are being parsed (max_concurrent_uploads) "
                        "and none finished in time; retry shortly",
                        headers={"Retry-After": str(s.retry_after_s)},
                    )
                await asyncio.sleep(_POLL_S)  # a plain poll: no primitive bound to one event loop
            self._parsing += 1
            try:
                yield
            finally:
                self._parsing -= 1
        finally:
            self._open[tenant_id] -= 1
            if self._open[tenant_id] <= 0:
                del self._open[tenant_id]

    def check_quota(self, tenant_id: str) -> None:
        """A 409 when the tenant stores as many datasets or bytes as it may (blocking: call it
        from the thread pool)."""
        with self._sessionmaker() as session:
            count, size = stored(session, tenant_id)
        s = self.settings
        if count >= s.max_datasets_per_tenant:
            raise Conflict(
                f"this tenant stores {count} datasets, its quota (max_datasets_per_tenant); delete some first"
            )
        if size >= s.max_stored_bytes_per_tenant:
            raise Conflict(
                f"this tenant stores {size} bytes of datasets, its quota is {s.max_stored_bytes_per_tenant} "
                "(max_stored_bytes_per_tenant); delete some first"
            )
