"""Request dependencies: the session, settings, job queue and the caller's tenant, as
``Annotated`` aliases."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Request, Security
from fastapi.security import HTTPBearer
from sqlalchemy.orm import Session

from app.api.errors import Unauthorized
from app.auth import Principal, key_sha256
from app.db import tenancy
from app.db.models import DEFAULT_TENANT_ID, DEFAULT_TENANT_NAME
from app.queue import JobQueue
from app.settings import Settings

# Declares the scheme in the OpenAPI document; the header is read below, so that a missing or
# malformed one is our 401 problem, not FastAPI's.
_bearer = HTTPBearer(auto_error=False, description="An API key from `python -m app.admin keys create`.")


def get_session(request: Request) -> Iterator[Session]:
    # Routes commit once, explicitly; whatever they did not commit is rolled back here.
    with request.app.state.sessionmaker() as session:
        yield session


def get_settings(request: Request) -> Settings:
    return request.app.state.settings  # type: ignore[no-any-return]


def get_queue(request: Request) -> JobQueue:
    return request.app.state.queue  # type: ignore[no-any-return]


def get_principal(
    request: Request, session: Annotated[Session, Depends(get_session)], _: object = Security(_bearer)
) -> Principal:
    """The tenant of the request's ``Authorization: Bearer <key>``; in single-user mode a request
    without a key acts as the default tenant (one with a key still acts as the key's tenant)."""
    header = request.headers.get("authorization")
    if header is None:
        if request.app.state.settings.single_user:
            return Principal(DEFAULT_TENANT_ID, DEFAULT_TENANT_NAME, None)
        raise Unauthorized("an API key is required: send 'Authorization: Bearer <key>'")
    scheme, _sep, key = header.partition(" ")
    if scheme.lower() != "bearer" or not key.strip():
        raise Unauthorized("send the API key as 'Authorization: Bearer <key>'", invalid=True)
    found = tenancy.principal_for_key(session, key_sha256(key.strip()))
    if found is None:
        raise Unauthorized("the API key is unknown or revoked", invalid=True)
    return found


SessionDep = Annotated[Session, Depends(get_session)]
PrincipalDep = Annotated[Principal, Depends(get_principal)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
QueueDep = Annotated[JobQueue, Depends(get_queue)]
