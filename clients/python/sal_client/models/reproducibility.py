from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.reproducibility_task import ReproducibilityTask

if TYPE_CHECKING:
    from ..models.reproducibility_model import ReproducibilityModel
    from ..models.reproducibility_params import ReproducibilityParams
    from ..models.reproducibility_validation_type_0 import ReproducibilityValidationType0
    from ..models.reproducibility_versions_type_0 import ReproducibilityVersionsType0


T = TypeVar("T", bound="Reproducibility")


@_attrs_define
class Reproducibility:
    """Everything needed to run the job again and get the same numbers.

    Attributes:
        algorithm (str):
        dataset_sha256 (None | str):
        hostname (None | str):
        model (ReproducibilityModel):
        params (ReproducibilityParams):
        seed (int):
        task (ReproducibilityTask):
        test_environments (list[str]):
        train_environments (list[str]):
        validation (None | ReproducibilityValidationType0):
        versions (None | ReproducibilityVersionsType0): torch, numpy, sal-service and python on the worker.
    """

    algorithm: str
    dataset_sha256: None | str
    hostname: None | str
    model: ReproducibilityModel
    params: ReproducibilityParams
    seed: int
    task: ReproducibilityTask
    test_environments: list[str]
    train_environments: list[str]
    validation: None | ReproducibilityValidationType0
    versions: None | ReproducibilityVersionsType0
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.reproducibility_validation_type_0 import ReproducibilityValidationType0  # noqa: PLC0415
        from ..models.reproducibility_versions_type_0 import ReproducibilityVersionsType0  # noqa: PLC0415

        algorithm = self.algorithm

        dataset_sha256: None | str
        dataset_sha256 = self.dataset_sha256

        hostname: None | str
        hostname = self.hostname

        model = self.model.to_dict()

        params = self.params.to_dict()

        seed = self.seed

        task = self.task.value

        test_environments = self.test_environments

        train_environments = self.train_environments

        validation: dict[str, Any] | None
        if isinstance(self.validation, ReproducibilityValidationType0):
            validation = self.validation.to_dict()
        else:
            validation = self.validation

        versions: dict[str, Any] | None
        if isinstance(self.versions, ReproducibilityVersionsType0):
            versions = self.versions.to_dict()
        else:
            versions = self.versions

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "algorithm": algorithm,
                "dataset_sha256": dataset_sha256,
                "hostname": hostname,
                "model": model,
                "params": params,
                "seed": seed,
                "task": task,
                "test_environments": test_environments,
                "train_environments": train_environments,
                "validation": validation,
                "versions": versions,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.reproducibility_model import ReproducibilityModel  # noqa: PLC0415
        from ..models.reproducibility_params import ReproducibilityParams  # noqa: PLC0415
        from ..models.reproducibility_validation_type_0 import ReproducibilityValidationType0  # noqa: PLC0415
        from ..models.reproducibility_versions_type_0 import ReproducibilityVersionsType0  # noqa: PLC0415

        d = dict(src_dict)
        algorithm = d.pop("algorithm")

        def _parse_dataset_sha256(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        dataset_sha256 = _parse_dataset_sha256(d.pop("dataset_sha256"))

        def _parse_hostname(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        hostname = _parse_hostname(d.pop("hostname"))

        model = ReproducibilityModel.from_dict(d.pop("model"))

        params = ReproducibilityParams.from_dict(d.pop("params"))

        seed = d.pop("seed")

        task = ReproducibilityTask(d.pop("task"))

        test_environments = cast(list[str], d.pop("test_environments"))

        train_environments = cast(list[str], d.pop("train_environments"))

        def _parse_validation(data: object) -> None | ReproducibilityValidationType0:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                validation_type_0 = ReproducibilityValidationType0.from_dict(data)

                return validation_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ReproducibilityValidationType0, data)

        validation = _parse_validation(d.pop("validation"))

        def _parse_versions(data: object) -> None | ReproducibilityVersionsType0:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                versions_type_0 = ReproducibilityVersionsType0.from_dict(data)

                return versions_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ReproducibilityVersionsType0, data)

        versions = _parse_versions(d.pop("versions"))

        reproducibility = cls(
            algorithm=algorithm,
            dataset_sha256=dataset_sha256,
            hostname=hostname,
            model=model,
            params=params,
            seed=seed,
            task=task,
            test_environments=test_environments,
            train_environments=train_environments,
            validation=validation,
            versions=versions,
        )

        reproducibility.additional_properties = d
        return reproducibility

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
