from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.weights_json_task import WeightsJSONTask
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.input_encoding import InputEncoding
    from ..models.weights_json_coefficients_type_0 import WeightsJSONCoefficientsType0
    from ..models.weights_json_covariate_weights_type_0 import WeightsJSONCovariateWeightsType0
    from ..models.weights_json_model import WeightsJSONModel
    from ..models.weights_json_standardizer import WeightsJSONStandardizer
    from ..models.weights_json_state import WeightsJSONState


T = TypeVar("T", bound="WeightsJSON")


@_attrs_define
class WeightsJSON:
    """
    Attributes:
        algorithm (None | str):
        coefficients (None | WeightsJSONCoefficientsType0):
        covariate_weights (None | WeightsJSONCovariateWeightsType0):
        feature_names (list[str]):
        format_version (str):
        intercept (float | None):
        job_id (None | str):
        model (WeightsJSONModel):
        standardizer (WeightsJSONStandardizer):
        state (WeightsJSONState):
        task (WeightsJSONTask):
        encoding (InputEncoding | None | Unset): How the dataset's columns became feature_names; null once it is
            deleted.
    """

    algorithm: None | str
    coefficients: None | WeightsJSONCoefficientsType0
    covariate_weights: None | WeightsJSONCovariateWeightsType0
    feature_names: list[str]
    format_version: str
    intercept: float | None
    job_id: None | str
    model: WeightsJSONModel
    standardizer: WeightsJSONStandardizer
    state: WeightsJSONState
    task: WeightsJSONTask
    encoding: InputEncoding | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.input_encoding import InputEncoding  # noqa: PLC0415
        from ..models.weights_json_coefficients_type_0 import WeightsJSONCoefficientsType0  # noqa: PLC0415
        from ..models.weights_json_covariate_weights_type_0 import WeightsJSONCovariateWeightsType0  # noqa: PLC0415

        algorithm: None | str
        algorithm = self.algorithm

        coefficients: dict[str, Any] | None
        if isinstance(self.coefficients, WeightsJSONCoefficientsType0):
            coefficients = self.coefficients.to_dict()
        else:
            coefficients = self.coefficients

        covariate_weights: dict[str, Any] | None
        if isinstance(self.covariate_weights, WeightsJSONCovariateWeightsType0):
            covariate_weights = self.covariate_weights.to_dict()
        else:
            covariate_weights = self.covariate_weights

        feature_names = self.feature_names

        format_version = self.format_version

        intercept: float | None
        intercept = self.intercept

        job_id: None | str
        job_id = self.job_id

        model = self.model.to_dict()

        standardizer = self.standardizer.to_dict()

        state = self.state.to_dict()

        task = self.task.value

        encoding: dict[str, Any] | None | Unset
        if isinstance(self.encoding, Unset):
            encoding = UNSET
        elif isinstance(self.encoding, InputEncoding):
            encoding = self.encoding.to_dict()
        else:
            encoding = self.encoding

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "algorithm": algorithm,
                "coefficients": coefficients,
                "covariate_weights": covariate_weights,
                "feature_names": feature_names,
                "format_version": format_version,
                "intercept": intercept,
                "job_id": job_id,
                "model": model,
                "standardizer": standardizer,
                "state": state,
                "task": task,
            }
        )
        if encoding is not UNSET:
            field_dict["encoding"] = encoding

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.input_encoding import InputEncoding  # noqa: PLC0415
        from ..models.weights_json_coefficients_type_0 import WeightsJSONCoefficientsType0  # noqa: PLC0415
        from ..models.weights_json_covariate_weights_type_0 import WeightsJSONCovariateWeightsType0  # noqa: PLC0415
        from ..models.weights_json_model import WeightsJSONModel  # noqa: PLC0415
        from ..models.weights_json_standardizer import WeightsJSONStandardizer  # noqa: PLC0415
        from ..models.weights_json_state import WeightsJSONState  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_algorithm(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        algorithm = _parse_algorithm(d.pop("algorithm"))

        def _parse_coefficients(data: object) -> None | WeightsJSONCoefficientsType0:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                coefficients_type_0 = WeightsJSONCoefficientsType0.from_dict(data)

                return coefficients_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | WeightsJSONCoefficientsType0, data)

        coefficients = _parse_coefficients(d.pop("coefficients"))

        def _parse_covariate_weights(data: object) -> None | WeightsJSONCovariateWeightsType0:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                covariate_weights_type_0 = WeightsJSONCovariateWeightsType0.from_dict(data)

                return covariate_weights_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | WeightsJSONCovariateWeightsType0, data)

        covariate_weights = _parse_covariate_weights(d.pop("covariate_weights"))

        feature_names = cast(list[str], d.pop("feature_names"))

        format_version = d.pop("format_version")

        def _parse_intercept(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        intercept = _parse_intercept(d.pop("intercept"))

        def _parse_job_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        job_id = _parse_job_id(d.pop("job_id"))

        model = WeightsJSONModel.from_dict(d.pop("model"))

        standardizer = WeightsJSONStandardizer.from_dict(d.pop("standardizer"))

        state = WeightsJSONState.from_dict(d.pop("state"))

        task = WeightsJSONTask(d.pop("task"))

        def _parse_encoding(data: object) -> InputEncoding | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                encoding_type_0 = InputEncoding.from_dict(data)

                return encoding_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(InputEncoding | None | Unset, data)

        encoding = _parse_encoding(d.pop("encoding", UNSET))

        weights_json = cls(
            algorithm=algorithm,
            coefficients=coefficients,
            covariate_weights=covariate_weights,
            feature_names=feature_names,
            format_version=format_version,
            intercept=intercept,
            job_id=job_id,
            model=model,
            standardizer=standardizer,
            state=state,
            task=task,
            encoding=encoding,
        )

        weights_json.additional_properties = d
        return weights_json

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
