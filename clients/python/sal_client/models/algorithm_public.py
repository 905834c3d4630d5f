from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.param_public import ParamPublic


T = TypeVar("T", bound="AlgorithmPublic")


@_attrs_define
class AlgorithmPublic:
    """
    Attributes:
        linear_only (bool):
        min_environments (int):
        name (str):
        params (list[ParamPublic]):
        summary (str):
    """

    linear_only: bool
    min_environments: int
    name: str
    params: list[ParamPublic]
    summary: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        linear_only = self.linear_only

        min_environments = self.min_environments

        name = self.name

        params = []
        for params_item_data in self.params:
            params_item = params_item_data.to_dict()
            params.append(params_item)

        summary = self.summary

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "linear_only": linear_only,
                "min_environments": min_environments,
                "name": name,
                "params": params,
                "summary": summary,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.param_public import ParamPublic  # noqa: PLC0415

        d = dict(src_dict)
        linear_only = d.pop("linear_only")

        min_environments = d.pop("min_environments")

        name = d.pop("name")

        params = []
        _params = d.pop("params")
        for params_item_data in _params:
            params_item = ParamPublic.from_dict(params_item_data)

            params.append(params_item)

        summary = d.pop("summary")

        algorithm_public = cls(
            linear_only=linear_only,
            min_environments=min_environments,
            name=name,
            params=params,
            summary=summary,
        )

        algorithm_public.additional_properties = d
        return algorithm_public

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
