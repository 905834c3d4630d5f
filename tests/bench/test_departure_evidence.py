"""bench.departure_evidence: the readings of w it bins (the split at the widest gap, the fold fits'
agreement, the partial slopes test) on cases built so each answer is known; the report's bins."""

from __future__ import annotations

import math

import numpy as np

from bench import departure_evidence as de
from sal_core import Environment


def test_the_split_falls_at_the_widest_gap_among_the_determined_covariates() -> None:
    w = [1.0, 2.0, 500.0, 1000.0, 3.0]
    below, above, gap = de.split_at_widest_gap(w, [True] * 5) or ([], [], 0.0)
    assert sorted(below) == [0, 1, 4] and sorted(above) == [2, 3]
    assert gap == math.log10(500.0) - math.log10(3.0)
    # an undetermined covariate is not read: without covariate 2 the gap runs from 3 to 1000
    below, above, _ = de.split_at_widest_gap(w, [True, True, False, True, True]) or ([], [], 0.0)
    assert above == [3]
    assert de.split_at_widest_gap(w, [True, False, False, False, False]) is None


def test_agreement_is_positive_only_where_every_fold_keeps_every_covariate_on_its_side() -> None:
    evidence = {"low": [1.0, 1.0, 200.0, 300.0], "high": [2.0, 5.0, 900.0, 800.0]}
    assert de.agreement(evidence, [0, 1], [2, 3]) == math.log10(200.0) - math.log10(5.0)
    evidence["high"][1] = 400.0  # one fold fit lifts covariate 1 above covariate 2's lowest
    assert de.agreement(evidence, [0, 1], [2, 3]) < 0


def _two_environments(slope_b: float, seed: int = 0) -> list[Environment]:
    rng = np.random.default_rng(seed)
    envs = []
    for name, slope in (("a", 1.0), ("b", slope_b)):
        x = rng.normal(size=(400, 3))
        y = x[:, 0] * slope + 0.5 * x[:, 1] + rng.normal(scale=0.3, size=400)
        envs.append(Environment(name, x, y))
    return envs


def test_the_partial_slopes_test_reads_only_the_covariates_it_is_given() -> None:
    shifted = _two_environments(slope_b=1.5)
    assert (de.partial_slopes_p(shifted, [0]) or 1.0) < 1e-6  # covariate 0's slope moves
    assert (de.partial_slopes_p(shifted, [1, 2]) or 0.0) > 1e-3  # theirs do not
    alike = _two_environments(slope_b=1.0)
    assert (de.partial_slopes_p(alike, [0]) or 0.0) > 1e-3
    assert de.partial_slopes_p(alike, []) is None


def test_the_report_bins_each_reading_and_counts_the_tails() -> None:
    readings = [
        de.Reading(ratio=1.06, agreement=1.5, gap=2.5, partial_p=0.5, lead=0.0),
        de.Reading(ratio=0.98, agreement=-1.5, gap=0.2, partial_p=0.001, lead=0.01),
    ]
    text = de.report({"records": readings})
    assert "| records | 1 or more | 1 | 1.0600 | 1 | 1 | 0 |" in text
    assert "| records | below -1 | 1 | 0.9800 | 0 | 0 | 1 |" in text
    assert "| records | 0 to 1 | 0 | | | | |" in text
    assert "| records | p ≥ 0.05 (or no test) | 1 | 1.0600 | 1 | 1 | 0 |" in text


def test_a_departure_needs_a_robust_choice_and_a_recorded_w() -> None:
    record = {"candidates": [{"relative": 0.01}, {"relative": None}], "chosen": 0, "w": [1.0],
              "w_evidence": {"low": [1.0], "high": [1.0], "determined": [True]}}  # fmt: skip
    assert de.departed(record)
    assert not de.departed({**record, "chosen": 1})
    assert not de.departed({**record, "w": None})
    assert not de.departed(
        {**record, "w_evidence": {"source": "linear SAL", "w": [1.0]}}
    )  # an MLP's seeded w


def test_the_calibration_test_sees_erm_less_reliable_in_one_environment() -> None:
    # y drives x (anti-causal): where x is noisier, ERM's prediction from x tracks y less closely
    rng = np.random.default_rng(1)

    def env(name: str, noise: float) -> Environment:
        y = rng.normal(size=600)
        x = np.column_stack([y + rng.normal(scale=noise, size=600), rng.normal(size=600)])
        return Environment(name, x, y)

    assert (de.calibration_slopes_p([env("a", 0.3), env("b", 1.5)]) or 1.0) < 1e-6
    assert (de.calibration_slopes_p([env("c", 0.7), env("d", 0.7)]) or 0.0) > 1e-3


def test_the_slopes_excess_is_the_residual_share_removed_beyond_chance() -> None:
    from sal_core.homogeneity import SlopesTest, slopes_test_of

    def excess(envs: list[Environment]) -> float:
        test = slopes_test_of([(e.X, e.y) for e in envs], False)
        assert test is not None and test.df2 is not None
        # by hand: each environment its own slopes and intercept against shared slopes and an
        # intercept per environment, (RSS_shared − RSS_own) / RSS_own minus what chance removes
        x = np.vstack([e.X for e in envs])
        y = np.concatenate([e.y for e in envs])
        dummies = np.repeat(np.eye(len(envs)), [len(e.y) for e in envs], axis=0)
        own = np.hstack([dummies, *[dummies[:, [k]] * x for k in range(len(envs))]])
        rss_shared = de._least_squares(np.hstack([dummies, x]), y)[0]
        rss_own = de._least_squares(own, y)[0]
        value = test.excess
        assert value is not None
        assert math.isclose(value, (rss_shared - rss_own) / rss_own - test.df1 / test.df2, rel_tol=1e-6)
        return value

    assert excess(_two_environments(slope_b=1.5)) > 0.2  # slope 1 against 1.5 on unit noise 0.3
    assert abs(excess(_two_environments(slope_b=1.0))) < 0.01  # the same slopes: chance only
    assert SlopesTest(statistic=9.0, df1=3, df2=None, p_value=0.03).excess is None  # logistic
