from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.leaderboard_selection import LeaderboardSelection

if TYPE_CHECKING:
    from ..models.leaderboard_row import LeaderboardRow
    from ..models.leaderboard_unselected import LeaderboardUnselected


T = TypeVar("T", bound="Leaderboard")


@_attrs_define
class Leaderboard:
    """
    Attributes:
        algorithms (list[LeaderboardRow]):
        note (None | str):
        oracle (bool): True when selected on test error: an upper bound, not a fair comparison.
        selection (LeaderboardSelection):
        selection_metric (str):
        unselected (LeaderboardUnselected): Algorithms without a selectable candidate, and why.
    """

    algorithms: list[LeaderboardRow]
    note: None | str
    oracle: bool
    selection: LeaderboardSelection
    selection_metric: str
    unselected: LeaderboardUnselected
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        algorithms = []
        for algorithms_item_data in self.algorithms:
            algorithms_item = algorithms_item_data.to_dict()
            algorithms.append(algorithms_item)

        note: None | str
        note = self.note

        oracle = self.oracle

        selection = self.selection.value

        selection_metric = self.selection_metric

        unselected = self.unselected.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "algorithms": algorithms,
                "note": note,
                "oracle": oracle,
                "selection": selection,
                "selection_metric": selection_metric,
                "unselected": unselected,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.leaderboard_row import LeaderboardRow  # noqa: PLC0415
        from ..models.leaderboard_unselected import LeaderboardUnselected  # noqa: PLC0415

        d = dict(src_dict)
        algorithms = []
        _algorithms = d.pop("algorithms")
        for algorithms_item_data in _algorithms:
            algorithms_item = LeaderboardRow.from_dict(algorithms_item_data)

            algorithms.append(algorithms_item)

        def _parse_note(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        note = _parse_note(d.pop("note"))

        oracle = d.pop("oracle")

        selection = LeaderboardSelection(d.pop("selection"))

        selection_metric = d.pop("selection_metric")

        unselected = LeaderboardUnselected.from_dict(d.pop("unselected"))

        leaderboard = cls(
            algorithms=algorithms,
            note=note,
            oracle=oracle,
            selection=selection,
            selection_metric=selection_metric,
            unselected=unselected,
        )

        leaderboard.additional_properties = d
        return leaderboard

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
