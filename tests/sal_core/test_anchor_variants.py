"""lambda_="auto" fits each λ with both anchors of min w = 1 only where they differ: where every
covariate is significant (or none is), the "significant" anchor is the paper's and its paths would
be the same paths run twice."""

from __future__ import annotations

import numpy as np

from sal_core import Environment, get_algorithm
from sal_core.exact_selection import VARIANT_NAMES, distinct_variants
from sal_core.synthetic import selection_bias


def _masks(*rows: list[bool]) -> np.ndarray:
    return np.array(rows, dtype=bool)


def test_an_anchor_that_pins_what_another_pins_on_every_fold_is_dropped() -> None:
    every = _masks([True, True, True], [True, True, True])
    assert distinct_variants({"all": every, "significant": every.copy()}) == ("all",)
    none = _masks([False, False, False], [False, False, False])  # none pinnable: any may
    assert distinct_variants({"all": every, "significant": none}) == ("all",)


def test_an_anchor_that_differs_on_one_fold_is_kept() -> None:
    every = _masks([True, True, True], [True, True, True])
    one_fold = _masks([True, True, True], [True, False, True])
    assert distinct_variants({"all": every, "significant": one_fold}) == ("all", "significant")


def strong_signal(seed: int) -> list[Environment]:
    """The paper's selection bias with the four pure-noise covariates left out: every covariate left
    (S1-S5 and the unstable V1) has |t| far above 3, and the robust fit wins out of fold."""
    data = selection_bias(r=1.7, n=1000, kappa=0.95, seed=seed)
    return [Environment(e.name, e.X[:, :6], e.y) for e in data.train]


def test_where_every_covariate_is_significant_auto_is_the_paper_anchor_alone() -> None:
    for seed in (0, 1):
        envs = strong_signal(seed)
        auto = get_algorithm("sal")(seed=seed).fit(envs)
        paper = get_algorithm("sal")({"anchor": "all"}, seed=seed).fit(envs)
        assert auto.selection is not None and auto.selection.lambda_ is not None
        candidates = auto.selection.lambda_.candidates
        robust = [c for c in candidates if c.relative is not None]
        assert len({c.relative for c in robust}) == len(robust)  # one candidate per λ
        assert {c.variant for c in robust} == {VARIANT_NAMES["all"]}
        assert auto.coefficients is not None and paper.coefficients is not None
        np.testing.assert_array_equal(auto.coefficients, paper.coefficients)
        np.testing.assert_array_equal(auto.covariate_weights, paper.covariate_weights)
        assert auto.selection.lambda_.chosen_candidate.relative is not None  # a robust fit was compared


def test_where_the_anchors_differ_both_are_tried() -> None:
    data = selection_bias(r=1.7, n=1000, kappa=0.95, seed=0)  # V2-V5 carry no signal
    fit = get_algorithm("sal")(seed=0).fit(data.train)
    assert fit.selection is not None and fit.selection.lambda_ is not None
    variants = {c.variant for c in fit.selection.lambda_.candidates if c.relative is not None}
    assert VARIANT_NAMES["significant"] in variants
