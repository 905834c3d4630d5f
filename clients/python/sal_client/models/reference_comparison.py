from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ReferenceComparison")


@_attrs_define
class ReferenceComparison:
    """The job's Mean_Error on its test environments against ERM's, fitted on the same training rows
    with the same task and linear model: did robustness pay off here, and how sure is that.

        Attributes:
            difference (float): This job's Mean_Error minus the reference's; negative: the job is better.
            mean_error (float): The reference's Mean_Error over the test environments.
            metric (str): The summary metric: rmse (regression) or error_rate (classification).
            standard_error (float): Standard error of the difference over the test rows, paired (both models score the same
                rows); a difference within about two of these is one the test rows cannot tell from noise.
            algorithm (str | Unset): The reference fitted beside the job. Default: 'erm'.
    """

    difference: float
    mean_error: float
    metric: str
    standard_error: float
    algorithm: str | Unset = "erm"
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        difference = self.difference

        mean_error = self.mean_error

        metric = self.metric

        standard_error = self.standard_error

        algorithm = self.algorithm

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "difference": difference,
                "mean_error": mean_error,
                "metric": metric,
                "standard_error": standard_error,
            }
        )
        if algorithm is not UNSET:
            field_dict["algorithm"] = algorithm

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        difference = d.pop("difference")

        mean_error = d.pop("mean_error")

        metric = d.pop("metric")

        standard_error = d.pop("standard_error")

        algorithm = d.pop("algorithm", UNSET)

        reference_comparison = cls(
            difference=difference,
            mean_error=mean_error,
            metric=metric,
            standard_error=standard_error,
            algorithm=algorithm,
        )

        reference_comparison.additional_properties = d
        return reference_comparison

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
