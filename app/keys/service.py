"""Creating, listing and revoking API keys, for /admin/keys and ``python -m app.admin keys``.
Creating and revoking commit (the transaction ends here, as the jobs' and sweeps' services end
theirs, so the routes only call); bad input raises ``UnprocessableEntity`` naming the field."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection

from sqlalchemy.orm import Session

from app import auth
from app.db import tenancy
from app.db.models import ApiKey, utcnow
from app.errors import NotFound, UnprocessableEntity
from app.keys.schemas import KeyCreate, KeyCreated, KeyPublic, KeyState


def state_of(key: ApiKey, now: dt.datetime) -> KeyState:
    if key.revoked_at is not None:
        return "revoked"
    if key.expires_at is not None and key.expires_at <= now:
        return "expired"
    return "active"


def to_public(key: ApiKey, tenant: str, operator_tenants: Collection[str]) -> KeyPublic:
    """``scopes`` as they act: a key made before scopes shows admin only where its tenant operates."""
    scopes = auth.parse_scopes(key.scopes)
    if key.scopes is None and tenant not in operator_tenants:
        scopes = scopes - {"admin"}
    return KeyPublic(
        id=key.id,
        tenant=tenant,
        name=key.name,
        prefix=key.prefix,
        scopes=[s for s in auth.SCOPES if s in scopes],
        state=state_of(key, utcnow()),
        created_at=key.created_at,
        expires_at=key.expires_at,
        revoked_at=key.revoked_at,
    )


def create_key(session: Session, body: KeyCreate, operator_tenants: Collection[str]) -> KeyCreated:
    """A new key (its tenant created if new). 422 on ``scopes`` for admin outside an operator
    tenant, on ``expires_at`` for a past time or both expiry fields."""
    if "admin" in body.scopes and body.tenant not in operator_tenants:
        raise UnprocessableEntity(
            f"the admin scope is only for keys of an operator tenant ({', '.join(sorted(operator_tenants)) or 'none'}; "
            "SAL_OPERATOR_TENANTS)",
            errors=[("scopes", f"tenant {body.tenant!r} is not an operator tenant: admin is not allowed")],
        )
    now = utcnow()
    expires_at = body.expires_at
    if expires_at is not None and body.expires_in_days is not None:
        raise UnprocessableEntity(
            "give expires_at or expires_in_days, not both",
            errors=[("expires_in_days", "expires_at is given too")],
        )
    if body.expires_in_days is not None:
        expires_at = now + dt.timedelta(days=body.expires_in_days)
    elif expires_at is not None and expires_at <= now:
        raise UnprocessableEntity(
            "expires_at must be in the future",
            errors=[("expires_at", f"{expires_at.isoformat()} has passed")],
        )
    tenant = tenancy.get_or_create_tenant(session, body.tenant)
    secret = auth.new_key()
    record = tenancy.add_api_key(
        session,
        tenant.id,
        auth.key_sha256(secret),
        auth.display_prefix(secret),
        expires_at=expires_at,
        scopes=auth.format_scopes(list(body.scopes)),
        name=body.name or None,
    )
    public = to_public(record, tenant.name, operator_tenants)
    created = KeyCreated(**public.model_dump(), key=secret)
    session.commit()
    return created


def list_keys(
    session: Session,
    operator_tenants: Collection[str],
    tenant: str | None = None,
    state: KeyState | None = None,
) -> list[KeyPublic]:
    keys = [to_public(k, name, operator_tenants) for k, name in tenancy.list_api_keys(session, tenant)]
    return [k for k in keys if state is None or k.state == state]


def revoke_key(session: Session, key_id: str, operator_tenants: Collection[str]) -> KeyPublic:
    """Revoke ``key_id`` at once (its open event streams end within SAL_EVENTS_POLL_S); revoking a
    revoked key changes nothing. 404 for an unknown id."""
    tenancy.revoke_api_key(session, key_id)
    found = tenancy.get_api_key(session, key_id)
    if found is None:
        raise NotFound(f"no API key {key_id!r}")
    session.flush()
    public = to_public(found[0], found[1], operator_tenants)
    session.commit()
    return public
