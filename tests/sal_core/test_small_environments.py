"""lambda_="auto" on a training environment of a few rows: cross-fitting still holds out and trains
on rows of it (hashing alone once left all its rows in one fold: an SVD of NaN moments, or no
finite score), and the folds stay a function of the rows' content."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from sal_core import get_algorithm
from sal_core.cross_fit import dealt_where_a_fold_is_empty, fold_sums, folds_of, row_keys
from sal_core.data import Environment
from sal_core.exact_selection import _check_every_fold_trains_on_every_environment
from sal_core.exceptions import InvalidDataError


def _environments(seed: int, sizes: tuple[int, ...], classification: bool = False) -> list[Environment]:
    rng = np.random.default_rng(seed)
    envs = []
    for i, n in enumerate(sizes):
        X = rng.standard_normal((n, 4))
        y = X @ np.array([1.0, -0.5, 0.25, 0.0]) + 0.5 * rng.standard_normal(n)
        envs.append(Environment(f"e{i}", X, (y > 0).astype(float) if classification else y))
    return envs


@pytest.mark.parametrize("seed", range(16))  # seed 13 put the two rows in one fold
def test_sal_fits_with_an_environment_of_two_rows(seed: int) -> None:
    fit = get_algorithm("sal")().fit(_environments(seed, (2, 3, 200)))
    assert np.isfinite(fit.predict(np.zeros((1, 4)))).all()
    assert fit.covariate_weights is not None and np.isfinite(fit.covariate_weights).all()


@pytest.mark.parametrize("seed", range(2))
def test_classification_fits_with_an_environment_of_three_rows(seed: int) -> None:
    fit = get_algorithm("sal")(task="classification").fit(_environments(seed, (3, 200), classification=True))
    assert np.isfinite(fit.predict(np.zeros((1, 4)))).all()


def test_dealing_fills_every_fold_keeps_full_environments_and_ignores_row_order() -> None:
    rng = np.random.default_rng(0)
    k, sizes = 5, [2, 7, 400]
    X, y = rng.standard_normal((sum(sizes), 3)), rng.standard_normal(sum(sizes))
    keys = row_keys(X, y)
    hashed = folds_of(keys, 0, k)
    dealt = dealt_where_a_fold_is_empty(keys, hashed, sizes, 0, k)
    assert sorted(dealt[:2].tolist()) == [0, 1]  # two rows: held out in folds 0 and 1
    assert set(dealt[2:9].tolist()) == set(range(k))  # seven rows: every fold holds one out
    assert np.array_equal(dealt[9:], hashed[9:])  # 400 rows hashed into every fold: kept
    # Shuffle the seven-row environment: each row keeps its fold.
    order = np.concatenate([np.arange(2), 2 + rng.permutation(7), np.arange(9, sum(sizes))])
    keys2 = row_keys(X[order], y[order])
    again = dealt_where_a_fold_is_empty(keys2, folds_of(keys2, 0, k), sizes, 0, k)
    assert np.array_equal(again, dealt[order])


def test_fold_sums_with_an_environment_in_one_fold_get_a_clear_error() -> None:
    """Chunked fits hash rows alone: an environment whose rows all land in one fold is named."""
    rng = np.random.default_rng(1)
    Z, y = torch.as_tensor(rng.standard_normal((12, 3))), torch.as_tensor(rng.standard_normal(12))
    env_index = torch.as_tensor([0, 0] + [1] * 10)
    folds = torch.as_tensor([2, 2] + [0, 1, 2, 3, 4] * 2)
    sums = fold_sums(Z, y, env_index, folds, n_envs=2, k=5)
    with pytest.raises(InvalidDataError, match="'tiny' has 2 row"):
        _check_every_fold_trains_on_every_environment(sums, ["tiny", "big"])
    spread = fold_sums(Z, y, env_index, torch.as_tensor([2, 3] + [0, 1, 2, 3, 4] * 2), n_envs=2, k=5)
    _check_every_fold_trains_on_every_environment(spread, ["tiny", "big"])  # no error
