from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.sweep_public_selection import SweepPublicSelection
from ..models.sweep_public_status import SweepPublicStatus
from ..models.sweep_public_task import SweepPublicTask

if TYPE_CHECKING:
    from ..models.leaderboard import Leaderboard
    from ..models.sweep_progress import SweepProgress
    from ..models.sweep_public_algorithms import SweepPublicAlgorithms


T = TypeVar("T", bound="SweepPublic")


@_attrs_define
class SweepPublic:
    """
    Attributes:
        algorithms (SweepPublicAlgorithms): Each algorithm's candidates, defaults filled in.
        created_at (datetime.datetime):
        dataset_id (None | str):
        finished_at (datetime.datetime | None):
        id (str):
        leaderboard (Leaderboard | None):
        oracle (bool):
        progress (SweepProgress):
        seeds (list[int]):
        selection (SweepPublicSelection):
        status (SweepPublicStatus):
        task (SweepPublicTask):
        test_environments (list[str]):
        train_environments (list[str]):
    """

    algorithms: SweepPublicAlgorithms
    created_at: datetime.datetime
    dataset_id: None | str
    finished_at: datetime.datetime | None
    id: str
    leaderboard: Leaderboard | None
    oracle: bool
    progress: SweepProgress
    seeds: list[int]
    selection: SweepPublicSelection
    status: SweepPublicStatus
    task: SweepPublicTask
    test_environments: list[str]
    train_environments: list[str]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.leaderboard import Leaderboard  # noqa: PLC0415

        algorithms = self.algorithms.to_dict()

        created_at = self.created_at.isoformat()

        dataset_id: None | str
        dataset_id = self.dataset_id

        finished_at: None | str
        if isinstance(self.finished_at, datetime.datetime):
            finished_at = self.finished_at.isoformat()
        else:
            finished_at = self.finished_at

        id = self.id

        leaderboard: dict[str, Any] | None
        if isinstance(self.leaderboard, Leaderboard):
            leaderboard = self.leaderboard.to_dict()
        else:
            leaderboard = self.leaderboard

        oracle = self.oracle

        progress = self.progress.to_dict()

        seeds = self.seeds

        selection = self.selection.value

        status = self.status.value

        task = self.task.value

        test_environments = self.test_environments

        train_environments = self.train_environments

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "algorithms": algorithms,
                "created_at": created_at,
                "dataset_id": dataset_id,
                "finished_at": finished_at,
                "id": id,
                "leaderboard": leaderboard,
                "oracle": oracle,
                "progress": progress,
                "seeds": seeds,
                "selection": selection,
                "status": status,
                "task": task,
                "test_environments": test_environments,
                "train_environments": train_environments,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.leaderboard import Leaderboard  # noqa: PLC0415
        from ..models.sweep_progress import SweepProgress  # noqa: PLC0415
        from ..models.sweep_public_algorithms import SweepPublicAlgorithms  # noqa: PLC0415

        d = dict(src_dict)
        algorithms = SweepPublicAlgorithms.from_dict(d.pop("algorithms"))

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

        def _parse_leaderboard(data: object) -> Leaderboard | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                leaderboard_type_0 = Leaderboard.from_dict(data)

                return leaderboard_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Leaderboard | None, data)

        leaderboard = _parse_leaderboard(d.pop("leaderboard"))

        oracle = d.pop("oracle")

        progress = SweepProgress.from_dict(d.pop("progress"))

        seeds = cast(list[int], d.pop("seeds"))

        selection = SweepPublicSelection(d.pop("selection"))

        status = SweepPublicStatus(d.pop("status"))

        task = SweepPublicTask(d.pop("task"))

        test_environments = cast(list[str], d.pop("test_environments"))

        train_environments = cast(list[str], d.pop("train_environments"))

        sweep_public = cls(
            algorithms=algorithms,
            created_at=created_at,
            dataset_id=dataset_id,
            finished_at=finished_at,
            id=id,
            leaderboard=leaderboard,
            oracle=oracle,
            progress=progress,
            seeds=seeds,
            selection=selection,
            status=status,
            task=task,
            test_environments=test_environments,
            train_environments=train_environments,
        )

        sweep_public.additional_properties = d
        return sweep_public

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
