from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Summary")


@_attrs_define
class Summary:
    """
    Attributes:
        mean_error (float):
        metric (str):
        std_error (float):
        worst_error (float):
        worst_environment (None | str | Unset):
    """

    mean_error: float
    metric: str
    std_error: float
    worst_error: float
    worst_environment: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        mean_error = self.mean_error

        metric = self.metric

        std_error = self.std_error

        worst_error = self.worst_error

        worst_environment: None | str | Unset
        if isinstance(self.worst_environment, Unset):
            worst_environment = UNSET
        else:
            worst_environment = self.worst_environment

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "mean_error": mean_error,
                "metric": metric,
                "std_error": std_error,
                "worst_error": worst_error,
            }
        )
        if worst_environment is not UNSET:
            field_dict["worst_environment"] = worst_environment

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        mean_error = d.pop("mean_error")

        metric = d.pop("metric")

        std_error = d.pop("std_error")

        worst_error = d.pop("worst_error")

        def _parse_worst_environment(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        worst_environment = _parse_worst_environment(d.pop("worst_environment", UNSET))

        summary = cls(
            mean_error=mean_error,
            metric=metric,
            std_error=std_error,
            worst_error=worst_error,
            worst_environment=worst_environment,
        )

        summary.additional_properties = d
        return summary

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
