from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.device_record_chosen_type_0 import DeviceRecordChosenType0
from ..models.device_record_requested import DeviceRecordRequested

T = TypeVar("T", bound="DeviceRecord")


@_attrs_define
class DeviceRecord:
    """Where a job runs: asked for, chosen when it was submitted (app.jobs.placement), and the
    device its worker resolved that to when it took the job.

        Attributes:
            chosen (DeviceRecordChosenType0 | None): Chosen at submit time ("auto" by the cost rule in docs/operations.md);
                null on jobs submitted before placements, which their worker resolves.
            ran_on (None | str): The worker's device ("cpu", "cuda:0"); null until a worker took it.
            reason (None | str): Why ``chosen``, in one sentence.
            requested (DeviceRecordRequested):
    """

    chosen: DeviceRecordChosenType0 | None
    ran_on: None | str
    reason: None | str
    requested: DeviceRecordRequested
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        chosen: None | str
        if isinstance(self.chosen, DeviceRecordChosenType0):
            chosen = self.chosen.value
        else:
            chosen = self.chosen

        ran_on: None | str
        ran_on = self.ran_on

        reason: None | str
        reason = self.reason

        requested = self.requested.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "chosen": chosen,
                "ran_on": ran_on,
                "reason": reason,
                "requested": requested,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_chosen(data: object) -> DeviceRecordChosenType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                chosen_type_0 = DeviceRecordChosenType0(data)

                return chosen_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DeviceRecordChosenType0 | None, data)

        chosen = _parse_chosen(d.pop("chosen"))

        def _parse_ran_on(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        ran_on = _parse_ran_on(d.pop("ran_on"))

        def _parse_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        reason = _parse_reason(d.pop("reason"))

        requested = DeviceRecordRequested(d.pop("requested"))

        device_record = cls(
            chosen=chosen,
            ran_on=ran_on,
            reason=reason,
            requested=requested,
        )

        device_record.additional_properties = d
        return device_record

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
