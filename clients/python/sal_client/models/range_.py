from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="Range")


@_attrs_define
class Range:
    """
    Attributes:
        high (float):
        low (float):
        integer (bool | Unset): Round each draw to an integer. Default: False.
        log (bool | Unset): Draw log-uniformly (low > 0). Default: False.
    """

    high: float
    low: float
    integer: bool | Unset = False
    log: bool | Unset = False

    def to_dict(self) -> dict[str, Any]:
        high = self.high

        low = self.low

        integer = self.integer

        log = self.log

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "high": high,
                "low": low,
            }
        )
        if integer is not UNSET:
            field_dict["integer"] = integer
        if log is not UNSET:
            field_dict["log"] = log

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        high = d.pop("high")

        low = d.pop("low")

        integer = d.pop("integer", UNSET)

        log = d.pop("log", UNSET)

        range_ = cls(
            high=high,
            low=low,
            integer=integer,
            log=log,
        )

        return range_
