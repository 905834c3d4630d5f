from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.model_config_activation_type_0 import ModelConfigActivationType0
from ..models.model_config_kind import ModelConfigKind
from ..types import UNSET, Unset

T = TypeVar("T", bound="ModelConfig")


@_attrs_define
class ModelConfig:
    """
    Attributes:
        activation (ModelConfigActivationType0 | None | Unset): mlp only; default relu.
        hidden (list[int] | None | Unset): Hidden layer widths (mlp only).
        kind (ModelConfigKind | Unset):  Default: ModelConfigKind.LINEAR.
    """

    activation: ModelConfigActivationType0 | None | Unset = UNSET
    hidden: list[int] | None | Unset = UNSET
    kind: ModelConfigKind | Unset = ModelConfigKind.LINEAR

    def to_dict(self) -> dict[str, Any]:
        activation: None | str | Unset
        if isinstance(self.activation, Unset):
            activation = UNSET
        elif isinstance(self.activation, ModelConfigActivationType0):
            activation = self.activation.value
        else:
            activation = self.activation

        hidden: list[int] | None | Unset
        if isinstance(self.hidden, Unset):
            hidden = UNSET
        elif isinstance(self.hidden, list):
            hidden = self.hidden

        else:
            hidden = self.hidden

        kind: str | Unset = UNSET
        if not isinstance(self.kind, Unset):
            kind = self.kind.value

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if activation is not UNSET:
            field_dict["activation"] = activation
        if hidden is not UNSET:
            field_dict["hidden"] = hidden
        if kind is not UNSET:
            field_dict["kind"] = kind

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_activation(data: object) -> ModelConfigActivationType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                activation_type_0 = ModelConfigActivationType0(data)

                return activation_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ModelConfigActivationType0 | None | Unset, data)

        activation = _parse_activation(d.pop("activation", UNSET))

        def _parse_hidden(data: object) -> list[int] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                hidden_type_0 = cast(list[int], data)

                return hidden_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[int] | None | Unset, data)

        hidden = _parse_hidden(d.pop("hidden", UNSET))

        _kind = d.pop("kind", UNSET)
        kind: ModelConfigKind | Unset
        if isinstance(_kind, Unset):
            kind = UNSET
        else:
            kind = ModelConfigKind(_kind)

        model_config = cls(
            activation=activation,
            hidden=hidden,
            kind=kind,
        )

        return model_config
