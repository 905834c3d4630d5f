from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.dataset_environment import DatasetEnvironment
    from ..models.dataset_public_missing_features import DatasetPublicMissingFeatures
    from ..models.dataset_public_text_features import DatasetPublicTextFeatures


T = TypeVar("T", bound="DatasetPublic")


@_attrs_define
class DatasetPublic:
    """
    Attributes:
        created_at (datetime.datetime):
        environments (list[DatasetEnvironment]):
        feature_names (list[str]):
        id (str):
        n_rows (int):
        name (str):
        sha256 (str):
        target (str):
        missing_features (DatasetPublicMissingFeatures | Unset): Each column with missing cells, which has a feature
            '<column> is missing' (1.0 on those rows): for a numeric column, the value its missing cells hold (the mean of
            its present cells); null for a text column (its rows have no value indicator). Predict rows may give the column
            as null.
        target_labels (list[str] | None | Unset): A label target's two values, text or two whole numbers other than 0
            and 1 (such as 1 and 2): the first read as 0, the second as 1.
        text_features (DatasetPublicTextFeatures | Unset): Each text column one-hot encoded: its values, sorted; the
            first is the reference (no feature of its own), each other value v the feature '<column>=v'. Predict rows may
            give the column's value instead of its features.
        warnings (list[str] | Unset): On an upload's answer: what was decided for you (a text column left out, missing
            cells filled, rows without a target left out, a name not used).
    """

    created_at: datetime.datetime
    environments: list[DatasetEnvironment]
    feature_names: list[str]
    id: str
    n_rows: int
    name: str
    sha256: str
    target: str
    missing_features: DatasetPublicMissingFeatures | Unset = UNSET
    target_labels: list[str] | None | Unset = UNSET
    text_features: DatasetPublicTextFeatures | Unset = UNSET
    warnings: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        environments = []
        for environments_item_data in self.environments:
            environments_item = environments_item_data.to_dict()
            environments.append(environments_item)

        feature_names = self.feature_names

        id = self.id

        n_rows = self.n_rows

        name = self.name

        sha256 = self.sha256

        target = self.target

        missing_features: dict[str, Any] | Unset = UNSET
        if not isinstance(self.missing_features, Unset):
            missing_features = self.missing_features.to_dict()

        target_labels: list[str] | None | Unset
        if isinstance(self.target_labels, Unset):
            target_labels = UNSET
        elif isinstance(self.target_labels, list):
            target_labels = self.target_labels

        else:
            target_labels = self.target_labels

        text_features: dict[str, Any] | Unset = UNSET
        if not isinstance(self.text_features, Unset):
            text_features = self.text_features.to_dict()

        warnings: list[str] | Unset = UNSET
        if not isinstance(self.warnings, Unset):
            warnings = self.warnings

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "environments": environments,
                "feature_names": feature_names,
                "id": id,
                "n_rows": n_rows,
                "name": name,
                "sha256": sha256,
                "target": target,
            }
        )
        if missing_features is not UNSET:
            field_dict["missing_features"] = missing_features
        if target_labels is not UNSET:
            field_dict["target_labels"] = target_labels
        if text_features is not UNSET:
            field_dict["text_features"] = text_features
        if warnings is not UNSET:
            field_dict["warnings"] = warnings

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.dataset_environment import DatasetEnvironment  # noqa: PLC0415
        from ..models.dataset_public_missing_features import DatasetPublicMissingFeatures  # noqa: PLC0415
        from ..models.dataset_public_text_features import DatasetPublicTextFeatures  # noqa: PLC0415

        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        environments = []
        _environments = d.pop("environments")
        for environments_item_data in _environments:
            environments_item = DatasetEnvironment.from_dict(environments_item_data)

            environments.append(environments_item)

        feature_names = cast(list[str], d.pop("feature_names"))

        id = d.pop("id")

        n_rows = d.pop("n_rows")

        name = d.pop("name")

        sha256 = d.pop("sha256")

        target = d.pop("target")

        _missing_features = d.pop("missing_features", UNSET)
        missing_features: DatasetPublicMissingFeatures | Unset
        if isinstance(_missing_features, Unset):
            missing_features = UNSET
        else:
            missing_features = DatasetPublicMissingFeatures.from_dict(_missing_features)

        def _parse_target_labels(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                target_labels_type_0 = cast(list[str], data)

                return target_labels_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        target_labels = _parse_target_labels(d.pop("target_labels", UNSET))

        _text_features = d.pop("text_features", UNSET)
        text_features: DatasetPublicTextFeatures | Unset
        if isinstance(_text_features, Unset):
            text_features = UNSET
        else:
            text_features = DatasetPublicTextFeatures.from_dict(_text_features)

        warnings = cast(list[str], d.pop("warnings", UNSET))

        dataset_public = cls(
            created_at=created_at,
            environments=environments,
            feature_names=feature_names,
            id=id,
            n_rows=n_rows,
            name=name,
            sha256=sha256,
            target=target,
            missing_features=missing_features,
            target_labels=target_labels,
            text_features=text_features,
            warnings=warnings,
        )

        dataset_public.additional_properties = d
        return dataset_public

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
