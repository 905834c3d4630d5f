from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.job_public_status import JobPublicStatus
from ..models.job_public_task import JobPublicTask
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.attempt import Attempt
    from ..models.device_record import DeviceRecord
    from ..models.job_error import JobError
    from ..models.job_public_model import JobPublicModel
    from ..models.job_public_params import JobPublicParams
    from ..models.job_public_validation_type_0 import JobPublicValidationType0
    from ..models.job_result import JobResult
    from ..models.progress import Progress
    from ..models.reproducibility import Reproducibility


T = TypeVar("T", bound="JobPublic")


@_attrs_define
class JobPublic:
    """
    Attributes:
        algorithm (str):
        created_at (datetime.datetime):
        dataset_id (None | str):
        device (DeviceRecord): Where a job runs: asked for, chosen when it was submitted (app.jobs.placement), and the
            device its worker resolved that to when it took the job.
        error (JobError | None):
        finished_at (datetime.datetime | None):
        id (str):
        model (JobPublicModel):
        params (JobPublicParams):
        progress (Progress):
        queue (str): The queue the job waits on; only workers listening there run it (a CUDA job waits for a GPU
            worker).
        result (JobResult | None): When succeeded; also when cancelled while running (the partial fit, history up to the
            stop).
        seed (int):
        started_at (datetime.datetime | None):
        status (JobPublicStatus):
        task (JobPublicTask):
        test_environments (list[str]):
        train_environments (list[str]):
        attempts (list[Attempt] | Unset): Each time a worker took the job: a retry follows a lost worker.
        cancel_requested (bool | Unset): A cancel was asked for; a running job stops at its next checkpoint. Default:
            False.
        description (None | str | Unset):
        name (None | str | Unset):
        reproducibility (None | Reproducibility | Unset):
        rerun_of (None | str | Unset):
        sweep_id (None | str | Unset):
        tags (list[str] | Unset):
        validation (JobPublicValidationType0 | None | Unset):
    """

    algorithm: str
    created_at: datetime.datetime
    dataset_id: None | str
    device: DeviceRecord
    error: JobError | None
    finished_at: datetime.datetime | None
    id: str
    model: JobPublicModel
    params: JobPublicParams
    progress: Progress
    queue: str
    result: JobResult | None
    seed: int
    started_at: datetime.datetime | None
    status: JobPublicStatus
    task: JobPublicTask
    test_environments: list[str]
    train_environments: list[str]
    attempts: list[Attempt] | Unset = UNSET
    cancel_requested: bool | Unset = False
    description: None | str | Unset = UNSET
    name: None | str | Unset = UNSET
    reproducibility: None | Reproducibility | Unset = UNSET
    rerun_of: None | str | Unset = UNSET
    sweep_id: None | str | Unset = UNSET
    tags: list[str] | Unset = UNSET
    validation: JobPublicValidationType0 | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.job_error import JobError  # noqa: PLC0415
        from ..models.job_public_validation_type_0 import JobPublicValidationType0  # noqa: PLC0415
        from ..models.job_result import JobResult  # noqa: PLC0415
        from ..models.reproducibility import Reproducibility  # noqa: PLC0415

        algorithm = self.algorithm

        created_at = self.created_at.isoformat()

        dataset_id: None | str
        dataset_id = self.dataset_id

        device = self.device.to_dict()

        error: dict[str, Any] | None
        if isinstance(self.error, JobError):
            error = self.error.to_dict()
        else:
            error = self.error

        finished_at: None | str
        if isinstance(self.finished_at, datetime.datetime):
            finished_at = self.finished_at.isoformat()
        else:
            finished_at = self.finished_at

        id = self.id

        model = self.model.to_dict()

        params = self.params.to_dict()

        progress = self.progress.to_dict()

        queue = self.queue

        result: dict[str, Any] | None
        if isinstance(self.result, JobResult):
            result = self.result.to_dict()
        else:
            result = self.result

        seed = self.seed

        started_at: None | str
        if isinstance(self.started_at, datetime.datetime):
            started_at = self.started_at.isoformat()
        else:
            started_at = self.started_at

        status = self.status.value

        task = self.task.value

        test_environments = self.test_environments

        train_environments = self.train_environments

        attempts: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.attempts, Unset):
            attempts = []
            for attempts_item_data in self.attempts:
                attempts_item = attempts_item_data.to_dict()
                attempts.append(attempts_item)

        cancel_requested = self.cancel_requested

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        reproducibility: dict[str, Any] | None | Unset
        if isinstance(self.reproducibility, Unset):
            reproducibility = UNSET
        elif isinstance(self.reproducibility, Reproducibility):
            reproducibility = self.reproducibility.to_dict()
        else:
            reproducibility = self.reproducibility

        rerun_of: None | str | Unset
        if isinstance(self.rerun_of, Unset):
            rerun_of = UNSET
        else:
            rerun_of = self.rerun_of

        sweep_id: None | str | Unset
        if isinstance(self.sweep_id, Unset):
            sweep_id = UNSET
        else:
            sweep_id = self.sweep_id

        tags: list[str] | Unset = UNSET
        if not isinstance(self.tags, Unset):
            tags = self.tags

        validation: dict[str, Any] | None | Unset
        if isinstance(self.validation, Unset):
            validation = UNSET
        elif isinstance(self.validation, JobPublicValidationType0):
            validation = self.validation.to_dict()
        else:
            validation = self.validation

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "algorithm": algorithm,
                "created_at": created_at,
                "dataset_id": dataset_id,
                "device": device,
                "error": error,
                "finished_at": finished_at,
                "id": id,
                "model": model,
                "params": params,
                "progress": progress,
                "queue": queue,
                "result": result,
                "seed": seed,
                "started_at": started_at,
                "status": status,
                "task": task,
                "test_environments": test_environments,
                "train_environments": train_environments,
            }
        )
        if attempts is not UNSET:
            field_dict["attempts"] = attempts
        if cancel_requested is not UNSET:
            field_dict["cancel_requested"] = cancel_requested
        if description is not UNSET:
            field_dict["description"] = description
        if name is not UNSET:
            field_dict["name"] = name
        if reproducibility is not UNSET:
            field_dict["reproducibility"] = reproducibility
        if rerun_of is not UNSET:
            field_dict["rerun_of"] = rerun_of
        if sweep_id is not UNSET:
            field_dict["sweep_id"] = sweep_id
        if tags is not UNSET:
            field_dict["tags"] = tags
        if validation is not UNSET:
            field_dict["validation"] = validation

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.attempt import Attempt  # noqa: PLC0415
        from ..models.device_record import DeviceRecord  # noqa: PLC0415
        from ..models.job_error import JobError  # noqa: PLC0415
        from ..models.job_public_model import JobPublicModel  # noqa: PLC0415
        from ..models.job_public_params import JobPublicParams  # noqa: PLC0415
        from ..models.job_public_validation_type_0 import JobPublicValidationType0  # noqa: PLC0415
        from ..models.job_result import JobResult  # noqa: PLC0415
        from ..models.progress import Progress  # noqa: PLC0415
        from ..models.reproducibility import Reproducibility  # noqa: PLC0415

        d = dict(src_dict)
        algorithm = d.pop("algorithm")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_dataset_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        dataset_id = _parse_dataset_id(d.pop("dataset_id"))

        device = DeviceRecord.from_dict(d.pop("device"))

        def _parse_error(data: object) -> JobError | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                error_type_0 = JobError.from_dict(data)

                return error_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(JobError | None, data)

        error = _parse_error(d.pop("error"))

        def _parse_finished_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                finished_at_type_0 = datetime.datetime.fromisoformat(data)

                return finished_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        finished_at = _parse_finished_at(d.pop("finished_at"))

        id = d.pop("id")

        model = JobPublicModel.from_dict(d.pop("model"))

        params = JobPublicParams.from_dict(d.pop("params"))

        progress = Progress.from_dict(d.pop("progress"))

        queue = d.pop("queue")

        def _parse_result(data: object) -> JobResult | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                result_type_0 = JobResult.from_dict(data)

                return result_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(JobResult | None, data)

        result = _parse_result(d.pop("result"))

        seed = d.pop("seed")

        def _parse_started_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                started_at_type_0 = datetime.datetime.fromisoformat(data)

                return started_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        started_at = _parse_started_at(d.pop("started_at"))

        status = JobPublicStatus(d.pop("status"))

        task = JobPublicTask(d.pop("task"))

        test_environments = cast(list[str], d.pop("test_environments"))

        train_environments = cast(list[str], d.pop("train_environments"))

        _attempts = d.pop("attempts", UNSET)
        attempts: list[Attempt] | Unset = UNSET
        if _attempts is not UNSET:
            attempts = []
            for attempts_item_data in _attempts:
                attempts_item = Attempt.from_dict(attempts_item_data)

                attempts.append(attempts_item)

        cancel_requested = d.pop("cancel_requested", UNSET)

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))

        def _parse_reproducibility(data: object) -> None | Reproducibility | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                reproducibility_type_0 = Reproducibility.from_dict(data)

                return reproducibility_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Reproducibility | Unset, data)

        reproducibility = _parse_reproducibility(d.pop("reproducibility", UNSET))

        def _parse_rerun_of(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        rerun_of = _parse_rerun_of(d.pop("rerun_of", UNSET))

        def _parse_sweep_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        sweep_id = _parse_sweep_id(d.pop("sweep_id", UNSET))

        tags = cast(list[str], d.pop("tags", UNSET))

        def _parse_validation(data: object) -> JobPublicValidationType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                validation_type_0 = JobPublicValidationType0.from_dict(data)

                return validation_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(JobPublicValidationType0 | None | Unset, data)

        validation = _parse_validation(d.pop("validation", UNSET))

        job_public = cls(
            algorithm=algorithm,
            created_at=created_at,
            dataset_id=dataset_id,
            device=device,
            error=error,
            finished_at=finished_at,
            id=id,
            model=model,
            params=params,
            progress=progress,
            queue=queue,
            result=result,
            seed=seed,
            started_at=started_at,
            status=status,
            task=task,
            test_environments=test_environments,
            train_environments=train_environments,
            attempts=attempts,
            cancel_requested=cancel_requested,
            description=description,
            name=name,
            reproducibility=reproducibility,
            rerun_of=rerun_of,
            sweep_id=sweep_id,
            tags=tags,
            validation=validation,
        )

        job_public.additional_properties = d
        return job_public

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
