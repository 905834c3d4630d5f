from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.erm_evidence import ErmEvidence
    from ..models.homogeneity import Homogeneity
    from ..models.seeded_w import SeededW
    from ..models.selection_candidate import SelectionCandidate
    from ..models.w_evidence import WEvidence


T = TypeVar("T", bound="Selection")


@_attrs_define
class Selection:
    """How the algorithm chose its λ (``sal_core.lambda_selection.FitSelection``): the rule, every
    candidate's score, the choice and why; the held-out path's refit; the evidence on w. Results
    stored by older versions (other criteria, ``tolerance``, candidates without ``se``) read as stored.

        Attributes:
            base (float | None | Unset):
            beats_erm (ErmEvidence | None | Unset): Where ERM came first (erm_first): how far the strongest robust candidate
                beat ERM, in standard errors of its own difference to ERM (t), and the bar it had to clear (bar): the quantile
                of the largest of all robust candidates' standardised differences that keeps one z-standard-error comparison's
                level for the best of several (candidates). Null elsewhere and in results stored before it existed.
            best (None | SelectionCandidate | Unset):
            candidates (list[SelectionCandidate] | None | Unset):
            chosen (None | SelectionCandidate | Unset):
            cost_cap (float | None | Unset): Where the slopes test found no evidence of a difference: the most a robust
                candidate may score above the best (relative); null where none applied.
            covariate_weights (None | SeededW | Unset | WEvidence): Linear SAL: w's evidence; an MLP: where its w came from.
            criterion (None | str | Unset):
            erm_first (bool | None | Unset): Whether ERM was kept unless a candidate beat it by more than z standard errors
                (SAL's erm_first: by default where the slopes test found no evidence of a difference); null in results stored
                before it existed.
            erm_kept (bool | None | Unset): Whether ERM was kept outright because the slopes test found the training
                environments alike, or because no training environment has a row per fold (SAL's erm_first='keep_where_alike';
                the rule says which): no robust candidate could be chosen, so none was fitted and candidates lists ERM alone
                (with SAL's score_all, or in results stored before 2026-12-04, they were scored and reported, not chosen). Null
                in results stored before it existed.
            final_model (None | str | Unset): What the model returned is, where not simply the chosen candidate refitted on
                all rows: linear SAL returns the mean of the chosen candidate's fold fits ('bagged: ...'; its w and rounds are
                the refit's); the held-out path says whether it kept its refit.
            homogeneity (Homogeneity | None | Unset): Do the training environments share one linear model? (exact path)
            null_score (float | None | Unset): Where candidates are scored on one held-out fold (gradient path, networks):
                the score of a constant prediction (the base rate, the mean or the median); a robust candidate must score below
                it. Null on the exact path and in results stored before it existed.
            parameter (None | str | Unset):
            reason (None | str | Unset):
            refit_score (float | None | Unset):
            rows_scored (int | None | Unset):
            rule (None | str | Unset):
            scoring (None | str | Unset):
            z (float | None | Unset):
    """

    base: float | None | Unset = UNSET
    beats_erm: ErmEvidence | None | Unset = UNSET
    best: None | SelectionCandidate | Unset = UNSET
    candidates: list[SelectionCandidate] | None | Unset = UNSET
    chosen: None | SelectionCandidate | Unset = UNSET
    cost_cap: float | None | Unset = UNSET
    covariate_weights: None | SeededW | Unset | WEvidence = UNSET
    criterion: None | str | Unset = UNSET
    erm_first: bool | None | Unset = UNSET
    erm_kept: bool | None | Unset = UNSET
    final_model: None | str | Unset = UNSET
    homogeneity: Homogeneity | None | Unset = UNSET
    null_score: float | None | Unset = UNSET
    parameter: None | str | Unset = UNSET
    reason: None | str | Unset = UNSET
    refit_score: float | None | Unset = UNSET
    rows_scored: int | None | Unset = UNSET
    rule: None | str | Unset = UNSET
    scoring: None | str | Unset = UNSET
    z: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.erm_evidence import ErmEvidence  # noqa: PLC0415
        from ..models.homogeneity import Homogeneity  # noqa: PLC0415
        from ..models.seeded_w import SeededW  # noqa: PLC0415
        from ..models.selection_candidate import SelectionCandidate  # noqa: PLC0415
        from ..models.w_evidence import WEvidence  # noqa: PLC0415

        base: float | None | Unset
        if isinstance(self.base, Unset):
            base = UNSET
        else:
            base = self.base

        beats_erm: dict[str, Any] | None | Unset
        if isinstance(self.beats_erm, Unset):
            beats_erm = UNSET
        elif isinstance(self.beats_erm, ErmEvidence):
            beats_erm = self.beats_erm.to_dict()
        else:
            beats_erm = self.beats_erm

        best: dict[str, Any] | None | Unset
        if isinstance(self.best, Unset):
            best = UNSET
        elif isinstance(self.best, SelectionCandidate):
            best = self.best.to_dict()
        else:
            best = self.best

        candidates: list[dict[str, Any]] | None | Unset
        if isinstance(self.candidates, Unset):
            candidates = UNSET
        elif isinstance(self.candidates, list):
            candidates = []
            for candidates_type_0_item_data in self.candidates:
                candidates_type_0_item = candidates_type_0_item_data.to_dict()
                candidates.append(candidates_type_0_item)

        else:
            candidates = self.candidates

        chosen: dict[str, Any] | None | Unset
        if isinstance(self.chosen, Unset):
            chosen = UNSET
        elif isinstance(self.chosen, SelectionCandidate):
            chosen = self.chosen.to_dict()
        else:
            chosen = self.chosen

        cost_cap: float | None | Unset
        if isinstance(self.cost_cap, Unset):
            cost_cap = UNSET
        else:
            cost_cap = self.cost_cap

        covariate_weights: dict[str, Any] | None | Unset
        if isinstance(self.covariate_weights, Unset):
            covariate_weights = UNSET
        elif isinstance(self.covariate_weights, WEvidence):
            covariate_weights = self.covariate_weights.to_dict()
        elif isinstance(self.covariate_weights, SeededW):
            covariate_weights = self.covariate_weights.to_dict()
        else:
            covariate_weights = self.covariate_weights

        criterion: None | str | Unset
        if isinstance(self.criterion, Unset):
            criterion = UNSET
        else:
            criterion = self.criterion

        erm_first: bool | None | Unset
        if isinstance(self.erm_first, Unset):
            erm_first = UNSET
        else:
            erm_first = self.erm_first

        erm_kept: bool | None | Unset
        if isinstance(self.erm_kept, Unset):
            erm_kept = UNSET
        else:
            erm_kept = self.erm_kept

        final_model: None | str | Unset
        if isinstance(self.final_model, Unset):
            final_model = UNSET
        else:
            final_model = self.final_model

        homogeneity: dict[str, Any] | None | Unset
        if isinstance(self.homogeneity, Unset):
            homogeneity = UNSET
        elif isinstance(self.homogeneity, Homogeneity):
            homogeneity = self.homogeneity.to_dict()
        else:
            homogeneity = self.homogeneity

        null_score: float | None | Unset
        if isinstance(self.null_score, Unset):
            null_score = UNSET
        else:
            null_score = self.null_score

        parameter: None | str | Unset
        if isinstance(self.parameter, Unset):
            parameter = UNSET
        else:
            parameter = self.parameter

        reason: None | str | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        else:
            reason = self.reason

        refit_score: float | None | Unset
        if isinstance(self.refit_score, Unset):
            refit_score = UNSET
        else:
            refit_score = self.refit_score

        rows_scored: int | None | Unset
        if isinstance(self.rows_scored, Unset):
            rows_scored = UNSET
        else:
            rows_scored = self.rows_scored

        rule: None | str | Unset
        if isinstance(self.rule, Unset):
            rule = UNSET
        else:
            rule = self.rule

        scoring: None | str | Unset
        if isinstance(self.scoring, Unset):
            scoring = UNSET
        else:
            scoring = self.scoring

        z: float | None | Unset
        if isinstance(self.z, Unset):
            z = UNSET
        else:
            z = self.z

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if base is not UNSET:
            field_dict["base"] = base
        if beats_erm is not UNSET:
            field_dict["beats_erm"] = beats_erm
        if best is not UNSET:
            field_dict["best"] = best
        if candidates is not UNSET:
            field_dict["candidates"] = candidates
        if chosen is not UNSET:
            field_dict["chosen"] = chosen
        if cost_cap is not UNSET:
            field_dict["cost_cap"] = cost_cap
        if covariate_weights is not UNSET:
            field_dict["covariate_weights"] = covariate_weights
        if criterion is not UNSET:
            field_dict["criterion"] = criterion
        if erm_first is not UNSET:
            field_dict["erm_first"] = erm_first
        if erm_kept is not UNSET:
            field_dict["erm_kept"] = erm_kept
        if final_model is not UNSET:
            field_dict["final_model"] = final_model
        if homogeneity is not UNSET:
            field_dict["homogeneity"] = homogeneity
        if null_score is not UNSET:
            field_dict["null_score"] = null_score
        if parameter is not UNSET:
            field_dict["parameter"] = parameter
        if reason is not UNSET:
            field_dict["reason"] = reason
        if refit_score is not UNSET:
            field_dict["refit_score"] = refit_score
        if rows_scored is not UNSET:
            field_dict["rows_scored"] = rows_scored
        if rule is not UNSET:
            field_dict["rule"] = rule
        if scoring is not UNSET:
            field_dict["scoring"] = scoring
        if z is not UNSET:
            field_dict["z"] = z

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.erm_evidence import ErmEvidence  # noqa: PLC0415
        from ..models.homogeneity import Homogeneity  # noqa: PLC0415
        from ..models.seeded_w import SeededW  # noqa: PLC0415
        from ..models.selection_candidate import SelectionCandidate  # noqa: PLC0415
        from ..models.w_evidence import WEvidence  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_base(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        base = _parse_base(d.pop("base", UNSET))

        def _parse_beats_erm(data: object) -> ErmEvidence | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                beats_erm_type_0 = ErmEvidence.from_dict(data)

                return beats_erm_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ErmEvidence | None | Unset, data)

        beats_erm = _parse_beats_erm(d.pop("beats_erm", UNSET))

        def _parse_best(data: object) -> None | SelectionCandidate | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                best_type_0 = SelectionCandidate.from_dict(data)

                return best_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SelectionCandidate | Unset, data)

        best = _parse_best(d.pop("best", UNSET))

        def _parse_candidates(data: object) -> list[SelectionCandidate] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                candidates_type_0 = []
                _candidates_type_0 = data
                for candidates_type_0_item_data in _candidates_type_0:
                    candidates_type_0_item = SelectionCandidate.from_dict(candidates_type_0_item_data)

                    candidates_type_0.append(candidates_type_0_item)

                return candidates_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[SelectionCandidate] | None | Unset, data)

        candidates = _parse_candidates(d.pop("candidates", UNSET))

        def _parse_chosen(data: object) -> None | SelectionCandidate | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                chosen_type_0 = SelectionCandidate.from_dict(data)

                return chosen_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SelectionCandidate | Unset, data)

        chosen = _parse_chosen(d.pop("chosen", UNSET))

        def _parse_cost_cap(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        cost_cap = _parse_cost_cap(d.pop("cost_cap", UNSET))

        def _parse_covariate_weights(data: object) -> None | SeededW | Unset | WEvidence:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                covariate_weights_type_0 = WEvidence.from_dict(data)

                return covariate_weights_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                covariate_weights_type_1 = SeededW.from_dict(data)

                return covariate_weights_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SeededW | Unset | WEvidence, data)

        covariate_weights = _parse_covariate_weights(d.pop("covariate_weights", UNSET))

        def _parse_criterion(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        criterion = _parse_criterion(d.pop("criterion", UNSET))

        def _parse_erm_first(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        erm_first = _parse_erm_first(d.pop("erm_first", UNSET))

        def _parse_erm_kept(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        erm_kept = _parse_erm_kept(d.pop("erm_kept", UNSET))

        def _parse_final_model(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        final_model = _parse_final_model(d.pop("final_model", UNSET))

        def _parse_homogeneity(data: object) -> Homogeneity | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                homogeneity_type_0 = Homogeneity.from_dict(data)

                return homogeneity_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Homogeneity | None | Unset, data)

        homogeneity = _parse_homogeneity(d.pop("homogeneity", UNSET))

        def _parse_null_score(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        null_score = _parse_null_score(d.pop("null_score", UNSET))

        def _parse_parameter(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        parameter = _parse_parameter(d.pop("parameter", UNSET))

        def _parse_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))

        def _parse_refit_score(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        refit_score = _parse_refit_score(d.pop("refit_score", UNSET))

        def _parse_rows_scored(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        rows_scored = _parse_rows_scored(d.pop("rows_scored", UNSET))

        def _parse_rule(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        rule = _parse_rule(d.pop("rule", UNSET))

        def _parse_scoring(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        scoring = _parse_scoring(d.pop("scoring", UNSET))

        def _parse_z(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        z = _parse_z(d.pop("z", UNSET))

        selection = cls(
            base=base,
            beats_erm=beats_erm,
            best=best,
            candidates=candidates,
            chosen=chosen,
            cost_cap=cost_cap,
            covariate_weights=covariate_weights,
            criterion=criterion,
            erm_first=erm_first,
            erm_kept=erm_kept,
            final_model=final_model,
            homogeneity=homogeneity,
            null_score=null_score,
            parameter=parameter,
            reason=reason,
            refit_score=refit_score,
            rows_scored=rows_scored,
            rule=rule,
            scoring=scoring,
            z=z,
        )

        selection.additional_properties = d
        return selection

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
