from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ParamPublic")


@_attrs_define
class ParamPublic:
    """
    Attributes:
        choices (list[Any] | None):
        default (Any):
        doc (str):
        grid (list[Any] | None):
        high (float | None):
        low (float | None):
        name (str):
        type_ (str):
    """

    choices: list[Any] | None
    default: Any
    doc: str
    grid: list[Any] | None
    high: float | None
    low: float | None
    name: str
    type_: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        choices: list[Any] | None
        if isinstance(self.choices, list):
            choices = self.choices

        else:
            choices = self.choices

        default = self.default

        doc = self.doc

        grid: list[Any] | None
        if isinstance(self.grid, list):
            grid = self.grid

        else:
            grid = self.grid

        high: float | None
        high = self.high

        low: float | None
        low = self.low

        name = self.name

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "choices": choices,
                "default": default,
                "doc": doc,
                "grid": grid,
                "high": high,
                "low": low,
                "name": name,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_choices(data: object) -> list[Any] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                choices_type_0 = cast(list[Any], data)

                return choices_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Any] | None, data)

        choices = _parse_choices(d.pop("choices"))

        default = d.pop("default")

        doc = d.pop("doc")

        def _parse_grid(data: object) -> list[Any] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                grid_type_0 = cast(list[Any], data)

                return grid_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Any] | None, data)

        grid = _parse_grid(d.pop("grid"))

        def _parse_high(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        high = _parse_high(d.pop("high"))

        def _parse_low(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        low = _parse_low(d.pop("low"))

        name = d.pop("name")

        type_ = d.pop("type")

        param_public = cls(
            choices=choices,
            default=default,
            doc=doc,
            grid=grid,
            high=high,
            low=low,
            name=name,
            type_=type_,
        )

        param_public.additional_properties = d
        return param_public

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
