from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="MlflowExportPublic")


@_attrs_define
class MlflowExportPublic:
    """
    Attributes:
        artifact_uri (str):
        experiment_id (str):
        model_uri (str): Load it with mlflow.pyfunc.load_model(model_uri).
        run_id (str):
        tracking_uri (str):
    """

    artifact_uri: str
    experiment_id: str
    model_uri: str
    run_id: str
    tracking_uri: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        artifact_uri = self.artifact_uri

        experiment_id = self.experiment_id

        model_uri = self.model_uri

        run_id = self.run_id

        tracking_uri = self.tracking_uri

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "artifact_uri": artifact_uri,
                "experiment_id": experiment_id,
                "model_uri": model_uri,
                "run_id": run_id,
                "tracking_uri": tracking_uri,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        artifact_uri = d.pop("artifact_uri")

        experiment_id = d.pop("experiment_id")

        model_uri = d.pop("model_uri")

        run_id = d.pop("run_id")

        tracking_uri = d.pop("tracking_uri")

        mlflow_export_public = cls(
            artifact_uri=artifact_uri,
            experiment_id=experiment_id,
            model_uri=model_uri,
            run_id=run_id,
            tracking_uri=tracking_uri,
        )

        mlflow_export_public.additional_properties = d
        return mlflow_export_public

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
