from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.validation_result_environments_item import ValidationResultEnvironmentsItem


T = TypeVar("T", bound="ValidationResult")


@_attrs_define
class ValidationResult:
    """
    Attributes:
        environments (list[ValidationResultEnvironmentsItem]):
        error (float):
        metric (str): mse (regression) or log_loss (classification), pooled over the held-out rows.
        n_rows (int):
        worst_error (float | None | Unset): The same metric on the worst held-out environment (what train_env_worst
            selects by); null in results stored before it existed.
    """

    environments: list[ValidationResultEnvironmentsItem]
    error: float
    metric: str
    n_rows: int
    worst_error: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        environments = []
        for environments_item_data in self.environments:
            environments_item = environments_item_data.to_dict()
            environments.append(environments_item)

        error = self.error

        metric = self.metric

        n_rows = self.n_rows

        worst_error: float | None | Unset
        if isinstance(self.worst_error, Unset):
            worst_error = UNSET
        else:
            worst_error = self.worst_error

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "environments": environments,
                "error": error,
                "metric": metric,
                "n_rows": n_rows,
            }
        )
        if worst_error is not UNSET:
            field_dict["worst_error"] = worst_error

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.validation_result_environments_item import ValidationResultEnvironmentsItem  # noqa: PLC0415

        d = dict(src_dict)
        environments = []
        _environments = d.pop("environments")
        for environments_item_data in _environments:
            environments_item = ValidationResultEnvironmentsItem.from_dict(environments_item_data)

            environments.append(environments_item)

        error = d.pop("error")

        metric = d.pop("metric")

        n_rows = d.pop("n_rows")

        def _parse_worst_error(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        worst_error = _parse_worst_error(d.pop("worst_error", UNSET))

        validation_result = cls(
            environments=environments,
            error=error,
            metric=metric,
            n_rows=n_rows,
            worst_error=worst_error,
        )

        validation_result.additional_properties = d
        return validation_result

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
