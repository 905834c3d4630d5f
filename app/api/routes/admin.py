"""Operator routes: a key with the admin scope of a tenant in ``operator_tenants``, or single-user
mode's one user (``OperatorDep``).

    POST   /admin/keys            a new key for a tenant (created if new); its secret shown once
    GET    /admin/keys            keys, never their secrets (?tenant=, ?state=)
    DELETE /admin/keys/{key_id}   revoke: at once, and its open event streams within seconds
    DELETE /admin/tenants/{name}  erase a tenant and everything it stored (not in the client:
                                  ``sal admin tenants erase`` asks for it by name)
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from app.api.deps import OperatorDep, SessionDep, SettingsDep
from app.api.errors import responses
from app.keys import service as keys_service
from app.keys.schemas import KeyCreate, KeyCreated, KeyPublic, KeysPublic, KeyState
from app.tenants import service as tenants_service

router = APIRouter(prefix="/admin", tags=["admin"])


@router.post(
    "/keys",
    operation_id="create_key",
    status_code=201,
    response_model=KeyCreated,
    responses=responses(401, 403, 422),
)
def create_key(
    body: KeyCreate, session: SessionDep, settings: SettingsDep, _operator: OperatorDep
) -> KeyCreated:
    """A new API key for ``tenant`` with its scopes and expiry. The answer holds the key itself,
    which is shown this once (only its sha256 is stored)."""
    return keys_service.create_key(session, body, settings.operator_tenants)


@router.get("/keys", operation_id="list_keys", response_model=KeysPublic, responses=responses(401, 403, 422))
def list_keys(
    session: SessionDep,
    settings: SettingsDep,
    _operator: OperatorDep,
    tenant: Annotated[str | None, Query(max_length=255, description="Only this tenant's keys.")] = None,
    state: Annotated[KeyState | None, Query(description="Only keys in this state.")] = None,
) -> KeysPublic:
    """Every key, oldest first: id, tenant, name, prefix, scopes, state and times; never a secret."""
    return KeysPublic(items=keys_service.list_keys(session, settings.operator_tenants, tenant, state))


@router.delete(
    "/keys/{key_id}", operation_id="revoke_key", response_model=KeyPublic, responses=responses(401, 403, 404)
)
def revoke_key(key_id: str, session: SessionDep, settings: SettingsDep, _operator: OperatorDep) -> KeyPublic:
    """Revoke a key: it stops working at once. Revoking a revoked key changes nothing."""
    return keys_service.revoke_key(session, key_id, settings.operator_tenants)


@router.delete("/tenants/{name}", include_in_schema=False)
def delete_tenant(
    name: str, session: SessionDep, settings: SettingsDep, _operator: OperatorDep
) -> dict[str, int]:
    """Erase a tenant: its jobs, results, weights, sweeps, datasets, idempotency records and API
    keys; the rows deleted per table."""
    return tenants_service.erase_tenant(session, name, settings)
