from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="DatasetSummary")


@_attrs_define
class DatasetSummary:
    """A dataset as GET /datasets lists it, under 1 KB however wide: its feature names and
    environments are on GET /datasets/{id}.

        Attributes:
            created_at (datetime.datetime):
            id (str):
            n_environments (int):
            n_features (int):
            n_rows (int):
            name (str):
            sha256 (str):
            target (str):
    """

    created_at: datetime.datetime
    id: str
    n_environments: int
    n_features: int
    n_rows: int
    name: str
    sha256: str
    target: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        id = self.id

        n_environments = self.n_environments

        n_features = self.n_features

        n_rows = self.n_rows

        name = self.name

        sha256 = self.sha256

        target = self.target

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "id": id,
                "n_environments": n_environments,
                "n_features": n_features,
                "n_rows": n_rows,
                "name": name,
                "sha256": sha256,
                "target": target,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        id = d.pop("id")

        n_environments = d.pop("n_environments")

        n_features = d.pop("n_features")

        n_rows = d.pop("n_rows")

        name = d.pop("name")

        sha256 = d.pop("sha256")

        target = d.pop("target")

        dataset_summary = cls(
            created_at=created_at,
            id=id,
            n_environments=n_environments,
            n_features=n_features,
            n_rows=n_rows,
            name=name,
            sha256=sha256,
            target=target,
        )

        dataset_summary.additional_properties = d
        return dataset_summary

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
