from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.candidate_score import CandidateScore
    from ..models.leaderboard_row_coefficients_type_0 import LeaderboardRowCoefficientsType0
    from ..models.leaderboard_row_covariate_weights_type_0 import LeaderboardRowCovariateWeightsType0
    from ..models.leaderboard_row_environments import LeaderboardRowEnvironments
    from ..models.leaderboard_row_searched_params import LeaderboardRowSearchedParams
    from ..models.leaderboard_row_selected_params import LeaderboardRowSelectedParams
    from ..models.mean_std import MeanStd


T = TypeVar("T", bound="LeaderboardRow")


@_attrs_define
class LeaderboardRow:
    """
    Attributes:
        algorithm (str):
        candidates (list[CandidateScore]):
        coefficients (LeaderboardRowCoefficientsType0 | None): θ per covariate, averaged over seeds.
        covariate_weights (LeaderboardRowCovariateWeightsType0 | None): w per covariate, averaged over seeds.
        environments (LeaderboardRowEnvironments): Test error per environment, mean ± std over seeds.
        failed_trials (int):
        jobs (list[str]): The selected candidate's reported job per seed.
        mean_error (MeanStd):
        metric (str):
        rank (int):
        searched_params (LeaderboardRowSearchedParams): The selected values of the parameters the search varied.
        seeds (list[int]):
        selected_params (LeaderboardRowSelectedParams):
        selection_score (float):
        std_error (MeanStd):
        worst_environment (None | str):
        worst_error (MeanStd):
    """

    algorithm: str
    candidates: list[CandidateScore]
    coefficients: LeaderboardRowCoefficientsType0 | None
    covariate_weights: LeaderboardRowCovariateWeightsType0 | None
    environments: LeaderboardRowEnvironments
    failed_trials: int
    jobs: list[str]
    mean_error: MeanStd
    metric: str
    rank: int
    searched_params: LeaderboardRowSearchedParams
    seeds: list[int]
    selected_params: LeaderboardRowSelectedParams
    selection_score: float
    std_error: MeanStd
    worst_environment: None | str
    worst_error: MeanStd
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.leaderboard_row_coefficients_type_0 import LeaderboardRowCoefficientsType0  # noqa: PLC0415
        from ..models.leaderboard_row_covariate_weights_type_0 import LeaderboardRowCovariateWeightsType0  # noqa: PLC0415

        algorithm = self.algorithm

        candidates = []
        for candidates_item_data in self.candidates:
            candidates_item = candidates_item_data.to_dict()
            candidates.append(candidates_item)

        coefficients: dict[str, Any] | None
        if isinstance(self.coefficients, LeaderboardRowCoefficientsType0):
            coefficients = self.coefficients.to_dict()
        else:
            coefficients = self.coefficients

        covariate_weights: dict[str, Any] | None
        if isinstance(self.covariate_weights, LeaderboardRowCovariateWeightsType0):
            covariate_weights = self.covariate_weights.to_dict()
        else:
            covariate_weights = self.covariate_weights

        environments = self.environments.to_dict()

        failed_trials = self.failed_trials

        jobs = self.jobs

        mean_error = self.mean_error.to_dict()

        metric = self.metric

        rank = self.rank

        searched_params = self.searched_params.to_dict()

        seeds = self.seeds

        selected_params = self.selected_params.to_dict()

        selection_score = self.selection_score

        std_error = self.std_error.to_dict()

        worst_environment: None | str
        worst_environment = self.worst_environment

        worst_error = self.worst_error.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "algorithm": algorithm,
                "candidates": candidates,
                "coefficients": coefficients,
                "covariate_weights": covariate_weights,
                "environments": environments,
                "failed_trials": failed_trials,
                "jobs": jobs,
                "mean_error": mean_error,
                "metric": metric,
                "rank": rank,
                "searched_params": searched_params,
                "seeds": seeds,
                "selected_params": selected_params,
                "selection_score": selection_score,
                "std_error": std_error,
                "worst_environment": worst_environment,
                "worst_error": worst_error,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.candidate_score import CandidateScore  # noqa: PLC0415
        from ..models.leaderboard_row_coefficients_type_0 import LeaderboardRowCoefficientsType0  # noqa: PLC0415
        from ..models.leaderboard_row_covariate_weights_type_0 import LeaderboardRowCovariateWeightsType0  # noqa: PLC0415
        from ..models.leaderboard_row_environments import LeaderboardRowEnvironments  # noqa: PLC0415
        from ..models.leaderboard_row_searched_params import LeaderboardRowSearchedParams  # noqa: PLC0415
        from ..models.leaderboard_row_selected_params import LeaderboardRowSelectedParams  # noqa: PLC0415
        from ..models.mean_std import MeanStd  # noqa: PLC0415

        d = dict(src_dict)
        algorithm = d.pop("algorithm")

        candidates = []
        _candidates = d.pop("candidates")
        for candidates_item_data in _candidates:
            candidates_item = CandidateScore.from_dict(candidates_item_data)

            candidates.append(candidates_item)

        def _parse_coefficients(data: object) -> LeaderboardRowCoefficientsType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                coefficients_type_0 = LeaderboardRowCoefficientsType0.from_dict(data)

                return coefficients_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(LeaderboardRowCoefficientsType0 | None, data)

        coefficients = _parse_coefficients(d.pop("coefficients"))

        def _parse_covariate_weights(data: object) -> LeaderboardRowCovariateWeightsType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                covariate_weights_type_0 = LeaderboardRowCovariateWeightsType0.from_dict(data)

                return covariate_weights_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(LeaderboardRowCovariateWeightsType0 | None, data)

        covariate_weights = _parse_covariate_weights(d.pop("covariate_weights"))

        environments = LeaderboardRowEnvironments.from_dict(d.pop("environments"))

        failed_trials = d.pop("failed_trials")

        jobs = cast(list[str], d.pop("jobs"))

        mean_error = MeanStd.from_dict(d.pop("mean_error"))

        metric = d.pop("metric")

        rank = d.pop("rank")

        searched_params = LeaderboardRowSearchedParams.from_dict(d.pop("searched_params"))

        seeds = cast(list[int], d.pop("seeds"))

        selected_params = LeaderboardRowSelectedParams.from_dict(d.pop("selected_params"))

        selection_score = d.pop("selection_score")

        std_error = MeanStd.from_dict(d.pop("std_error"))

        def _parse_worst_environment(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        worst_environment = _parse_worst_environment(d.pop("worst_environment"))

        worst_error = MeanStd.from_dict(d.pop("worst_error"))

        leaderboard_row = cls(
            algorithm=algorithm,
            candidates=candidates,
            coefficients=coefficients,
            covariate_weights=covariate_weights,
            environments=environments,
            failed_trials=failed_trials,
            jobs=jobs,
            mean_error=mean_error,
            metric=metric,
            rank=rank,
            searched_params=searched_params,
            seeds=seeds,
            selected_params=selected_params,
            selection_score=selection_score,
            std_error=std_error,
            worst_environment=worst_environment,
            worst_error=worst_error,
        )

        leaderboard_row.additional_properties = d
        return leaderboard_row

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
