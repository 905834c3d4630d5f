from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="EnvironmentData")


@_attrs_define
class EnvironmentData:
    """
    Attributes:
        x (list[list[float]]): Rows of covariates, each with one value per feature.
        name (str):
        y (list[float]): One label per row.
    """

    x: list[list[float]]
    name: str
    y: list[float]

    def to_dict(self) -> dict[str, Any]:
        x = []
        for x_item_data in self.x:
            x_item = x_item_data

            x.append(x_item)

        name = self.name

        y = self.y

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "X": x,
                "name": name,
                "y": y,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        x = []
        _x = d.pop("X")
        for x_item_data in _x:
            x_item = cast(list[float], x_item_data)

            x.append(x_item)

        name = d.pop("name")

        y = cast(list[float], d.pop("y"))

        environment_data = cls(
            x=x,
            name=name,
            y=y,
        )

        return environment_data
