from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.input_encoding_missing_features import InputEncodingMissingFeatures
    from ..models.input_encoding_text_features import InputEncodingTextFeatures


T = TypeVar("T", bound="InputEncoding")


@_attrs_define
class InputEncoding:
    """How the uploaded table's columns became the model's features (app.datasets.encoding), to
    prepare rows for an exported model as ``POST /jobs/{id}/predict`` prepares named rows.

        Attributes:
            missing_features (InputEncodingMissingFeatures): Each column with missing cells: the feature '<column> is
                missing' is 1.0 on a row whose cell is missing, and a numeric column's missing cell holds the value given (null
                for text).
            target_labels (list[str] | None): A label target's two values (text, or two whole numbers other than 0 and 1):
                the first is prediction 0, the second 1.
            text_features (InputEncodingTextFeatures): Each text column one-hot encoded: its values, sorted; the first is
                the reference (no feature), each other value v the feature '<column>=v' (1.0 on its rows).
    """

    missing_features: InputEncodingMissingFeatures
    target_labels: list[str] | None
    text_features: InputEncodingTextFeatures
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        missing_features = self.missing_features.to_dict()

        target_labels: list[str] | None
        if isinstance(self.target_labels, list):
            target_labels = self.target_labels

        else:
            target_labels = self.target_labels

        text_features = self.text_features.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "missing_features": missing_features,
                "target_labels": target_labels,
                "text_features": text_features,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.input_encoding_missing_features import InputEncodingMissingFeatures  # noqa: PLC0415
        from ..models.input_encoding_text_features import InputEncodingTextFeatures  # noqa: PLC0415

        d = dict(src_dict)
        missing_features = InputEncodingMissingFeatures.from_dict(d.pop("missing_features"))

        def _parse_target_labels(data: object) -> list[str] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                target_labels_type_0 = cast(list[str], data)

                return target_labels_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None, data)

        target_labels = _parse_target_labels(d.pop("target_labels"))

        text_features = InputEncodingTextFeatures.from_dict(d.pop("text_features"))

        input_encoding = cls(
            missing_features=missing_features,
            target_labels=target_labels,
            text_features=text_features,
        )

        input_encoding.additional_properties = d
        return input_encoding

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
