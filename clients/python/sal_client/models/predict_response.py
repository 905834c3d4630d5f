from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="PredictResponse")


@_attrs_define
class PredictResponse:
    """
    Attributes:
        predictions (list[float]):
        labels (list[str] | None | Unset): The predicted label as the dataset's text target wrote it (classification on
            a text target: its target_labels[prediction]).
        probabilities (list[float] | None | Unset): P(y = 1) per row (classification).
    """

    predictions: list[float]
    labels: list[str] | None | Unset = UNSET
    probabilities: list[float] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        predictions = self.predictions

        labels: list[str] | None | Unset
        if isinstance(self.labels, Unset):
            labels = UNSET
        elif isinstance(self.labels, list):
            labels = self.labels

        else:
            labels = self.labels

        probabilities: list[float] | None | Unset
        if isinstance(self.probabilities, Unset):
            probabilities = UNSET
        elif isinstance(self.probabilities, list):
            probabilities = self.probabilities

        else:
            probabilities = self.probabilities

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "predictions": predictions,
            }
        )
        if labels is not UNSET:
            field_dict["labels"] = labels
        if probabilities is not UNSET:
            field_dict["probabilities"] = probabilities

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        predictions = cast(list[float], d.pop("predictions"))

        def _parse_labels(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                labels_type_0 = cast(list[str], data)

                return labels_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        labels = _parse_labels(d.pop("labels", UNSET))

        def _parse_probabilities(data: object) -> list[float] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                probabilities_type_0 = cast(list[float], data)

                return probabilities_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[float] | None | Unset, data)

        probabilities = _parse_probabilities(d.pop("probabilities", UNSET))

        predict_response = cls(
            predictions=predictions,
            labels=labels,
            probabilities=probabilities,
        )

        predict_response.additional_properties = d
        return predict_response

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
