from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="GetJobEventsResponse200Type3")


@_attrs_define
class GetJobEventsResponse200Type3:
    """
    Attributes:
        data (str):
        event (Literal['final']):
        id (str): attempt-step-status; resume with Last-Event-ID
        retry (int | Unset):
    """

    data: str
    event: Literal["final"]
    id: str
    retry: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = self.data

        event = self.event

        id = self.id

        retry = self.retry

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "data": data,
                "event": event,
                "id": id,
            }
        )
        if retry is not UNSET:
            field_dict["retry"] = retry

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        data = d.pop("data")

        event = cast(Literal["final"], d.pop("event"))
        if event != "final":
            raise ValueError(f"event must match const 'final', got '{event}'")

        id = d.pop("id")

        retry = d.pop("retry", UNSET)

        get_job_events_response_200_type_3 = cls(
            data=data,
            event=event,
            id=id,
            retry=retry,
        )

        get_job_events_response_200_type_3.additional_properties = d
        return get_job_events_response_200_type_3

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
