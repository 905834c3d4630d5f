"""Queries for tenants, their API keys and idempotency records. Like ``app.db.repository``,
functions take a Session and never commit."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

from sqlalchemy import ColumnElement, delete, or_, select, update
from sqlalchemy.orm import Session

from app.auth import Principal, parse_scopes
from app.db.models import ApiKey, IdempotencyKey, Tenant, utcnow

# --- tenants and keys -------------------------------------------------------------------------


def get_or_create_tenant(session: Session, name: str) -> Tenant:
    tenant = session.scalar(select(Tenant).where(Tenant.name == name))
    if tenant is None:
        tenant = Tenant(id=str(uuid.uuid4()), name=name)
        session.add(tenant)
        session.flush()
    return tenant


def tenant_id_of(session: Session, name: str) -> str | None:
    return session.scalar(select(Tenant.id).where(Tenant.name == name))


def tenant_name(session: Session, tenant_id: str) -> str | None:
    return session.scalar(select(Tenant.name).where(Tenant.id == tenant_id))


def add_api_key(
    session: Session,
    tenant_id: str,
    key_sha256: str,
    prefix: str,
    *,
    expires_at: dt.datetime | None = None,
    scopes: str | None = None,
    name: str | None = None,
) -> ApiKey:
    """``scopes`` space-separated (app.auth.format_scopes); None: every scope, as before scopes."""
    key = ApiKey(
        id=str(uuid.uuid4()),
        tenant_id=tenant_id,
        key_sha256=key_sha256,
        prefix=prefix,
        expires_at=expires_at,
        scopes=scopes,
        name=name,
    )
    session.add(key)
    session.flush()
    return key


def _usable(now: dt.datetime) -> tuple[ColumnElement[bool], ...]:
    """A key that is neither revoked nor expired."""
    return (ApiKey.revoked_at.is_(None), or_(ApiKey.expires_at.is_(None), ApiKey.expires_at > now))


def principal_for_key(session: Session, key_sha256: str) -> Principal | None:
    row = session.execute(
        select(ApiKey.id, Tenant.id, Tenant.name, ApiKey.scopes)
        .join(Tenant, Tenant.id == ApiKey.tenant_id)
        .where(ApiKey.key_sha256 == key_sha256, *_usable(utcnow()))
    ).first()
    if row is None:
        return None
    return Principal(tenant_id=row[1], tenant=row[2], key_id=row[0], scopes=parse_scopes(row[3]))


def valid_key_ids(session: Session, key_ids: list[str]) -> set[str]:
    """Those of ``key_ids`` that are neither revoked nor expired."""
    rows = session.scalars(select(ApiKey.id).where(ApiKey.id.in_(key_ids), *_usable(utcnow())))
    return set(rows)


def revoke_api_key(session: Session, key_id: str) -> bool:
    result = session.execute(
        update(ApiKey).where(ApiKey.id == key_id, ApiKey.revoked_at.is_(None)).values(revoked_at=utcnow())
    )
    return bool(getattr(result, "rowcount", 0) == 1)


def get_api_key(session: Session, key_id: str) -> tuple[ApiKey, str] | None:
    """The key ``key_id`` and its tenant's name."""
    row = session.execute(
        select(ApiKey, Tenant.name).join(Tenant, Tenant.id == ApiKey.tenant_id).where(ApiKey.id == key_id)
    ).first()
    return None if row is None else (row[0], row[1])


def list_api_keys(
    session: Session, tenant: str | None = None, *, usable_only: bool = False
) -> list[tuple[ApiKey, str]]:
    """Keys (oldest first) with their tenant's name; ``usable_only``: neither revoked nor expired."""
    stmt = select(ApiKey, Tenant.name).join(Tenant, Tenant.id == ApiKey.tenant_id).order_by(ApiKey.created_at)
    if tenant is not None:
        stmt = stmt.where(Tenant.name == tenant)
    if usable_only:
        stmt = stmt.where(*_usable(utcnow()))
    return [(key, name) for key, name in session.execute(stmt)]


# --- idempotency ------------------------------------------------------------------------------


def add_idempotent(session: Session, tenant_id: str, key: str, fingerprint: str) -> None:
    """Record a request as in flight; IntegrityError when (tenant_id, key) exists, in any process."""
    session.add(IdempotencyKey(tenant_id=tenant_id, key=key, fingerprint=fingerprint))
    session.flush()


def get_idempotent(session: Session, tenant_id: str, key: str) -> IdempotencyKey | None:
    return session.get(IdempotencyKey, (tenant_id, key), populate_existing=True)


def take_over_idempotent(
    session: Session, tenant_id: str, key: str, fingerprint: str, *, older_than: dt.datetime
) -> bool:
    """Claim an in-flight record left by a request that died with its process (same body only)."""
    taken = session.execute(
        update(IdempotencyKey)
        .where(
            IdempotencyKey.tenant_id == tenant_id,
            IdempotencyKey.key == key,
            IdempotencyKey.fingerprint == fingerprint,
            IdempotencyKey.status_code.is_(None),
            IdempotencyKey.created_at < older_than,
        )
        .values(created_at=utcnow())
    )
    return bool(getattr(taken, "rowcount", 0) == 1)


def complete_idempotent(
    session: Session,
    tenant_id: str,
    key: str,
    status_code: int,
    response: dict[str, Any],
    location: str | None,
) -> None:
    session.execute(
        update(IdempotencyKey)
        .where(IdempotencyKey.tenant_id == tenant_id, IdempotencyKey.key == key)
        .values(status_code=status_code, response=response, location=location)
    )


def purge_idempotent(session: Session, tenant_id: str, *, older_than: dt.datetime) -> None:
    """Delete the tenant's records made before ``older_than`` (expired)."""
    session.execute(
        delete(IdempotencyKey).where(
            IdempotencyKey.tenant_id == tenant_id, IdempotencyKey.created_at < older_than
        )
    )


def forget_idempotent(session: Session, tenant_id: str, key: str, *, completed_too: bool = False) -> None:
    """The request failed: a retry with the same key may try again."""
    where = [IdempotencyKey.tenant_id == tenant_id, IdempotencyKey.key == key]
    if not completed_too:
        where.append(IdempotencyKey.status_code.is_(None))
    session.execute(delete(IdempotencyKey).where(*where))
