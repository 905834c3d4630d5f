from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="SweepProgress")


@_attrs_define
class SweepProgress:
    """
    Attributes:
        cancelled (int):
        done (int): Trials in a terminal state.
        failed (int):
        queued (int):
        running (int):
        succeeded (int):
        total (int):
    """

    cancelled: int
    done: int
    failed: int
    queued: int
    running: int
    succeeded: int
    total: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cancelled = self.cancelled

        done = self.done

        failed = self.failed

        queued = self.queued

        running = self.running

        succeeded = self.succeeded

        total = self.total

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cancelled": cancelled,
                "done": done,
                "failed": failed,
                "queued": queued,
                "running": running,
                "succeeded": succeeded,
                "total": total,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        cancelled = d.pop("cancelled")

        done = d.pop("done")

        failed = d.pop("failed")

        queued = d.pop("queued")

        running = d.pop("running")

        succeeded = d.pop("succeeded")

        total = d.pop("total")

        sweep_progress = cls(
            cancelled=cancelled,
            done=done,
            failed=failed,
            queued=queued,
            running=running,
            succeeded=succeeded,
            total=total,
        )

        sweep_progress.additional_properties = d
        return sweep_progress

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
