"""Bodies of /admin/keys. A key's secret appears in exactly one document: ``KeyCreated``, the
answer to its creation."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, StringConstraints

from app.auth import Scope

TenantName = Annotated[str, StringConstraints(min_length=1, max_length=255, strip_whitespace=True)]
KeyState = Literal["active", "revoked", "expired"]


class KeyCreate(BaseModel):
    """A new key for ``tenant`` (the tenant is created if it is new)."""

    model_config = ConfigDict(extra="forbid")

    tenant: TenantName = Field(description="The tenant the key acts as; created if new.")
    scopes: list[Scope] = Field(
        default=["read", "write"],
        min_length=1,
        description="read: GET and predict; write: every other change; admin: /admin and /metrics "
        "(only for a tenant named in SAL_OPERATOR_TENANTS).",
    )
    name: Annotated[str, StringConstraints(max_length=255, strip_whitespace=True)] | None = Field(
        default=None, description="What the key is for (shown in lists)."
    )
    expires_at: AwareDatetime | None = Field(
        default=None, description="When the key stops working (with a time zone); in the future."
    )
    expires_in_days: float | None = Field(
        default=None, gt=0, le=36500, description="Or: it stops working this many days from now."
    )


class KeyPublic(BaseModel):
    """A key as lists show it: never its secret, only its first characters (``prefix``)."""

    id: str
    tenant: str
    name: str | None
    prefix: str
    scopes: list[Scope]
    state: KeyState
    created_at: dt.datetime
    expires_at: dt.datetime | None
    revoked_at: dt.datetime | None


class KeyCreated(KeyPublic):
    key: str = Field(description="The key itself: shown this once, send it as 'Authorization: Bearer <key>'.")


class KeysPublic(BaseModel):
    items: list[KeyPublic]
