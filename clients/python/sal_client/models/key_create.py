from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.key_create_scopes_item import KeyCreateScopesItem
from ..types import UNSET, Unset

T = TypeVar("T", bound="KeyCreate")


@_attrs_define
class KeyCreate:
    """A new key for ``tenant`` (the tenant is created if it is new).

    Attributes:
        tenant (str): The tenant the key acts as; created if new.
        expires_at (datetime.datetime | None | Unset): When the key stops working (with a time zone); in the future.
        expires_in_days (float | None | Unset): Or: it stops working this many days from now.
        name (None | str | Unset): What the key is for (shown in lists).
        scopes (list[KeyCreateScopesItem] | Unset): read: GET and predict; write: every other change; admin: /admin and
            /metrics (only for a tenant named in SAL_OPERATOR_TENANTS).
    """

    tenant: str
    expires_at: datetime.datetime | None | Unset = UNSET
    expires_in_days: float | None | Unset = UNSET
    name: None | str | Unset = UNSET
    scopes: list[KeyCreateScopesItem] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        tenant = self.tenant

        expires_at: None | str | Unset
        if isinstance(self.expires_at, Unset):
            expires_at = UNSET
        elif isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        expires_in_days: float | None | Unset
        if isinstance(self.expires_in_days, Unset):
            expires_in_days = UNSET
        else:
            expires_in_days = self.expires_in_days

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        scopes: list[str] | Unset = UNSET
        if not isinstance(self.scopes, Unset):
            scopes = []
            for scopes_item_data in self.scopes:
                scopes_item = scopes_item_data.value
                scopes.append(scopes_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "tenant": tenant,
            }
        )
        if expires_at is not UNSET:
            field_dict["expires_at"] = expires_at
        if expires_in_days is not UNSET:
            field_dict["expires_in_days"] = expires_in_days
        if name is not UNSET:
            field_dict["name"] = name
        if scopes is not UNSET:
            field_dict["scopes"] = scopes

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        tenant = d.pop("tenant")

        def _parse_expires_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                expires_at_type_0 = datetime.datetime.fromisoformat(data)

                return expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        expires_at = _parse_expires_at(d.pop("expires_at", UNSET))

        def _parse_expires_in_days(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        expires_in_days = _parse_expires_in_days(d.pop("expires_in_days", UNSET))

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))

        _scopes = d.pop("scopes", UNSET)
        scopes: list[KeyCreateScopesItem] | Unset = UNSET
        if _scopes is not UNSET:
            scopes = []
            for scopes_item_data in _scopes:
                scopes_item = KeyCreateScopesItem(scopes_item_data)

                scopes.append(scopes_item)

        key_create = cls(
            tenant=tenant,
            expires_at=expires_at,
            expires_in_days=expires_in_days,
            name=name,
            scopes=scopes,
        )

        return key_create
