from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="ValidationSpec")


@_attrs_define
class ValidationSpec:
    """Data held out for model selection (the result then has a ``validation`` block).

    Attributes:
        environments (list[str] | None | Unset): Hold out these whole environments (neither trained nor tested on).
        fraction (float | None | Unset): Hold out this seeded share of every training environment's rows.
    """

    environments: list[str] | None | Unset = UNSET
    fraction: float | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        environments: list[str] | None | Unset
        if isinstance(self.environments, Unset):
            environments = UNSET
        elif isinstance(self.environments, list):
            environments = self.environments

        else:
            environments = self.environments

        fraction: float | None | Unset
        if isinstance(self.fraction, Unset):
            fraction = UNSET
        else:
            fraction = self.fraction

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if environments is not UNSET:
            field_dict["environments"] = environments
        if fraction is not UNSET:
            field_dict["fraction"] = fraction

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_environments(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                environments_type_0 = cast(list[str], data)

                return environments_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        environments = _parse_environments(d.pop("environments", UNSET))

        def _parse_fraction(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        fraction = _parse_fraction(d.pop("fraction", UNSET))

        validation_spec = cls(
            environments=environments,
            fraction=fraction,
        )

        return validation_spec
