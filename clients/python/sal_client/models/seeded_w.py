from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.selection import Selection


T = TypeVar("T", bound="SeededW")


@_attrs_define
class SeededW:
    """An MLP's w, learned by SAL's exact linear path (``selection``) and then held fixed. Every
    field is optional, so that any other stored ``covariate_weights`` block reads (as given).

        Attributes:
            selection (None | Selection | Unset):
            source (None | str | Unset):
            w (list[float | None] | None | Unset):
    """

    selection: None | Selection | Unset = UNSET
    source: None | str | Unset = UNSET
    w: list[float | None] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.selection import Selection  # noqa: PLC0415

        selection: dict[str, Any] | None | Unset
        if isinstance(self.selection, Unset):
            selection = UNSET
        elif isinstance(self.selection, Selection):
            selection = self.selection.to_dict()
        else:
            selection = self.selection

        source: None | str | Unset
        if isinstance(self.source, Unset):
            source = UNSET
        else:
            source = self.source

        w: list[float | None] | None | Unset
        if isinstance(self.w, Unset):
            w = UNSET
        elif isinstance(self.w, list):
            w = []
            for w_type_0_item_data in self.w:
                w_type_0_item: float | None
                w_type_0_item = w_type_0_item_data
                w.append(w_type_0_item)

        else:
            w = self.w

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if selection is not UNSET:
            field_dict["selection"] = selection
        if source is not UNSET:
            field_dict["source"] = source
        if w is not UNSET:
            field_dict["w"] = w

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.selection import Selection  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_selection(data: object) -> None | Selection | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                selection_type_0 = Selection.from_dict(data)

                return selection_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Selection | Unset, data)

        selection = _parse_selection(d.pop("selection", UNSET))

        def _parse_source(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        source = _parse_source(d.pop("source", UNSET))

        def _parse_w(data: object) -> list[float | None] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                w_type_0 = []
                _w_type_0 = data
                for w_type_0_item_data in _w_type_0:

                    def _parse_w_type_0_item(data: object) -> float | None:
                        if data is None:
                            return data
                        return cast(float | None, data)

                    w_type_0_item = _parse_w_type_0_item(w_type_0_item_data)

                    w_type_0.append(w_type_0_item)

                return w_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[float | None] | None | Unset, data)

        w = _parse_w(d.pop("w", UNSET))

        seeded_w = cls(
            selection=selection,
            source=source,
            w=w,
        )

        seeded_w.additional_properties = d
        return seeded_w

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
