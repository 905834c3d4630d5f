from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.predict_request_rows_type_0_item import PredictRequestRowsType0Item


T = TypeVar("T", bound="PredictRequest")


@_attrs_define
class PredictRequest:
    """
    Attributes:
        x (list[list[float]] | None | Unset): Rows of covariates in feature_names order.
        rows (list[PredictRequestRowsType0Item] | None | Unset): Rows as {feature: value}; a text column one-hot encoded
            (the dataset's text_features) may be given as {column: its value} instead of its indicator features, and a
            column with missing cells in the dataset (its missing_features) as {column: null}.
    """

    x: list[list[float]] | None | Unset = UNSET
    rows: list[PredictRequestRowsType0Item] | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        x: list[list[float]] | None | Unset
        if isinstance(self.x, Unset):
            x = UNSET
        elif isinstance(self.x, list):
            x = []
            for x_type_0_item_data in self.x:
                x_type_0_item = x_type_0_item_data

                x.append(x_type_0_item)

        else:
            x = self.x

        rows: list[dict[str, Any]] | None | Unset
        if isinstance(self.rows, Unset):
            rows = UNSET
        elif isinstance(self.rows, list):
            rows = []
            for rows_type_0_item_data in self.rows:
                rows_type_0_item = rows_type_0_item_data.to_dict()
                rows.append(rows_type_0_item)

        else:
            rows = self.rows

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if x is not UNSET:
            field_dict["X"] = x
        if rows is not UNSET:
            field_dict["rows"] = rows

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.predict_request_rows_type_0_item import PredictRequestRowsType0Item  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_x(data: object) -> list[list[float]] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                x_type_0 = []
                _x_type_0 = data
                for x_type_0_item_data in _x_type_0:
                    x_type_0_item = cast(list[float], x_type_0_item_data)

                    x_type_0.append(x_type_0_item)

                return x_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[list[float]] | None | Unset, data)

        x = _parse_x(d.pop("X", UNSET))

        def _parse_rows(data: object) -> list[PredictRequestRowsType0Item] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                rows_type_0 = []
                _rows_type_0 = data
                for rows_type_0_item_data in _rows_type_0:
                    rows_type_0_item = PredictRequestRowsType0Item.from_dict(rows_type_0_item_data)

                    rows_type_0.append(rows_type_0_item)

                return rows_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[PredictRequestRowsType0Item] | None | Unset, data)

        rows = _parse_rows(d.pop("rows", UNSET))

        predict_request = cls(
            x=x,
            rows=rows,
        )

        return predict_request
