from __future__ import annotations

from collections.abc import Mapping
from io import BytesIO
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from .. import types
from ..types import UNSET, File, Unset

T = TypeVar("T", bound="DatasetUpload")


@_attrs_define
class DatasetUpload:
    """The multipart form of an upload (documented in OpenAPI; parsed by hand).

    Attributes:
        environment (str): Name of the column that says which environment a row is from.
        file (File): A CSV or Parquet file.
        target (str): Name of the label column.
        features (None | str | Unset): Comma-separated feature columns; default: every other column of numbers,
            true/false, or text of 2 to 32 values.
        name (None | str | Unset): A name for the dataset; default: the file name.
    """

    environment: str
    file: File
    target: str
    features: None | str | Unset = UNSET
    name: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        environment = self.environment

        file = self.file.to_tuple()

        target = self.target

        features: None | str | Unset
        if isinstance(self.features, Unset):
            features = UNSET
        else:
            features = self.features

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "environment": environment,
                "file": file,
                "target": target,
            }
        )
        if features is not UNSET:
            field_dict["features"] = features
        if name is not UNSET:
            field_dict["name"] = name

        return field_dict

    def to_multipart(self) -> types.RequestFiles:
        files: types.RequestFiles = []

        files.append(("environment", (None, str(self.environment).encode(), "text/plain")))

        files.append(("file", self.file.to_tuple()))

        files.append(("target", (None, str(self.target).encode(), "text/plain")))

        if not isinstance(self.features, Unset):
            if isinstance(self.features, str):
                files.append(("features", (None, str(self.features).encode(), "text/plain")))
            else:
                files.append(("features", (None, str(self.features).encode(), "text/plain")))

        if not isinstance(self.name, Unset):
            if isinstance(self.name, str):
                files.append(("name", (None, str(self.name).encode(), "text/plain")))
            else:
                files.append(("name", (None, str(self.name).encode(), "text/plain")))

        for prop_name, prop in self.additional_properties.items():
            files.append((prop_name, (None, str(prop).encode(), "text/plain")))

        return files

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        environment = d.pop("environment")

        file = File(payload=BytesIO(d.pop("file")))

        target = d.pop("target")

        def _parse_features(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        features = _parse_features(d.pop("features", UNSET))

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))

        dataset_upload = cls(
            environment=environment,
            file=file,
            target=target,
            features=features,
            name=name,
        )

        dataset_upload.additional_properties = d
        return dataset_upload

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
