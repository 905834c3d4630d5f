from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="UploadCreate")


@_attrs_define
class UploadCreate:
    """Open a resumable upload (``POST /datasets/uploads``): the file's size, and optionally its
    digest, checked before it is parsed.

        Attributes:
            size (int): The file's size in bytes; the upload is complete at this offset.
            filename (None | str | Unset): The file's name: the dataset's default name.
            sha256 (None | str | Unset): The whole file's SHA-256 (hex); a commit whose bytes differ is refused and stores
                nothing.
    """

    size: int
    filename: None | str | Unset = UNSET
    sha256: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        size = self.size

        filename: None | str | Unset
        if isinstance(self.filename, Unset):
            filename = UNSET
        else:
            filename = self.filename

        sha256: None | str | Unset
        if isinstance(self.sha256, Unset):
            sha256 = UNSET
        else:
            sha256 = self.sha256

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "size": size,
            }
        )
        if filename is not UNSET:
            field_dict["filename"] = filename
        if sha256 is not UNSET:
            field_dict["sha256"] = sha256

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        size = d.pop("size")

        def _parse_filename(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        filename = _parse_filename(d.pop("filename", UNSET))

        def _parse_sha256(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        sha256 = _parse_sha256(d.pop("sha256", UNSET))

        upload_create = cls(
            size=size,
            filename=filename,
            sha256=sha256,
        )

        return upload_create
