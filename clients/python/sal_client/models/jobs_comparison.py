from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.job_summary import JobSummary
    from ..models.jobs_comparison_coefficients import JobsComparisonCoefficients
    from ..models.jobs_comparison_covariate_weights import JobsComparisonCovariateWeights
    from ..models.jobs_comparison_environments import JobsComparisonEnvironments
    from ..models.jobs_comparison_params import JobsComparisonParams


T = TypeVar("T", bound="JobsComparison")


@_attrs_define
class JobsComparison:
    """Jobs side by side (GET /jobs/compare): each list has one entry per job, in ``jobs`` order;
    null where a job has no such value.

        Attributes:
            coefficients (JobsComparisonCoefficients): θ per covariate per job (linear models).
            covariate_weights (JobsComparisonCovariateWeights): SAL's w per covariate per job.
            differing_params (list[str]): The parameters whose values are not all equal.
            environments (JobsComparisonEnvironments): Each environment's error per job.
            jobs (list[JobSummary]):
            metric (None | str): The metric of ``environments`` (the first result's).
            params (JobsComparisonParams): Every parameter any of the jobs set.
    """

    coefficients: JobsComparisonCoefficients
    covariate_weights: JobsComparisonCovariateWeights
    differing_params: list[str]
    environments: JobsComparisonEnvironments
    jobs: list[JobSummary]
    metric: None | str
    params: JobsComparisonParams
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        coefficients = self.coefficients.to_dict()

        covariate_weights = self.covariate_weights.to_dict()

        differing_params = self.differing_params

        environments = self.environments.to_dict()

        jobs = []
        for jobs_item_data in self.jobs:
            jobs_item = jobs_item_data.to_dict()
            jobs.append(jobs_item)

        metric: None | str
        metric = self.metric

        params = self.params.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "coefficients": coefficients,
                "covariate_weights": covariate_weights,
                "differing_params": differing_params,
                "environments": environments,
                "jobs": jobs,
                "metric": metric,
                "params": params,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.job_summary import JobSummary  # noqa: PLC0415
        from ..models.jobs_comparison_coefficients import JobsComparisonCoefficients  # noqa: PLC0415
        from ..models.jobs_comparison_covariate_weights import JobsComparisonCovariateWeights  # noqa: PLC0415
        from ..models.jobs_comparison_environments import JobsComparisonEnvironments  # noqa: PLC0415
        from ..models.jobs_comparison_params import JobsComparisonParams  # noqa: PLC0415

        d = dict(src_dict)
        coefficients = JobsComparisonCoefficients.from_dict(d.pop("coefficients"))

        covariate_weights = JobsComparisonCovariateWeights.from_dict(d.pop("covariate_weights"))

        differing_params = cast(list[str], d.pop("differing_params"))

        environments = JobsComparisonEnvironments.from_dict(d.pop("environments"))

        jobs = []
        _jobs = d.pop("jobs")
        for jobs_item_data in _jobs:
            jobs_item = JobSummary.from_dict(jobs_item_data)

            jobs.append(jobs_item)

        def _parse_metric(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        metric = _parse_metric(d.pop("metric"))

        params = JobsComparisonParams.from_dict(d.pop("params"))

        jobs_comparison = cls(
            coefficients=coefficients,
            covariate_weights=covariate_weights,
            differing_params=differing_params,
            environments=environments,
            jobs=jobs,
            metric=metric,
            params=params,
        )

        jobs_comparison.additional_properties = d
        return jobs_comparison

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
