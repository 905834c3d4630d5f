from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.job_create_device import JobCreateDevice
from ..models.job_create_task_type_0 import JobCreateTaskType0
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.job_create_params import JobCreateParams
    from ..models.model_config import ModelConfig
    from ..models.validation_spec import ValidationSpec


T = TypeVar("T", bound="JobCreate")


@_attrs_define
class JobCreate:
    """
    Attributes:
        algorithm (str): A name from GET /algorithms.
        dataset_id (str):
        train_environments (list[str]):
        description (None | str | Unset): Free text (searched by ?q=).
        device (JobCreateDevice | Unset):  Default: JobCreateDevice.AUTO.
        model (ModelConfig | Unset):
        name (None | str | Unset): What you call this run (searched by ?q=).
        params (JobCreateParams | Unset): Per algorithm; see GET /algorithms.
        seed (int | Unset):  Default: 0.
        tags (list[str] | Unset): Words to find it by (?tag=); each at most once.
        task (JobCreateTaskType0 | None | Unset): Default: classification where every label of the dataset is 0 or 1 (as
            a true/false or two-valued text target is read), else regression.
        test_environments (list[str] | None | Unset): Default: every environment not trained on.
        validation (None | Unset | ValidationSpec): Validation data for model selection.
    """

    algorithm: str
    dataset_id: str
    train_environments: list[str]
    description: None | str | Unset = UNSET
    device: JobCreateDevice | Unset = JobCreateDevice.AUTO
    model: ModelConfig | Unset = UNSET
    name: None | str | Unset = UNSET
    params: JobCreateParams | Unset = UNSET
    seed: int | Unset = 0
    tags: list[str] | Unset = UNSET
    task: JobCreateTaskType0 | None | Unset = UNSET
    test_environments: list[str] | None | Unset = UNSET
    validation: None | Unset | ValidationSpec = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.validation_spec import ValidationSpec  # noqa: PLC0415

        algorithm = self.algorithm

        dataset_id = self.dataset_id

        train_environments = self.train_environments

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        device: str | Unset = UNSET
        if not isinstance(self.device, Unset):
            device = self.device.value

        model: dict[str, Any] | Unset = UNSET
        if not isinstance(self.model, Unset):
            model = self.model.to_dict()

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        params: dict[str, Any] | Unset = UNSET
        if not isinstance(self.params, Unset):
            params = self.params.to_dict()

        seed = self.seed

        tags: list[str] | Unset = UNSET
        if not isinstance(self.tags, Unset):
            tags = self.tags

        task: None | str | Unset
        if isinstance(self.task, Unset):
            task = UNSET
        elif isinstance(self.task, JobCreateTaskType0):
            task = self.task.value
        else:
            task = self.task

        test_environments: list[str] | None | Unset
        if isinstance(self.test_environments, Unset):
            test_environments = UNSET
        elif isinstance(self.test_environments, list):
            test_environments = self.test_environments

        else:
            test_environments = self.test_environments

        validation: dict[str, Any] | None | Unset
        if isinstance(self.validation, Unset):
            validation = UNSET
        elif isinstance(self.validation, ValidationSpec):
            validation = self.validation.to_dict()
        else:
            validation = self.validation

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "algorithm": algorithm,
                "dataset_id": dataset_id,
                "train_environments": train_environments,
            }
        )
        if description is not UNSET:
            field_dict["description"] = description
        if device is not UNSET:
            field_dict["device"] = device
        if model is not UNSET:
            field_dict["model"] = model
        if name is not UNSET:
            field_dict["name"] = name
        if params is not UNSET:
            field_dict["params"] = params
        if seed is not UNSET:
            field_dict["seed"] = seed
        if tags is not UNSET:
            field_dict["tags"] = tags
        if task is not UNSET:
            field_dict["task"] = task
        if test_environments is not UNSET:
            field_dict["test_environments"] = test_environments
        if validation is not UNSET:
            field_dict["validation"] = validation

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.job_create_params import JobCreateParams  # noqa: PLC0415
        from ..models.model_config import ModelConfig  # noqa: PLC0415
        from ..models.validation_spec import ValidationSpec  # noqa: PLC0415

        d = dict(src_dict)
        algorithm = d.pop("algorithm")

        dataset_id = d.pop("dataset_id")

        train_environments = cast(list[str], d.pop("train_environments"))

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))

        _device = d.pop("device", UNSET)
        device: JobCreateDevice | Unset
        if isinstance(_device, Unset):
            device = UNSET
        else:
            device = JobCreateDevice(_device)

        _model = d.pop("model", UNSET)
        model: ModelConfig | Unset
        if isinstance(_model, Unset):
            model = UNSET
        else:
            model = ModelConfig.from_dict(_model)

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))

        _params = d.pop("params", UNSET)
        params: JobCreateParams | Unset
        if isinstance(_params, Unset):
            params = UNSET
        else:
            params = JobCreateParams.from_dict(_params)

        seed = d.pop("seed", UNSET)

        tags = cast(list[str], d.pop("tags", UNSET))

        def _parse_task(data: object) -> JobCreateTaskType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                task_type_0 = JobCreateTaskType0(data)

                return task_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(JobCreateTaskType0 | None | Unset, data)

        task = _parse_task(d.pop("task", UNSET))

        def _parse_test_environments(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                test_environments_type_0 = cast(list[str], data)

                return test_environments_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        test_environments = _parse_test_environments(d.pop("test_environments", UNSET))

        def _parse_validation(data: object) -> None | Unset | ValidationSpec:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                validation_type_0 = ValidationSpec.from_dict(data)

                return validation_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | ValidationSpec, data)

        validation = _parse_validation(d.pop("validation", UNSET))

        job_create = cls(
            algorithm=algorithm,
            dataset_id=dataset_id,
            train_environments=train_environments,
            description=description,
            device=device,
            model=model,
            name=name,
            params=params,
            seed=seed,
            tags=tags,
            task=task,
            test_environments=test_environments,
            validation=validation,
        )

        return job_create
