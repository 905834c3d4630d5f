"""app.jobs.validation: the seeded split of training environments (the paper benchmark's split)."""

from __future__ import annotations

import numpy as np

import bench.cells
import worker.runner
from app.jobs.validation import pooled_error, validation_result
from sal_core import Environment, get_algorithm
from sal_core.data import split_environments


def _envs() -> list[Environment]:
    rng = np.random.default_rng(0)
    return [Environment(n, rng.normal(size=(k, 3)), rng.normal(size=k)) for n, k in (("a", 50), ("b", 7))]


def test_split_holds_out_a_seeded_share_of_every_environment() -> None:
    train, valid = split_environments(_envs(), 0.2, seed=4)
    assert [e.n_rows for e in train] == [40, 6] and [e.n_rows for e in valid] == [10, 1]
    assert [e.name for e in valid] == ["a", "b"]
    again, _ = split_environments(_envs(), 0.2, seed=4)
    assert all(np.array_equal(x.X, y.X) for x, y in zip(train, again, strict=True))
    other, _ = split_environments(_envs(), 0.2, seed=5)
    assert not np.array_equal(train[0].X, other[0].X)
    rows = {tuple(r) for e in (*train, *valid) for r in e.X}
    assert len(rows) == 57  # a partition: nothing lost, nothing duplicated


def test_jobs_and_the_benchmark_draw_the_same_split() -> None:
    """One implementation in sal_core, so a sweep draws as the paper benchmark does; the worker
    draws on the rows in ``in_canonical_order`` (tests/app/test_order_invariance.py), the benchmark
    on its generator's order."""
    assert worker.runner.split_environments is split_environments
    assert bench.cells.split_environments is split_environments


def test_validation_error_is_pooled_mse() -> None:
    train, valid = split_environments(_envs(), 0.2, seed=1)
    model = get_algorithm("erm")(task="regression", seed=0).fit(train).model
    X = np.concatenate([e.X for e in valid])
    y = np.concatenate([e.y for e in valid])
    assert pooled_error(model, valid) == np.mean((model.predict(X) - y) ** 2)
    block = validation_result(model, valid)
    assert (
        block["metric"] == "mse"
        and block["n_rows"] == 11
        and [e["name"] for e in block["environments"]] == ["a", "b"]
    )
