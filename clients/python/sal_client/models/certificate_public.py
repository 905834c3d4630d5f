from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="CertificatePublic")


@_attrs_define
class CertificatePublic:
    """
    Attributes:
        rho_hat (float):
        worst_case_risk (float):
    """

    rho_hat: float
    worst_case_risk: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        rho_hat = self.rho_hat

        worst_case_risk = self.worst_case_risk

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "rho_hat": rho_hat,
                "worst_case_risk": worst_case_risk,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        rho_hat = d.pop("rho_hat")

        worst_case_risk = d.pop("worst_case_risk")

        certificate_public = cls(
            rho_hat=rho_hat,
            worst_case_risk=worst_case_risk,
        )

        certificate_public.additional_properties = d
        return certificate_public

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
