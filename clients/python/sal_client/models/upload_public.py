from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="UploadPublic")


@_attrs_define
class UploadPublic:
    """A resumable upload: ``offset`` bytes of ``size`` received; the next part starts at ``offset``.

    Attributes:
        created_at (datetime.datetime):
        expires_at (datetime.datetime): Unless appended to before then, the upload is removed.
        filename (None | str):
        id (str):
        offset (int):
        sha256 (None | str):
        size (int):
        dataset_id (None | str | Unset): Once committed: the dataset (the bytes are gone; a repeated commit returns it).
    """

    created_at: datetime.datetime
    expires_at: datetime.datetime
    filename: None | str
    id: str
    offset: int
    sha256: None | str
    size: int
    dataset_id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        expires_at = self.expires_at.isoformat()

        filename: None | str
        filename = self.filename

        id = self.id

        offset = self.offset

        sha256: None | str
        sha256 = self.sha256

        size = self.size

        dataset_id: None | str | Unset
        if isinstance(self.dataset_id, Unset):
            dataset_id = UNSET
        else:
            dataset_id = self.dataset_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "expires_at": expires_at,
                "filename": filename,
                "id": id,
                "offset": offset,
                "sha256": sha256,
                "size": size,
            }
        )
        if dataset_id is not UNSET:
            field_dict["dataset_id"] = dataset_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))

        def _parse_filename(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        filename = _parse_filename(d.pop("filename"))

        id = d.pop("id")

        offset = d.pop("offset")

        def _parse_sha256(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        sha256 = _parse_sha256(d.pop("sha256"))

        size = d.pop("size")

        def _parse_dataset_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        dataset_id = _parse_dataset_id(d.pop("dataset_id", UNSET))

        upload_public = cls(
            created_at=created_at,
            expires_at=expires_at,
            filename=filename,
            id=id,
            offset=offset,
            sha256=sha256,
            size=size,
            dataset_id=dataset_id,
        )

        upload_public.additional_properties = d
        return upload_public

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
