"""Scores closer than their resolution tie, and a tie goes to ERM (docs/sal.md, "Scores below their
resolution tie"): where every candidate ranks every held-out row right, the log-losses after the
temperature are 1e-15 to 1e-75 and their order is rounding."""

from __future__ import annotations

import warnings

import numpy as np

from sal_core import Environment, get_algorithm
from sal_core import lambda_selection as ls

NULL = 0.78  # a constant prediction's log-loss on the held-out rows


def _pair(
    robust: float, erm: float, robust_envs: dict[str, float], erm_envs: dict[str, float]
) -> list[ls.Candidate]:
    """A robust candidate and ERM (last), each ``se`` paired with the lower-scoring one."""
    se = 0.0 if robust <= erm else 1e-20
    return [
        ls.Candidate(0.1, 0.1, robust, robust_envs, se=se),
        ls.Candidate(None, ls.OFF_LAMBDA, erm, erm_envs, se=1e-20 if robust <= erm else 0.0),
    ]


def test_resolution_is_a_fraction_of_the_constant_predictions_score_or_of_the_largest_score() -> None:
    cands = _pair(1e-70, 1e-50, {"a": 1e-70}, {"a": 1e-50})
    assert ls.resolution(cands, NULL) == ls.SCORE_RESOLUTION * NULL
    assert ls.resolution([*cands, ls.Candidate(1.0, 1.0, 0.5, {})]) == ls.SCORE_RESOLUTION * 0.5


def test_where_erm_comes_first_a_lead_below_the_resolution_keeps_erm() -> None:
    cands = _pair(1.1e-73, 7.6e-55, {"a": 1.1e-73, "b": 0.0}, {"a": 7.6e-55, "b": 0.0})
    chosen, best, reason = ls.choose(cands, 1.0, "robust", erm_first=True, null=NULL)
    assert (chosen, best) == (1, 1)
    assert "ERM kept: it ties the lowest score" in reason
    # the same lead in a score's own units is evidence: the robust candidate wins
    cands = _pair(0.40, 0.60, {"a": 0.40, "b": 0.1}, {"a": 0.60, "b": 0.1})
    cands[1] = ls.Candidate(None, ls.OFF_LAMBDA, 0.60, {"a": 0.60, "b": 0.1}, se=0.05)
    assert ls.choose(cands, 1.0, "robust", erm_first=True, null=NULL)[0] == 0


def test_where_the_band_prefers_robustness_erm_tied_on_every_environment_is_kept() -> None:
    """ERM ties the lowest score and no environment shows the robust candidate ahead by more than the
    resolution: the veto keeps ERM, as where ERM beats it on every environment."""
    tiny = {"a": 2e-60, "b": 3e-40}
    cands = _pair(1e-70, 5e-41, tiny, {"a": 5e-41, "b": 4e-40})
    assert ls.choose(cands, 1.0, "robust", null=NULL)[0] == 1
    assert ls.dominated_by(cands[0], cands[1], ls.resolution(cands, NULL))
    assert not ls.dominated_by(cands[0], cands[1])  # without the resolution, "a" was a lead
    # a robust candidate ahead on some environment by a real margin is admitted as before
    ahead = {"a": 1e-70, "b": 0.2}
    cands = _pair(1e-70, 5e-41, ahead, {"a": 5e-41, "b": 0.3})
    assert ls.choose(cands, 1.0, "robust", null=NULL)[0] == 0


def _separable_environments(seed: int) -> list[Environment]:
    """Three environments of 20 rows, the label the sign of x0 with a margin of 1; in "e2" every label
    is 1, so no slopes test runs and ERM comes first."""
    rng = np.random.default_rng(seed)
    envs = []
    for e in range(3):
        x = rng.normal(size=(20, 10))
        x[:, 1] += e
        x[:, 0] = np.sign(x[:, 0]) * (np.abs(x[:, 0]) + 1.0)
        if e == 2:
            x[:, 0] = np.abs(x[:, 0])
        envs.append(Environment(f"e{e}", x, (x[:, 0] > 0).astype(float)))
    return envs


def test_sal_keeps_erm_where_every_candidate_ranks_the_held_out_rows_perfectly() -> None:
    """Seeds where both candidates' held-out log-losses are below the resolution and the robust one's
    is the lower (before the rule, SAL chose it on that rounding): SAL returns ERM's fit."""
    for seed in (1, 3, 6, 7):
        envs = _separable_environments(seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sal = get_algorithm("sal")(task="classification", seed=seed).fit(envs)
            erm = get_algorithm("erm")(task="classification", seed=seed).fit(envs)
        assert sal.selection is not None and sal.selection.lambda_ is not None
        selection = sal.selection.lambda_
        robust, off = selection.candidates[0], selection.candidates[-1]
        assert off.relative is None and robust.relative is not None
        assert max(robust.score, off.score) < ls.SCORE_RESOLUTION * 0.5  # a tie: both rank every row right
        assert robust.score < off.score  # the order rounding gave, which the rule used to follow
        assert selection.chosen == len(selection.candidates) - 1, (seed, selection.reason)
        assert "ties the lowest score" in selection.reason
        x = np.vstack([e.X for e in envs])
        np.testing.assert_allclose(sal.model.predict(x), erm.model.predict(x), rtol=1e-6, atol=1e-9)


def test_the_reason_says_where_the_resolution_decided_the_veto() -> None:
    tiny = {"a": 2e-60, "b": 3e-40}
    cands = _pair(1e-70, 5e-41, tiny, {"a": 5e-41, "b": 4e-40})
    reason = ls.choose(cands, 1.0, "robust", null=NULL)[2]
    assert "ERM (adversary off) ties the lowest score" in reason
    assert "beats ERM on no training environment by more than the scores' resolution" in reason
