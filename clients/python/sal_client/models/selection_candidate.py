from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.selection_candidate_env_scores import SelectionCandidateEnvScores


T = TypeVar("T", bound="SelectionCandidate")


@_attrs_define
class SelectionCandidate:
    """One λ candidate (``sal_core.lambda_selection.Candidate``); null where a number was not finite.

    Attributes:
        env_scores (SelectionCandidateEnvScores | Unset):
        lambda_ (float | None | Unset):
        protection (float | None | Unset): Σ log w of the fitted candidate.
        relative (float | None | Unset): c in λ = c · base; null for the adversary switched off (ERM).
        score (float | None | Unset): The worst training environment's out-of-sample error.
        se (float | None | Unset): Standard error of (score − the best candidate's score), paired on the same rows, with
            the environments' mean losses drawn jointly (the score is a maximum); absent in old results.
        variant (None | str | Unset): Which w-path variant (SAL).
    """

    env_scores: SelectionCandidateEnvScores | Unset = UNSET
    lambda_: float | None | Unset = UNSET
    protection: float | None | Unset = UNSET
    relative: float | None | Unset = UNSET
    score: float | None | Unset = UNSET
    se: float | None | Unset = UNSET
    variant: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        env_scores: dict[str, Any] | Unset = UNSET
        if not isinstance(self.env_scores, Unset):
            env_scores = self.env_scores.to_dict()

        lambda_: float | None | Unset
        if isinstance(self.lambda_, Unset):
            lambda_ = UNSET
        else:
            lambda_ = self.lambda_

        protection: float | None | Unset
        if isinstance(self.protection, Unset):
            protection = UNSET
        else:
            protection = self.protection

        relative: float | None | Unset
        if isinstance(self.relative, Unset):
            relative = UNSET
        else:
            relative = self.relative

        score: float | None | Unset
        if isinstance(self.score, Unset):
            score = UNSET
        else:
            score = self.score

        se: float | None | Unset
        if isinstance(self.se, Unset):
            se = UNSET
        else:
            se = self.se

        variant: None | str | Unset
        if isinstance(self.variant, Unset):
            variant = UNSET
        else:
            variant = self.variant

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if env_scores is not UNSET:
            field_dict["env_scores"] = env_scores
        if lambda_ is not UNSET:
            field_dict["lambda_"] = lambda_
        if protection is not UNSET:
            field_dict["protection"] = protection
        if relative is not UNSET:
            field_dict["relative"] = relative
        if score is not UNSET:
            field_dict["score"] = score
        if se is not UNSET:
            field_dict["se"] = se
        if variant is not UNSET:
            field_dict["variant"] = variant

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.selection_candidate_env_scores import SelectionCandidateEnvScores  # noqa: PLC0415

        d = dict(src_dict)
        _env_scores = d.pop("env_scores", UNSET)
        env_scores: SelectionCandidateEnvScores | Unset
        if isinstance(_env_scores, Unset):
            env_scores = UNSET
        else:
            env_scores = SelectionCandidateEnvScores.from_dict(_env_scores)

        def _parse_lambda_(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        lambda_ = _parse_lambda_(d.pop("lambda_", UNSET))

        def _parse_protection(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        protection = _parse_protection(d.pop("protection", UNSET))

        def _parse_relative(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        relative = _parse_relative(d.pop("relative", UNSET))

        def _parse_score(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        score = _parse_score(d.pop("score", UNSET))

        def _parse_se(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        se = _parse_se(d.pop("se", UNSET))

        def _parse_variant(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        variant = _parse_variant(d.pop("variant", UNSET))

        selection_candidate = cls(
            env_scores=env_scores,
            lambda_=lambda_,
            protection=protection,
            relative=relative,
            score=score,
            se=se,
            variant=variant,
        )

        selection_candidate.additional_properties = d
        return selection_candidate

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
