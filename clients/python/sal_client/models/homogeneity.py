from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Homogeneity")


@_attrs_define
class Homogeneity:
    """The test that the training environments share their slopes (``sal_core.homogeneity.SlopesTest``):
    Chow's F, or for classification the likelihood ratio (χ² on ``df1``; ``df2`` null).

        Attributes:
            df1 (int | None | Unset):
            df2 (int | None | Unset): Null for the likelihood-ratio (χ²) test.
            exact_law (bool | None | Unset): The environments share one exact linear law (shared_residual at most 1e-6, on
                at least as many spare rows as coefficients): SAL keeps ERM there whatever p_value says.
            p_value (float | None | Unset): Small: the environments' slopes differ (evidence for robustness).
            shared_residual (float | None | Unset): Chow's test: the share of the target's within-environment variance that
                one set of slopes for every environment leaves unexplained. Null for the likelihood-ratio test and in results
                stored before 2026-12-07.
            statistic (float | None | Unset):
            test (None | str | Unset):
    """

    df1: int | None | Unset = UNSET
    df2: int | None | Unset = UNSET
    exact_law: bool | None | Unset = UNSET
    p_value: float | None | Unset = UNSET
    shared_residual: float | None | Unset = UNSET
    statistic: float | None | Unset = UNSET
    test: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        df1: int | None | Unset
        if isinstance(self.df1, Unset):
            df1 = UNSET
        else:
            df1 = self.df1

        df2: int | None | Unset
        if isinstance(self.df2, Unset):
            df2 = UNSET
        else:
            df2 = self.df2

        exact_law: bool | None | Unset
        if isinstance(self.exact_law, Unset):
            exact_law = UNSET
        else:
            exact_law = self.exact_law

        p_value: float | None | Unset
        if isinstance(self.p_value, Unset):
            p_value = UNSET
        else:
            p_value = self.p_value

        shared_residual: float | None | Unset
        if isinstance(self.shared_residual, Unset):
            shared_residual = UNSET
        else:
            shared_residual = self.shared_residual

        statistic: float | None | Unset
        if isinstance(self.statistic, Unset):
            statistic = UNSET
        else:
            statistic = self.statistic

        test: None | str | Unset
        if isinstance(self.test, Unset):
            test = UNSET
        else:
            test = self.test

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if df1 is not UNSET:
            field_dict["df1"] = df1
        if df2 is not UNSET:
            field_dict["df2"] = df2
        if exact_law is not UNSET:
            field_dict["exact_law"] = exact_law
        if p_value is not UNSET:
            field_dict["p_value"] = p_value
        if shared_residual is not UNSET:
            field_dict["shared_residual"] = shared_residual
        if statistic is not UNSET:
            field_dict["statistic"] = statistic
        if test is not UNSET:
            field_dict["test"] = test

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_df1(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        df1 = _parse_df1(d.pop("df1", UNSET))

        def _parse_df2(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        df2 = _parse_df2(d.pop("df2", UNSET))

        def _parse_exact_law(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        exact_law = _parse_exact_law(d.pop("exact_law", UNSET))

        def _parse_p_value(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        p_value = _parse_p_value(d.pop("p_value", UNSET))

        def _parse_shared_residual(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        shared_residual = _parse_shared_residual(d.pop("shared_residual", UNSET))

        def _parse_statistic(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        statistic = _parse_statistic(d.pop("statistic", UNSET))

        def _parse_test(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        test = _parse_test(d.pop("test", UNSET))

        homogeneity = cls(
            df1=df1,
            df2=df2,
            exact_law=exact_law,
            p_value=p_value,
            shared_residual=shared_residual,
            statistic=statistic,
            test=test,
        )

        homogeneity.additional_properties = d
        return homogeneity

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
