"""Request dependencies: the session, settings, job queue, upload gate and the caller's tenant, as
``Annotated`` aliases."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Request, Security
from fastapi.concurrency import run_in_threadpool
from fastapi.security import HTTPBearer
from sqlalchemy.orm import Session

from app import logs
from app.api.errors import Unauthorized
from app.api.ratelimit import RateLimits
from app.api.security import Forbidden
from app.auth import SCOPES, Principal, key_sha256, needed_scope
from app.datasets.uploads import UploadGate
from app.db import tenancy
from app.db.models import DEFAULT_TENANT_ID, DEFAULT_TENANT_NAME
from app.queue import JobQueue
from app.settings import Settings

# Declares the scheme in the OpenAPI document; the header is read below, so that a missing or
# malformed one is our 401 problem, not FastAPI's.
T = TypeVar("T")

_bearer = HTTPBearer(
    auto_error=False,
    description="An API key from `POST /admin/keys` (an operator's) or `python -m app.admin keys create`.",
)


def get_session(request: Request) -> Iterator[Session]:
    # The services below the routes commit once, explicitly; whatever they did not commit is rolled
    # back here.
    with request.app.state.sessionmaker() as session:
        yield session


# Dependencies without I/O are ``async`` so FastAPI does not hop to the thread pool for them.
async def get_settings(request: Request) -> Settings:
    return request.app.state.settings  # type: ignore[no-any-return]


async def get_queue(request: Request) -> JobQueue:
    return request.app.state.queue  # type: ignore[no-any-return]


async def get_upload_gate(request: Request) -> UploadGate:
    return request.app.state.uploads  # type: ignore[no-any-return]


def declared_length(request: Request) -> int | None:
    """The request's Content-Length, when it sends a well-formed one."""
    declared = request.headers.get("content-length")
    return int(declared) if declared is not None and declared.isdigit() else None


async def get_declared_length(request: Request) -> int | None:
    return declared_length(request)


async def get_principal(request: Request, _: object = Security(_bearer)) -> Principal:
    """The tenant of the request's ``Authorization: Bearer <key>``; in single-user mode a request
    without a key acts as the default tenant (one with a key still acts as the key's tenant).

    Async, with the key lookup in the thread pool on a session of its own: a request without a key
    in single-user mode costs no thread hop and no database round trip."""
    header = request.headers.get("authorization")
    limits: RateLimits = request.app.state.limits
    if header is None:
        if request.app.state.settings.single_user:
            logs.add(tenant=DEFAULT_TENANT_NAME)
            if limits.limit_single_user:
                await run_in_threadpool(limits.hit_tenant, DEFAULT_TENANT_ID)
            return Principal(DEFAULT_TENANT_ID, DEFAULT_TENANT_NAME, None)
        raise Unauthorized("an API key is required: send 'Authorization: Bearer <key>'")
    source = request.client.host if request.client else "unknown"
    scheme, _sep, key = header.partition(" ")
    if scheme.lower() != "bearer" or not key.strip():
        await run_in_threadpool(_failed, limits, source)
        raise Unauthorized("send the API key as 'Authorization: Bearer <key>'", invalid=True)
    found = await run_in_threadpool(_authenticate, request, key_sha256(key.strip()), source)
    if found is None:
        raise Unauthorized("the API key is unknown, revoked or expired", invalid=True)
    logs.add(tenant=found.tenant)
    needed = needed_scope(request.method, request.url.path)
    if needed not in found.scopes:
        held = ", ".join(s for s in SCOPES if s in found.scopes)
        raise Forbidden(
            f"{request.method} {request.url.path} needs the {needed!r} scope; this key has {held}"
        )
    return found


def _failed(limits: RateLimits, source: str) -> None:
    limits.check_source(source)
    limits.fail_source(source)


def _authenticate(request: Request, digest: str, source: str) -> Principal | None:
    """The key's principal, counting the request against its tenant's rate (app.api.ratelimit):
    a tenant known to be over its rate is refused before the database is asked."""
    limits: RateLimits = request.app.state.limits
    limits.check_source(source)
    known = limits.tenant_of(digest)
    if known is not None:
        limits.hit_tenant(known)
    with request.app.state.sessionmaker() as session:
        found = tenancy.principal_for_key(session, digest)
    if found is None:
        limits.fail_source(source)
        return None
    if known is None:
        limits.remember(digest, found.tenant_id)
        limits.hit_tenant(found.tenant_id)
    return found


async def get_operator(request: Request, principal: Principal = Depends(get_principal)) -> Principal:
    """The request's principal if it may manage keys, see every tenant's numbers or erase a tenant:
    the one user of single-user mode, or a key with the admin scope (checked by ``get_principal``)
    of a tenant named in ``operator_tenants``; otherwise a 403."""
    settings: Settings = request.app.state.settings
    if principal.key_id is None or (
        principal.tenant in settings.operator_tenants and "admin" in principal.scopes
    ):
        return principal
    raise Forbidden(
        "this needs an operator's key (a tenant named in SAL_OPERATOR_TENANTS, with the admin scope)"
    )


async def in_session(request: Request, work: Callable[..., T], *args: Any) -> T:
    """Run ``work(session, *args)`` in the thread pool with a session of its own: one thread hop
    for a whole read, for the hottest routes (a sync route plus SessionDep costs two)."""

    def run() -> T:
        with request.app.state.sessionmaker() as session:
            return work(session, *args)

    return await run_in_threadpool(run)


SessionDep = Annotated[Session, Depends(get_session)]
PrincipalDep = Annotated[Principal, Depends(get_principal)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
QueueDep = Annotated[JobQueue, Depends(get_queue)]
UploadGateDep = Annotated[UploadGate, Depends(get_upload_gate)]
DeclaredLengthDep = Annotated[int | None, Depends(get_declared_length)]
OperatorDep = Annotated[Principal, Depends(get_operator)]
