from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.round_env_losses import RoundEnvLosses


T = TypeVar("T", bound="Round")


@_attrs_define
class Round:
    """One outer round of the fit (``sal_core.history.Round``); null where a number was not finite.

    Attributes:
        env_losses (RoundEnvLosses): Training loss per environment.
        risk (float | None): What the algorithm minimises: SAL's stability risk, the penalised objective of ridge, lasso
            and IRM, ERM's pooled training loss.
        round_ (int):
        penalty (float | None | Unset): Mean invariance penalty (IRM).
        w (list[float | None] | None | Unset): Covariate weights this round (SAL).
    """

    env_losses: RoundEnvLosses
    risk: float | None
    round_: int
    penalty: float | None | Unset = UNSET
    w: list[float | None] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        env_losses = self.env_losses.to_dict()

        risk: float | None
        risk = self.risk

        round_ = self.round_

        penalty: float | None | Unset
        if isinstance(self.penalty, Unset):
            penalty = UNSET
        else:
            penalty = self.penalty

        w: list[float | None] | None | Unset
        if isinstance(self.w, Unset):
            w = UNSET
        elif isinstance(self.w, list):
            w = []
            for w_type_0_item_data in self.w:
                w_type_0_item: float | None
                w_type_0_item = w_type_0_item_data
                w.append(w_type_0_item)

        else:
            w = self.w

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "env_losses": env_losses,
                "risk": risk,
                "round": round_,
            }
        )
        if penalty is not UNSET:
            field_dict["penalty"] = penalty
        if w is not UNSET:
            field_dict["w"] = w

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.round_env_losses import RoundEnvLosses  # noqa: PLC0415

        d = dict(src_dict)
        env_losses = RoundEnvLosses.from_dict(d.pop("env_losses"))

        def _parse_risk(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        risk = _parse_risk(d.pop("risk"))

        round_ = d.pop("round")

        def _parse_penalty(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        penalty = _parse_penalty(d.pop("penalty", UNSET))

        def _parse_w(data: object) -> list[float | None] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                w_type_0 = []
                _w_type_0 = data
                for w_type_0_item_data in _w_type_0:

                    def _parse_w_type_0_item(data: object) -> float | None:
                        if data is None:
                            return data
                        return cast(float | None, data)

                    w_type_0_item = _parse_w_type_0_item(w_type_0_item_data)

                    w_type_0.append(w_type_0_item)

                return w_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[float | None] | None | Unset, data)

        w = _parse_w(d.pop("w", UNSET))

        round_ = cls(
            env_losses=env_losses,
            risk=risk,
            round_=round_,
            penalty=penalty,
            w=w,
        )

        round_.additional_properties = d
        return round_

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
