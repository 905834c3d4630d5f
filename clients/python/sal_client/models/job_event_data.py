from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.job_event_data_status import JobEventDataStatus

if TYPE_CHECKING:
    from ..models.progress import Progress
    from ..models.round_metrics import RoundMetrics


T = TypeVar("T", bound="JobEventData")


@_attrs_define
class JobEventData:
    """The ``data`` of a ``status`` or ``progress`` event of GET /jobs/{id}/events (``final``
    carries a JobSummary).

        Attributes:
            attempt (int):
            cancel_requested (bool):
            metrics (None | RoundMetrics): The latest round's metrics, while the fit runs.
            progress (Progress):
            status (JobEventDataStatus):
    """

    attempt: int
    cancel_requested: bool
    metrics: None | RoundMetrics
    progress: Progress
    status: JobEventDataStatus
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.round_metrics import RoundMetrics  # noqa: PLC0415

        attempt = self.attempt

        cancel_requested = self.cancel_requested

        metrics: dict[str, Any] | None
        if isinstance(self.metrics, RoundMetrics):
            metrics = self.metrics.to_dict()
        else:
            metrics = self.metrics

        progress = self.progress.to_dict()

        status = self.status.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempt": attempt,
                "cancel_requested": cancel_requested,
                "metrics": metrics,
                "progress": progress,
                "status": status,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.progress import Progress  # noqa: PLC0415
        from ..models.round_metrics import RoundMetrics  # noqa: PLC0415

        d = dict(src_dict)
        attempt = d.pop("attempt")

        cancel_requested = d.pop("cancel_requested")

        def _parse_metrics(data: object) -> None | RoundMetrics:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                metrics_type_0 = RoundMetrics.from_dict(data)

                return metrics_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RoundMetrics, data)

        metrics = _parse_metrics(d.pop("metrics"))

        progress = Progress.from_dict(d.pop("progress"))

        status = JobEventDataStatus(d.pop("status"))

        job_event_data = cls(
            attempt=attempt,
            cancel_requested=cancel_requested,
            metrics=metrics,
            progress=progress,
            status=status,
        )

        job_event_data.additional_properties = d
        return job_event_data

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
