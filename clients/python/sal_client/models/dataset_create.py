from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.environment_data import EnvironmentData


T = TypeVar("T", bound="DatasetCreate")


@_attrs_define
class DatasetCreate:
    """The JSON form of an upload.

    Attributes:
        environments (list[EnvironmentData]):
        feature_names (list[str]):
        name (str | Unset):  Default: 'dataset'.
        target (str | Unset):  Default: 'y'.
    """

    environments: list[EnvironmentData]
    feature_names: list[str]
    name: str | Unset = "dataset"
    target: str | Unset = "y"

    def to_dict(self) -> dict[str, Any]:
        environments = []
        for environments_item_data in self.environments:
            environments_item = environments_item_data.to_dict()
            environments.append(environments_item)

        feature_names = self.feature_names

        name = self.name

        target = self.target

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "environments": environments,
                "feature_names": feature_names,
            }
        )
        if name is not UNSET:
            field_dict["name"] = name
        if target is not UNSET:
            field_dict["target"] = target

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.environment_data import EnvironmentData  # noqa: PLC0415

        d = dict(src_dict)
        environments = []
        _environments = d.pop("environments")
        for environments_item_data in _environments:
            environments_item = EnvironmentData.from_dict(environments_item_data)

            environments.append(environments_item)

        feature_names = cast(list[str], d.pop("feature_names"))

        name = d.pop("name", UNSET)

        target = d.pop("target", UNSET)

        dataset_create = cls(
            environments=environments,
            feature_names=feature_names,
            name=name,
            target=target,
        )

        return dataset_create
