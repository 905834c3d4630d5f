from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.round_ import Round


T = TypeVar("T", bound="HistoryPage")


@_attrs_define
class HistoryPage:
    """Rounds of a job's stored history, ``from`` a position in it (0 is the first round kept).

    Attributes:
        items (list[Round]):
        next_from (int | None): ``from`` of the next page; null after the last round.
        total (int): Rounds stored (a long history is thinned: see its round numbers).
    """

    items: list[Round]
    next_from: int | None
    total: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        items = []
        for items_item_data in self.items:
            items_item = items_item_data.to_dict()
            items.append(items_item)

        next_from: int | None
        next_from = self.next_from

        total = self.total

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "items": items,
                "next_from": next_from,
                "total": total,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.round_ import Round  # noqa: PLC0415

        d = dict(src_dict)
        items = []
        _items = d.pop("items")
        for items_item_data in _items:
            items_item = Round.from_dict(items_item_data)

            items.append(items_item)

        def _parse_next_from(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        next_from = _parse_next_from(d.pop("next_from"))

        total = d.pop("total")

        history_page = cls(
            items=items,
            next_from=next_from,
            total=total,
        )

        history_page.additional_properties = d
        return history_page

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
