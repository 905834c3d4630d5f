from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="WEvidence")


@_attrs_define
class WEvidence:
    """How sure w is (``sal_core.lambda_selection.WEvidence``): its range over the fold fits of the
    chosen λ, and which covariates the data determine.

        Attributes:
            determined (list[bool]):
            high (list[float | None]):
            low (list[float | None]):
            note (None | str | Unset):
    """

    determined: list[bool]
    high: list[float | None]
    low: list[float | None]
    note: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        determined = self.determined

        high = []
        for high_item_data in self.high:
            high_item: float | None
            high_item = high_item_data
            high.append(high_item)

        low = []
        for low_item_data in self.low:
            low_item: float | None
            low_item = low_item_data
            low.append(low_item)

        note: None | str | Unset
        if isinstance(self.note, Unset):
            note = UNSET
        else:
            note = self.note

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "determined": determined,
                "high": high,
                "low": low,
            }
        )
        if note is not UNSET:
            field_dict["note"] = note

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        determined = cast(list[bool], d.pop("determined"))

        high = []
        _high = d.pop("high")
        for high_item_data in _high:

            def _parse_high_item(data: object) -> float | None:
                if data is None:
                    return data
                return cast(float | None, data)

            high_item = _parse_high_item(high_item_data)

            high.append(high_item)

        low = []
        _low = d.pop("low")
        for low_item_data in _low:

            def _parse_low_item(data: object) -> float | None:
                if data is None:
                    return data
                return cast(float | None, data)

            low_item = _parse_low_item(low_item_data)

            low.append(low_item)

        def _parse_note(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        note = _parse_note(d.pop("note", UNSET))

        w_evidence = cls(
            determined=determined,
            high=high,
            low=low,
            note=note,
        )

        w_evidence.additional_properties = d
        return w_evidence

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
