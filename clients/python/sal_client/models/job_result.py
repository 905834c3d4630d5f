from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.certificate_public import CertificatePublic
    from ..models.environment_result import EnvironmentResult
    from ..models.job_result_coefficients_type_0 import JobResultCoefficientsType0
    from ..models.job_result_covariate_weights_type_0 import JobResultCovariateWeightsType0
    from ..models.reference_comparison import ReferenceComparison
    from ..models.round_ import Round
    from ..models.selection import Selection
    from ..models.summary import Summary
    from ..models.validation_result import ValidationResult


T = TypeVar("T", bound="JobResult")


@_attrs_define
class JobResult:
    """What a fit learned and how it scored; the worker writes it, every reader reads it.

    Attributes:
        certificate (CertificatePublic | None):
        coefficients (JobResultCoefficientsType0 | None):
        covariate_weights (JobResultCovariateWeightsType0 | None):
        duration_s (float):
        environments (list[EnvironmentResult]):
        history (list[Round]):
        intercept (float | None):
        summary (None | Summary):
        reference (None | ReferenceComparison | Unset): The job against ERM on its test environments, with the paired
            standard error; null for ERM itself, for networks and for jobs without test environments.
        selection (None | Selection | Unset): How the algorithm chose its λ, when it chose one itself.
        validation (None | Unset | ValidationResult):
    """

    certificate: CertificatePublic | None
    coefficients: JobResultCoefficientsType0 | None
    covariate_weights: JobResultCovariateWeightsType0 | None
    duration_s: float
    environments: list[EnvironmentResult]
    history: list[Round]
    intercept: float | None
    summary: None | Summary
    reference: None | ReferenceComparison | Unset = UNSET
    selection: None | Selection | Unset = UNSET
    validation: None | Unset | ValidationResult = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.certificate_public import CertificatePublic  # noqa: PLC0415
        from ..models.job_result_coefficients_type_0 import JobResultCoefficientsType0  # noqa: PLC0415
        from ..models.job_result_covariate_weights_type_0 import JobResultCovariateWeightsType0  # noqa: PLC0415
        from ..models.reference_comparison import ReferenceComparison  # noqa: PLC0415
        from ..models.selection import Selection  # noqa: PLC0415
        from ..models.summary import Summary  # noqa: PLC0415
        from ..models.validation_result import ValidationResult  # noqa: PLC0415

        certificate: dict[str, Any] | None
        if isinstance(self.certificate, CertificatePublic):
            certificate = self.certificate.to_dict()
        else:
            certificate = self.certificate

        coefficients: dict[str, Any] | None
        if isinstance(self.coefficients, JobResultCoefficientsType0):
            coefficients = self.coefficients.to_dict()
        else:
            coefficients = self.coefficients

        covariate_weights: dict[str, Any] | None
        if isinstance(self.covariate_weights, JobResultCovariateWeightsType0):
            covariate_weights = self.covariate_weights.to_dict()
        else:
            covariate_weights = self.covariate_weights

        duration_s = self.duration_s

        environments = []
        for environments_item_data in self.environments:
            environments_item = environments_item_data.to_dict()
            environments.append(environments_item)

        history = []
        for history_item_data in self.history:
            history_item = history_item_data.to_dict()
            history.append(history_item)

        intercept: float | None
        intercept = self.intercept

        summary: dict[str, Any] | None
        if isinstance(self.summary, Summary):
            summary = self.summary.to_dict()
        else:
            summary = self.summary

        reference: dict[str, Any] | None | Unset
        if isinstance(self.reference, Unset):
            reference = UNSET
        elif isinstance(self.reference, ReferenceComparison):
            reference = self.reference.to_dict()
        else:
            reference = self.reference

        selection: dict[str, Any] | None | Unset
        if isinstance(self.selection, Unset):
            selection = UNSET
        elif isinstance(self.selection, Selection):
            selection = self.selection.to_dict()
        else:
            selection = self.selection

        validation: dict[str, Any] | None | Unset
        if isinstance(self.validation, Unset):
            validation = UNSET
        elif isinstance(self.validation, ValidationResult):
            validation = self.validation.to_dict()
        else:
            validation = self.validation

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "certificate": certificate,
                "coefficients": coefficients,
                "covariate_weights": covariate_weights,
                "duration_s": duration_s,
                "environments": environments,
                "history": history,
                "intercept": intercept,
                "summary": summary,
            }
        )
        if reference is not UNSET:
            field_dict["reference"] = reference
        if selection is not UNSET:
            field_dict["selection"] = selection
        if validation is not UNSET:
            field_dict["validation"] = validation

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.certificate_public import CertificatePublic  # noqa: PLC0415
        from ..models.environment_result import EnvironmentResult  # noqa: PLC0415
        from ..models.job_result_coefficients_type_0 import JobResultCoefficientsType0  # noqa: PLC0415
        from ..models.job_result_covariate_weights_type_0 import JobResultCovariateWeightsType0  # noqa: PLC0415
        from ..models.reference_comparison import ReferenceComparison  # noqa: PLC0415
        from ..models.round_ import Round  # noqa: PLC0415
        from ..models.selection import Selection  # noqa: PLC0415
        from ..models.summary import Summary  # noqa: PLC0415
        from ..models.validation_result import ValidationResult  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_certificate(data: object) -> CertificatePublic | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                certificate_type_0 = CertificatePublic.from_dict(data)

                return certificate_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CertificatePublic | None, data)

        certificate = _parse_certificate(d.pop("certificate"))

        def _parse_coefficients(data: object) -> JobResultCoefficientsType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                coefficients_type_0 = JobResultCoefficientsType0.from_dict(data)

                return coefficients_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(JobResultCoefficientsType0 | None, data)

        coefficients = _parse_coefficients(d.pop("coefficients"))

        def _parse_covariate_weights(data: object) -> JobResultCovariateWeightsType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                covariate_weights_type_0 = JobResultCovariateWeightsType0.from_dict(data)

                return covariate_weights_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(JobResultCovariateWeightsType0 | None, data)

        covariate_weights = _parse_covariate_weights(d.pop("covariate_weights"))

        duration_s = d.pop("duration_s")

        environments = []
        _environments = d.pop("environments")
        for environments_item_data in _environments:
            environments_item = EnvironmentResult.from_dict(environments_item_data)

            environments.append(environments_item)

        history = []
        _history = d.pop("history")
        for history_item_data in _history:
            history_item = Round.from_dict(history_item_data)

            history.append(history_item)

        def _parse_intercept(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        intercept = _parse_intercept(d.pop("intercept"))

        def _parse_summary(data: object) -> None | Summary:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                summary_type_0 = Summary.from_dict(data)

                return summary_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Summary, data)

        summary = _parse_summary(d.pop("summary"))

        def _parse_reference(data: object) -> None | ReferenceComparison | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                reference_type_0 = ReferenceComparison.from_dict(data)

                return reference_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ReferenceComparison | Unset, data)

        reference = _parse_reference(d.pop("reference", UNSET))

        def _parse_selection(data: object) -> None | Selection | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                selection_type_0 = Selection.from_dict(data)

                return selection_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Selection | Unset, data)

        selection = _parse_selection(d.pop("selection", UNSET))

        def _parse_validation(data: object) -> None | Unset | ValidationResult:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                validation_type_0 = ValidationResult.from_dict(data)

                return validation_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | ValidationResult, data)

        validation = _parse_validation(d.pop("validation", UNSET))

        job_result = cls(
            certificate=certificate,
            coefficients=coefficients,
            covariate_weights=covariate_weights,
            duration_s=duration_s,
            environments=environments,
            history=history,
            intercept=intercept,
            summary=summary,
            reference=reference,
            selection=selection,
            validation=validation,
        )

        job_result.additional_properties = d
        return job_result

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
