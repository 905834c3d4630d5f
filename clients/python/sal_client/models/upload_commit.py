from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="UploadCommit")


@_attrs_define
class UploadCommit:
    """How to read the complete file: the fields of ``POST /datasets``' multipart form.

    Attributes:
        environment (str): Name of the column that says which environment a row is from.
        target (str): Name of the label column.
        features (list[str] | None | Unset): Feature columns; default: every other numeric column.
        name (None | str | Unset): A name for the dataset; default: the file name.
    """

    environment: str
    target: str
    features: list[str] | None | Unset = UNSET
    name: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        environment = self.environment

        target = self.target

        features: list[str] | None | Unset
        if isinstance(self.features, Unset):
            features = UNSET
        elif isinstance(self.features, list):
            features = self.features

        else:
            features = self.features

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "environment": environment,
                "target": target,
            }
        )
        if features is not UNSET:
            field_dict["features"] = features
        if name is not UNSET:
            field_dict["name"] = name

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        environment = d.pop("environment")

        target = d.pop("target")

        def _parse_features(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                features_type_0 = cast(list[str], data)

                return features_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        features = _parse_features(d.pop("features", UNSET))

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))

        upload_commit = cls(
            environment=environment,
            target=target,
            features=features,
            name=name,
        )

        return upload_commit
