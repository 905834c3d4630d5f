from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.sweep_summary_selection import SweepSummarySelection
from ..models.sweep_summary_status import SweepSummaryStatus
from ..models.sweep_summary_task import SweepSummaryTask

if TYPE_CHECKING:
    from ..models.sweep_progress import SweepProgress


T = TypeVar("T", bound="SweepSummary")


@_attrs_define
class SweepSummary:
    """A sweep as GET /sweeps lists it, under 1 KB whatever its search: ids, status and progress.
    Its candidates, environments, seeds and leaderboard are on GET /sweeps/{id}.

        Attributes:
            algorithms (list[str]): The algorithms searched.
            created_at (datetime.datetime):
            dataset_id (None | str):
            finished_at (datetime.datetime | None):
            id (str):
            n_seeds (int):
            oracle (bool):
            progress (SweepProgress):
            selection (SweepSummarySelection):
            status (SweepSummaryStatus): As last stored: a sweep whose trials have all finished says so (and gets its
                leaderboard) once it is read by id.
            task (SweepSummaryTask):
    """

    algorithms: list[str]
    created_at: datetime.datetime
    dataset_id: None | str
    finished_at: datetime.datetime | None
    id: str
    n_seeds: int
    oracle: bool
    progress: SweepProgress
    selection: SweepSummarySelection
    status: SweepSummaryStatus
    task: SweepSummaryTask
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        algorithms = self.algorithms

        created_at = self.created_at.isoformat()

        dataset_id: None | str
        dataset_id = self.dataset_id

        finished_at: None | str
        if isinstance(self.finished_at, datetime.datetime):
            finished_at = self.finished_at.isoformat()
        else:
            finished_at = self.finished_at

        id = self.id

        n_seeds = self.n_seeds

        oracle = self.oracle

        progress = self.progress.to_dict()

        selection = self.selection.value

        status = self.status.value

        task = self.task.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "algorithms": algorithms,
                "created_at": created_at,
                "dataset_id": dataset_id,
                "finished_at": finished_at,
                "id": id,
                "n_seeds": n_seeds,
                "oracle": oracle,
                "progress": progress,
                "selection": selection,
                "status": status,
                "task": task,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.sweep_progress import SweepProgress  # noqa: PLC0415

        d = dict(src_dict)
        algorithms = cast(list[str], d.pop("algorithms"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_dataset_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        dataset_id = _parse_dataset_id(d.pop("dataset_id"))

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

        n_seeds = d.pop("n_seeds")

        oracle = d.pop("oracle")

        progress = SweepProgress.from_dict(d.pop("progress"))

        selection = SweepSummarySelection(d.pop("selection"))

        status = SweepSummaryStatus(d.pop("status"))

        task = SweepSummaryTask(d.pop("task"))

        sweep_summary = cls(
            algorithms=algorithms,
            created_at=created_at,
            dataset_id=dataset_id,
            finished_at=finished_at,
            id=id,
            n_seeds=n_seeds,
            oracle=oracle,
            progress=progress,
            selection=selection,
            status=status,
            task=task,
        )

        sweep_summary.additional_properties = d
        return sweep_summary

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
