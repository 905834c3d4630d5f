"""The paper's generators: determinism, sizes, and the distribution shifts they are meant to make."""

from __future__ import annotations

import numpy as np
import pytest

from sal_core import get_algorithm
from sal_core.data import Environment
from sal_core.exceptions import InvalidParameterError
from sal_core.metrics import evaluate
from sal_core.synthetic import TEST_RS, anti_causal, selection_bias, stable_coefficients, toy

# The paper's ERM row for anti-causal scenario 1 (Table 4), e1 … e10, RMSE.
PAPER_ANTI_CAUSAL_ERM = np.array([0.281, 0.305, 0.341, 0.461, 0.555, 0.636, 0.703, 0.733, 0.765, 0.824])
# How far a 15-seed mean of ERM's RMSE may sit from that row. Measured over 400 seeds: the 5th-95th
# percentile of (15-seed mean - paper) is within ±0.02 on e1-e3, within [-0.03, 0.10] on e4-e7 and
# within [0.00, 0.19] on e8-e10 (the paper's e8-e10 sit at the low end of the seed spread).
ANTI_CAUSAL_TOLERANCE = np.array([0.03] * 3 + [0.1] * 4 + [0.2] * 3)


def _same(a: list[Environment], b: list[Environment]) -> bool:
    return all(
        x.name == y.name and np.array_equal(x.X, y.X) and np.array_equal(x.y, y.y)
        for x, y in zip(a, b, strict=True)
    )


def _corr(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.corrcoef(a, b)[0, 1])


def _structural_fit(env: Environment, n_s: int) -> np.ndarray:
    """Least squares of y on [S, S1·S2·S3, 1]: recovers (θ_s, β) wherever P(Y | S) is the paper's."""
    S = env.X[:, :n_s]
    design = np.column_stack([S, S[:, 0] * S[:, 1] * S[:, 2], np.ones(len(env.y))])
    return np.linalg.lstsq(design, env.y, rcond=None)[0][:-1]


@pytest.mark.parametrize(
    "make",
    [
        lambda seed: toy(seed=seed, n_test=50),
        lambda seed: selection_bias(n=200, n_test=50, seed=seed),
        lambda seed: anti_causal(seed=seed, n_train=(60, 30, 20), n_test=30),
    ],
    ids=["toy", "selection_bias", "anti_causal"],
)
def test_generators_are_deterministic_under_a_seed(make) -> None:  # type: ignore[no-untyped-def]
    a, b, c = make(4), make(4), make(5)
    assert _same(a.train + a.test, b.train + b.test)
    assert not np.array_equal(a.train[0].X, c.train[0].X)


def test_selection_bias_sizes_names_and_columns() -> None:
    st = selection_bias(r=2.0, n=400, kappa=0.9, p=10, n_test=300, seed=1)
    assert [e.name for e in st.train] == ["r=2", "r=-1.1"]
    assert [e.n_rows for e in st.train] == [360, 40]
    assert [e.name for e in st.test] == [f"test r={r:g}" for r in TEST_RS]
    assert all(e.n_rows == 300 and e.X.shape == (300, 10) for e in st.test)
    assert st.feature_names == ["S1", "S2", "S3", "S4", "S5", "V1", "V2", "V3", "V4", "V5"]
    assert st.stable == [0, 1, 2, 3, 4] and st.task == "regression"
    np.testing.assert_allclose(stable_coefficients(7), [1 / 3, -2 / 3, 1, -1 / 3, 2 / 3, -1, 1 / 3])


def test_selection_bias_corr_of_v_b_and_y_follows_the_sign_and_size_of_r() -> None:
    st = selection_bias(r=1.7, n=1000, n_test=1000, seed=2)
    for env, r in zip(st.train + st.test, [1.7, -1.1, *TEST_RS], strict=True):
        assert np.sign(_corr(env.X[:, 5], env.y)) == np.sign(r), env.name
        # The unselected V covariates stay uncorrelated with y (4 standard errors of a null correlation).
        assert abs(_corr(env.X[:, 6], env.y)) < 4 / np.sqrt(env.n_rows), env.name
    strength = {r: abs(_corr(e.X[:, 5], e.y)) for e, r in zip(st.test, TEST_RS, strict=True)}
    assert strength[3.0] > strength[1.3] and strength[-3.0] > strength[-1.3]


def test_selection_bias_keeps_p_y_given_s_invariant() -> None:
    st = selection_bias(r=2.0, n=2000, n_test=1500, n_b=2, seed=3)
    truth = np.append(stable_coefficients(5), 1.0)
    for env in st.train[:1] + st.test:
        np.testing.assert_allclose(_structural_fit(env, 5), truth, atol=0.06, err_msg=env.name)
    # ...while V_b's tie to y flips with r: the selection, not the mechanism, makes the shift.
    assert _corr(st.test[0].X[:, 6], st.test[0].y) < -0.3 < 0.3 < _corr(st.test[-1].X[:, 6], st.test[-1].y)


def test_selection_bias_classification_labels_and_selection() -> None:
    st = selection_bias(task="classification", n=600, n_test=600, seed=0)
    assert st.task == "classification"
    for env, r in zip(st.train + st.test, [1.7, -1.1, *TEST_RS], strict=True):
        assert set(np.unique(env.y)) == {0.0, 1.0}
        assert np.sign(_corr(env.X[:, 5], env.y)) == np.sign(r), env.name


@pytest.mark.parametrize(
    "kwargs",
    [
        {"r": 1.0},
        {"r": -0.5},
        {"test_rs": (2.0, 0.9)},
        {"kappa": 1.0},
        {"p": 4},
        {"n_b": 0},
        {"task": "ranking"},
    ],
)
def test_selection_bias_rejects_bad_settings(kwargs: dict[str, object]) -> None:
    with pytest.raises(InvalidParameterError):
        selection_bias(n=100, n_test=20, **kwargs)  # type: ignore[arg-type]


def test_toy_sizes_and_mechanism() -> None:
    st = toy(seed=0, n_test=2000)
    assert [e.n_rows for e in st.train] == [180, 20]
    assert len(st.test) == 9 and st.test[0].name == "test alpha=-2" and st.test[-1].name == "test alpha=2"
    assert st.feature_names == ["S", "V"] and st.stable == [0]
    for env, alpha in zip(st.test, np.arange(-2.0, 2.01, 0.5), strict=True):
        S, V = env.X[:, 0], env.X[:, 1]
        coef = np.linalg.lstsq(np.column_stack([S, S**2, np.ones_like(S)]), env.y, rcond=None)[0]
        np.testing.assert_allclose(coef[:2], [5.0, 1.0], atol=0.05)
        assert np.std(S) == pytest.approx(0.5, rel=0.05)
        if alpha != 0.0:
            assert np.sign(_corr(V, env.y)) == np.sign(alpha)


def test_anti_causal_sizes_and_mechanism() -> None:
    for scenario, (n_s, n_v) in ((1, (5, 5)), (2, (9, 1))):
        st = anti_causal(scenario=scenario, seed=0)
        assert [e.n_rows for e in st.train] == [1800, 150, 50]
        assert [e.n_rows for e in st.test] == [1000] * 7
        assert [e.name for e in st.train + st.test] == ["e1", "e2", "e3"] + [
            f"test e{i}" for i in range(4, 11)
        ]
        assert st.train[0].X.shape[1] == n_s + n_v and st.stable == list(range(n_s))
        # S ~ N(μ_e, I): the last two stable covariates carry the component means.
        np.testing.assert_allclose(st.train[0].X[:, n_s - 2 : n_s].mean(0), [1.0, 1.0], atol=0.1)
        np.testing.assert_allclose(st.test[0].X[:, n_s - 2 : n_s].mean(0), [-1.0, -1.0], atol=0.15)
        # Y | S is the same everywhere; V's tie to Y weakens as its noise variance grows.
        coefs = [_structural_fit(e, n_s) for e in st.train[:1] + st.test]
        np.testing.assert_allclose(coefs, np.repeat(coefs[:1], len(coefs), axis=0), atol=0.1)
        v_tie = [abs(_corr(e.X[:, n_s], e.y)) for e in (st.train[0], st.test[-1])]
        assert v_tie[0] > v_tie[1]


def test_anti_causal_erm_reproduces_the_papers_row() -> None:
    rows = []
    for seed in range(15):  # the paper averages 15 runs
        st = anti_causal(scenario=1, seed=seed)
        fit = get_algorithm("erm")().fit(st.train)
        per_env, _ = evaluate(fit.model, st.train + st.test)
        rows.append([m["rmse"] for m in per_env.values()])
    mean = np.mean(rows, axis=0)
    assert np.all(np.abs(mean - PAPER_ANTI_CAUSAL_ERM) <= ANTI_CAUSAL_TOLERANCE), np.round(mean, 3)
    assert np.all(np.diff(mean[3:]) > 0), "ERM's error grows as V's tie to Y weakens"
