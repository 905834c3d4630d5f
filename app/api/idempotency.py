"""``Idempotency-Key`` on POST /jobs and POST /datasets.

The first request with a key records it as in flight (committed at once, so every API process
sees it); the one that finishes stores its status and body with it, in the same commit as what it
created. A repeat with the same key then gets:

    the same body, first finished     the first response again (status, body, Location)
    the same body, first in flight    409 (retry later)
    another body                      422 naming the Idempotency-Key header

A request that fails (any 4xx/5xx) forgets its key, so a corrected retry may reuse it. Keys belong
to a tenant: two tenants may use the same key. A record expires after ``RECORD_TTL`` (a repeat then
runs afresh; expired records are purged as the tenant adds new ones), and a record whose resource
(its Location) has been deleted is forgotten: a retry creates it again instead of answering with
the id of something that 404s. Routes use the one context manager :func:`claim`::

    with idempotency.claim(session, tenant, key, "create_job", body, in_flight_s=...) as claimed:
        if claimed.replay is not None:
            return claimed.replay
        ...                                   # create, then claimed.complete(...) before the commit
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Header
from fastapi.responses import JSONResponse
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.db import tenancy
from app.db.models import Dataset, Job, Sweep, utcnow
from app.errors import Conflict, UnprocessableEntity

HEADER = "Idempotency-Key"
FIELD = "Idempotency-Key"  # as request validation names a header

IdempotencyKeyHeader = Annotated[
    str | None,
    Header(
        alias=HEADER,
        min_length=1,
        max_length=255,
        description="Makes a retry safe: a repeat with the same key and body returns the first response.",
    ),
]


def fingerprint(operation: str, body: Any) -> str:
    """sha256 of the operation and its body, canonical (key order does not matter)."""
    canonical = json.dumps([operation, body], sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


RECORD_TTL = dt.timedelta(hours=24)
_RESOURCES: dict[str, type[Dataset | Job | Sweep]] = {"/datasets/": Dataset, "/jobs/": Job, "/sweeps/": Sweep}


def _gone(session: Session, location: str | None) -> bool:
    """Whether the resource a record's Location names no longer exists."""
    for prefix, model in _RESOURCES.items():
        if location and location.startswith(prefix):
            return session.get(model, location.removeprefix(prefix).split("/")[0]) is None
    return False


def begin(session: Session, tenant_id: str, key: str, fp: str, *, in_flight_s: float) -> JSONResponse | None:
    """None when this request owns ``key`` now; else the first response to replay. Raises the
    409 / 422 of the table above."""
    for _ in range(3):
        try:
            tenancy.add_idempotent(session, tenant_id, key, fp)
            tenancy.purge_idempotent(session, tenant_id, older_than=utcnow() - RECORD_TTL)
            session.commit()
            return None
        except IntegrityError:
            session.rollback()
        older_than = utcnow() - dt.timedelta(seconds=in_flight_s)
        if tenancy.take_over_idempotent(session, tenant_id, key, fp, older_than=older_than):
            session.commit()
            return None
        session.commit()
        existing = tenancy.get_idempotent(session, tenant_id, key)
        if existing is None:
            continue  # its request failed and forgot it meanwhile: try to own it again
        stale = existing.created_at < utcnow() - RECORD_TTL or _gone(session, existing.location)
        if existing.status_code is not None and stale:
            tenancy.forget_idempotent(session, tenant_id, key, completed_too=True)
            session.commit()
            continue  # expired, or what it created was deleted: this request runs afresh
        if existing.fingerprint != fp:
            raise UnprocessableEntity.on(FIELD, "this Idempotency-Key was used with a different request body")
        if existing.status_code is None:
            raise Conflict("a request with this Idempotency-Key is still in flight; retry shortly")
        headers = {"Idempotent-Replayed": "true"}
        if existing.location:
            headers["Location"] = existing.location
        return JSONResponse(existing.response, status_code=existing.status_code, headers=headers)
    raise Conflict("a request with this Idempotency-Key is still in flight; retry shortly")


def complete(
    session: Session, tenant_id: str, key: str, status_code: int, body: Any, location: str | None
) -> None:
    """Store the response; the caller commits it together with what the request created."""
    tenancy.complete_idempotent(session, tenant_id, key, status_code, body, location)


def forget(session: Session, tenant_id: str, key: str, *, completed_too: bool = False) -> None:
    """After a failure: free the key. Without ``completed_too``, first roll back what the request
    did and commit the release; with it (the job was stored but could not be queued), the caller
    commits the release together with the job's failure."""
    if completed_too:
        tenancy.forget_idempotent(session, tenant_id, key, completed_too=True)
        return
    session.rollback()
    tenancy.forget_idempotent(session, tenant_id, key)
    session.commit()


@dataclass
class Claim:
    """This request's hold on an ``Idempotency-Key`` (a no-op without a key)."""

    session: Session
    tenant_id: str
    key: str | None
    replay: JSONResponse | None = None
    released: bool = False

    def complete(self, status_code: int, body: Any, location: str | None) -> None:
        """Store the response, to be committed together with what the request created."""
        if self.key is not None:
            complete(self.session, self.tenant_id, self.key, status_code, body, location)

    def release(self) -> None:
        """The request failed after its response was stored (the job was committed but could not
        be queued): free the key in the caller's next commit."""
        if self.key is not None and not self.released:
            forget(self.session, self.tenant_id, self.key, completed_too=True)
            self.released = True


@contextmanager
def claim(
    session: Session, tenant_id: str, key: str | None, operation: str, body: Any, *, in_flight_s: float
) -> Iterator[Claim]:
    """Own ``key`` for this request (or find the response to replay: ``Claim.replay``); if the
    block raises, roll back what it did and free the key, so a corrected retry may reuse it."""
    held = Claim(session, tenant_id, key)
    if key is None:
        yield held
        return
    held.replay = begin(session, tenant_id, key, fingerprint(operation, body), in_flight_s=in_flight_s)
    if held.replay is not None:
        yield held
        return
    try:
        yield held
    except Exception:
        if not held.released:
            forget(session, tenant_id, key)
        raise
