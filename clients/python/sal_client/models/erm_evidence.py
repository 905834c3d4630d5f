from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ErmEvidence")


@_attrs_define
class ErmEvidence:
    """Where ERM came first: the evidence that a robust candidate beats it, against its bar
    (``sal_core.lambda_selection.ErmEvidence``).

        Attributes:
            bar (float | None | Unset): What t had to exceed for a robust candidate to be chosen.
            candidates (int | None | Unset): How many robust candidates were compared with ERM.
            t (float | None | Unset): How far the strongest robust candidate beat ERM, in standard errors.
    """

    bar: float | None | Unset = UNSET
    candidates: int | None | Unset = UNSET
    t: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        bar: float | None | Unset
        if isinstance(self.bar, Unset):
            bar = UNSET
        else:
            bar = self.bar

        candidates: int | None | Unset
        if isinstance(self.candidates, Unset):
            candidates = UNSET
        else:
            candidates = self.candidates

        t: float | None | Unset
        if isinstance(self.t, Unset):
            t = UNSET
        else:
            t = self.t

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if bar is not UNSET:
            field_dict["bar"] = bar
        if candidates is not UNSET:
            field_dict["candidates"] = candidates
        if t is not UNSET:
            field_dict["t"] = t

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_bar(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        bar = _parse_bar(d.pop("bar", UNSET))

        def _parse_candidates(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        candidates = _parse_candidates(d.pop("candidates", UNSET))

        def _parse_t(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        t = _parse_t(d.pop("t", UNSET))

        erm_evidence = cls(
            bar=bar,
            candidates=candidates,
            t=t,
        )

        erm_evidence.additional_properties = d
        return erm_evidence

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
