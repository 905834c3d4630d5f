from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.sweep_create_device import SweepCreateDevice
from ..models.sweep_create_selection import SweepCreateSelection
from ..models.sweep_create_task_type_0 import SweepCreateTaskType0
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.model_config import ModelConfig
    from ..models.sweep_create_algorithms import SweepCreateAlgorithms


T = TypeVar("T", bound="SweepCreate")


@_attrs_define
class SweepCreate:
    """
    Attributes:
        algorithms (SweepCreateAlgorithms): Algorithm name -> its search.
        dataset_id (str):
        train_environments (list[str]):
        device (SweepCreateDevice | Unset):  Default: SweepCreateDevice.AUTO.
        model (ModelConfig | Unset):
        search_seed (int | Unset): Seeds random search. Default: 0.
        seeds (list[int] | Unset):
        selection (SweepCreateSelection | Unset):  Default: SweepCreateSelection.TRAIN_ENV_VALIDATION.
        task (None | SweepCreateTaskType0 | Unset): Default: classification where every label of the dataset is 0 or 1
            (as a true/false or two-valued text target is read), else regression.
        test_environments (list[str] | None | Unset): Default: every environment not trained on.
        validation_fraction (float | Unset): train_env_validation / train_env_worst: share of each training environment
            held out (train_env_worst selects by the worst held-out environment's error instead of the pooled one). Default:
            0.2.
    """

    algorithms: SweepCreateAlgorithms
    dataset_id: str
    train_environments: list[str]
    device: SweepCreateDevice | Unset = SweepCreateDevice.AUTO
    model: ModelConfig | Unset = UNSET
    search_seed: int | Unset = 0
    seeds: list[int] | Unset = UNSET
    selection: SweepCreateSelection | Unset = SweepCreateSelection.TRAIN_ENV_VALIDATION
    task: None | SweepCreateTaskType0 | Unset = UNSET
    test_environments: list[str] | None | Unset = UNSET
    validation_fraction: float | Unset = 0.2

    def to_dict(self) -> dict[str, Any]:
        algorithms = self.algorithms.to_dict()

        dataset_id = self.dataset_id

        train_environments = self.train_environments

        device: str | Unset = UNSET
        if not isinstance(self.device, Unset):
            device = self.device.value

        model: dict[str, Any] | Unset = UNSET
        if not isinstance(self.model, Unset):
            model = self.model.to_dict()

        search_seed = self.search_seed

        seeds: list[int] | Unset = UNSET
        if not isinstance(self.seeds, Unset):
            seeds = self.seeds

        selection: str | Unset = UNSET
        if not isinstance(self.selection, Unset):
            selection = self.selection.value

        task: None | str | Unset
        if isinstance(self.task, Unset):
            task = UNSET
        elif isinstance(self.task, SweepCreateTaskType0):
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

        validation_fraction = self.validation_fraction

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "algorithms": algorithms,
                "dataset_id": dataset_id,
                "train_environments": train_environments,
            }
        )
        if device is not UNSET:
            field_dict["device"] = device
        if model is not UNSET:
            field_dict["model"] = model
        if search_seed is not UNSET:
            field_dict["search_seed"] = search_seed
        if seeds is not UNSET:
            field_dict["seeds"] = seeds
        if selection is not UNSET:
            field_dict["selection"] = selection
        if task is not UNSET:
            field_dict["task"] = task
        if test_environments is not UNSET:
            field_dict["test_environments"] = test_environments
        if validation_fraction is not UNSET:
            field_dict["validation_fraction"] = validation_fraction

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.model_config import ModelConfig  # noqa: PLC0415
        from ..models.sweep_create_algorithms import SweepCreateAlgorithms  # noqa: PLC0415

        d = dict(src_dict)
        algorithms = SweepCreateAlgorithms.from_dict(d.pop("algorithms"))

        dataset_id = d.pop("dataset_id")

        train_environments = cast(list[str], d.pop("train_environments"))

        _device = d.pop("device", UNSET)
        device: SweepCreateDevice | Unset
        if isinstance(_device, Unset):
            device = UNSET
        else:
            device = SweepCreateDevice(_device)

        _model = d.pop("model", UNSET)
        model: ModelConfig | Unset
        if isinstance(_model, Unset):
            model = UNSET
        else:
            model = ModelConfig.from_dict(_model)

        search_seed = d.pop("search_seed", UNSET)

        seeds = cast(list[int], d.pop("seeds", UNSET))

        _selection = d.pop("selection", UNSET)
        selection: SweepCreateSelection | Unset
        if isinstance(_selection, Unset):
            selection = UNSET
        else:
            selection = SweepCreateSelection(_selection)

        def _parse_task(data: object) -> None | SweepCreateTaskType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                task_type_0 = SweepCreateTaskType0(data)

                return task_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SweepCreateTaskType0 | Unset, data)

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

        validation_fraction = d.pop("validation_fraction", UNSET)

        sweep_create = cls(
            algorithms=algorithms,
            dataset_id=dataset_id,
            train_environments=train_environments,
            device=device,
            model=model,
            search_seed=search_seed,
            seeds=seeds,
            selection=selection,
            task=task,
            test_environments=test_environments,
            validation_fraction=validation_fraction,
        )

        return sweep_create
