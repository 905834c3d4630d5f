from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.job_summary_device import JobSummaryDevice
from ..models.job_summary_status import JobSummaryStatus
from ..models.job_summary_task import JobSummaryTask
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.job_error import JobError
    from ..models.progress import Progress
    from ..models.summary import Summary


T = TypeVar("T", bound="JobSummary")


@_attrs_define
class JobSummary:
    """A job as GET /jobs lists it: ids, status, progress, timestamps and the test summary, under
    1 KB whatever the fit. The full result is on GET /jobs/{id}; its rounds on GET /jobs/{id}/history.

        Attributes:
            algorithm (str):
            cancel_requested (bool):
            created_at (datetime.datetime):
            dataset_id (None | str):
            device (JobSummaryDevice):
            duration_s (float | None): The fit's duration, once there is a result.
            error (JobError | None): Its message cut to 200 characters; the whole on GET /jobs/{id}.
            finished_at (datetime.datetime | None):
            id (str):
            n_attempts (int): How many times a worker took the job.
            progress (Progress):
            rerun_of (None | str):
            seed (int):
            started_at (datetime.datetime | None):
            status (JobSummaryStatus):
            summary (None | Summary): The result's test summary, once there is a result.
            sweep_id (None | str):
            task (JobSummaryTask):
            name (None | str | Unset):
            tags (list[str] | Unset):
    """

    algorithm: str
    cancel_requested: bool
    created_at: datetime.datetime
    dataset_id: None | str
    device: JobSummaryDevice
    duration_s: float | None
    error: JobError | None
    finished_at: datetime.datetime | None
    id: str
    n_attempts: int
    progress: Progress
    rerun_of: None | str
    seed: int
    started_at: datetime.datetime | None
    status: JobSummaryStatus
    summary: None | Summary
    sweep_id: None | str
    task: JobSummaryTask
    name: None | str | Unset = UNSET
    tags: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.job_error import JobError  # noqa: PLC0415
        from ..models.summary import Summary  # noqa: PLC0415

        algorithm = self.algorithm

        cancel_requested = self.cancel_requested

        created_at = self.created_at.isoformat()

        dataset_id: None | str
        dataset_id = self.dataset_id

        device = self.device.value

        duration_s: float | None
        duration_s = self.duration_s

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

        n_attempts = self.n_attempts

        progress = self.progress.to_dict()

        rerun_of: None | str
        rerun_of = self.rerun_of

        seed = self.seed

        started_at: None | str
        if isinstance(self.started_at, datetime.datetime):
            started_at = self.started_at.isoformat()
        else:
            started_at = self.started_at

        status = self.status.value

        summary: dict[str, Any] | None
        if isinstance(self.summary, Summary):
            summary = self.summary.to_dict()
        else:
            summary = self.summary

        sweep_id: None | str
        sweep_id = self.sweep_id

        task = self.task.value

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        tags: list[str] | Unset = UNSET
        if not isinstance(self.tags, Unset):
            tags = self.tags

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "algorithm": algorithm,
                "cancel_requested": cancel_requested,
                "created_at": created_at,
                "dataset_id": dataset_id,
                "device": device,
                "duration_s": duration_s,
                "error": error,
                "finished_at": finished_at,
                "id": id,
                "n_attempts": n_attempts,
                "progress": progress,
                "rerun_of": rerun_of,
                "seed": seed,
                "started_at": started_at,
                "status": status,
                "summary": summary,
                "sweep_id": sweep_id,
                "task": task,
            }
        )
        if name is not UNSET:
            field_dict["name"] = name
        if tags is not UNSET:
            field_dict["tags"] = tags

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.job_error import JobError  # noqa: PLC0415
        from ..models.progress import Progress  # noqa: PLC0415
        from ..models.summary import Summary  # noqa: PLC0415

        d = dict(src_dict)
        algorithm = d.pop("algorithm")

        cancel_requested = d.pop("cancel_requested")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_dataset_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        dataset_id = _parse_dataset_id(d.pop("dataset_id"))

        device = JobSummaryDevice(d.pop("device"))

        def _parse_duration_s(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        duration_s = _parse_duration_s(d.pop("duration_s"))

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

        n_attempts = d.pop("n_attempts")

        progress = Progress.from_dict(d.pop("progress"))

        def _parse_rerun_of(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        rerun_of = _parse_rerun_of(d.pop("rerun_of"))

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

        status = JobSummaryStatus(d.pop("status"))

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

        def _parse_sweep_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        sweep_id = _parse_sweep_id(d.pop("sweep_id"))

        task = JobSummaryTask(d.pop("task"))

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))

        tags = cast(list[str], d.pop("tags", UNSET))

        job_summary = cls(
            algorithm=algorithm,
            cancel_requested=cancel_requested,
            created_at=created_at,
            dataset_id=dataset_id,
            device=device,
            duration_s=duration_s,
            error=error,
            finished_at=finished_at,
            id=id,
            n_attempts=n_attempts,
            progress=progress,
            rerun_of=rerun_of,
            seed=seed,
            started_at=started_at,
            status=status,
            summary=summary,
            sweep_id=sweep_id,
            task=task,
            name=name,
            tags=tags,
        )

        job_summary.additional_properties = d
        return job_summary

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
