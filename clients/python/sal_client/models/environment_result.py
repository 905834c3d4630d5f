from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.environment_result_split import EnvironmentResultSplit

T = TypeVar("T", bound="EnvironmentResult")


@_attrs_define
class EnvironmentResult:
    """One environment's split and metrics: mse, rmse, mae (regression) or log_loss, accuracy,
    confidence (classification).

        Attributes:
            n_rows (int):
            name (str):
            split (EnvironmentResultSplit):
    """

    n_rows: int
    name: str
    split: EnvironmentResultSplit
    additional_properties: dict[str, float] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        n_rows = self.n_rows

        name = self.name

        split = self.split.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "n_rows": n_rows,
                "name": name,
                "split": split,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        n_rows = d.pop("n_rows")

        name = d.pop("name")

        split = EnvironmentResultSplit(d.pop("split"))

        environment_result = cls(
            n_rows=n_rows,
            name=name,
            split=split,
        )

        environment_result.additional_properties = d
        return environment_result

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> float:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: float) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
