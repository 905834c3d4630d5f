from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.round_metrics_w_type_0 import RoundMetricsWType0


T = TypeVar("T", bound="RoundMetrics")


@_attrs_define
class RoundMetrics:
    """The latest outer round of a running fit, as the worker last wrote it.

    Attributes:
        risk (float | None | Unset): The round's training objective (the algorithm's risk).
        w (None | RoundMetricsWType0 | Unset): SAL's covariate weights by feature, when the dataset has at most 50
            features.
    """

    risk: float | None | Unset = UNSET
    w: None | RoundMetricsWType0 | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.round_metrics_w_type_0 import RoundMetricsWType0  # noqa: PLC0415

        risk: float | None | Unset
        if isinstance(self.risk, Unset):
            risk = UNSET
        else:
            risk = self.risk

        w: dict[str, Any] | None | Unset
        if isinstance(self.w, Unset):
            w = UNSET
        elif isinstance(self.w, RoundMetricsWType0):
            w = self.w.to_dict()
        else:
            w = self.w

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if risk is not UNSET:
            field_dict["risk"] = risk
        if w is not UNSET:
            field_dict["w"] = w

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.round_metrics_w_type_0 import RoundMetricsWType0  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_risk(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        risk = _parse_risk(d.pop("risk", UNSET))

        def _parse_w(data: object) -> None | RoundMetricsWType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                w_type_0 = RoundMetricsWType0.from_dict(data)

                return w_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RoundMetricsWType0 | Unset, data)

        w = _parse_w(d.pop("w", UNSET))

        round_metrics = cls(
            risk=risk,
            w=w,
        )

        round_metrics.additional_properties = d
        return round_metrics

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
