"""lambda_='auto' from summed out-of-fold losses (issue 19): scores and paired standard errors from
:class:`LossStats` equal those from the per-row losses, sums of chunks add up, and the exact
selection fed by chunk sums makes the in-memory choice."""

from __future__ import annotations

import numpy as np
import pytest

from sal_core import cross_fit, get_algorithm
from sal_core import exact_selection as es
from sal_core import lambda_selection as ls
from sal_core import loss_stats as lstats
from sal_core.loss_stats import LossStats
from sal_core.synthetic import anti_causal

Array = np.ndarray


def _losses(seed: int, close: float) -> list[list[Array]]:
    """Per candidate, per environment, per-row squared errors: candidates 1 and 2 differ from 0 by
    ``close`` (relative) on each row, the others by a lot; env 2 is the worst for some."""
    rng = np.random.default_rng(seed)
    sizes = [700, 1300, 401]
    out = []
    for c in range(5):
        per_env = []
        for e, n in enumerate(sizes):
            r = np.random.default_rng(seed * 10 + e).normal(size=n) * (1.0 + 0.4 * e)
            shift = close * (c + 1) * rng.normal(size=n) if c in (1, 2) else (0.3 * c if c > 2 else 0.0)
            per_env.append((r + shift * (1 + abs(r))) ** 2)
        out.append(per_env)
    return out


def _stats(losses: list[list[Array]]) -> LossStats:
    n_envs = len(losses[0])
    return LossStats.of_rows([np.column_stack([c[e] for c in losses]) for e in range(n_envs)])


@pytest.mark.parametrize("close", [1e-2, 1e-5, 1e-8])
@pytest.mark.parametrize("squared", [True, False])
def test_scores_and_paired_se_equal_the_per_row_ones(close: float, squared: bool) -> None:
    losses = _losses(3, close)
    stats = _stats(losses)
    for c in range(len(losses)):
        score, per_env = lstats.score_of(stats, c, squared)
        want, want_env = ls.score_of(losses[c], squared)
        assert score == pytest.approx(want, rel=1e-14)
        assert per_env == pytest.approx(want_env, rel=1e-14)
        for b in range(len(losses)):
            if b == c:
                continue
            se = lstats.paired_se(stats, c, b, squared)
            assert se == pytest.approx(ls.paired_se(losses[c], losses[b], squared), rel=1e-12), (c, b)


def test_sums_of_chunks_add_up_to_the_whole() -> None:
    losses = _losses(5, 1e-4)
    whole = _stats(losses)
    cut = [0, 100, 333, 999, 2401]
    parts = []
    for lo, hi in zip(cut[:-1], cut[1:], strict=True):
        parts.append(_stats([[env[lo:hi] for env in c] for c in losses]))
    total = parts[0]
    for one in parts[1:]:
        total = total + one
    for name in ("n", "total", "square", "diff_sq", "diff_cross"):
        np.testing.assert_allclose(getattr(total, name), getattr(whole, name), rtol=1e-12, atol=1e-9)
    for c in range(1, 5):
        assert lstats.paired_se(total, c, 0, True) == pytest.approx(
            lstats.paired_se(whole, c, 0, True), rel=1e-10
        )


def test_take_keeps_the_listed_environments_in_order() -> None:
    stats = _stats(_losses(1, 1e-3))
    two = stats.take([2, 0])
    assert two.n.tolist() == [stats.n[2], stats.n[0]]
    np.testing.assert_array_equal(two.diff_sq[0], stats.diff_sq[2])


def test_selection_from_chunk_sums_is_the_in_memory_selection() -> None:
    """select_from_sums fed by sums of row chunks (as a table read in parts gives them) makes the
    choice :func:`es.select` makes from the rows in memory, with the same coefficients."""
    s = anti_causal(1, seed=101)
    sal = get_algorithm("sal")({"repeats": 1}, seed=101)  # one split (several: tests/app/test_outofcore.py)
    memory = sal.fit(s.train)
    problem = sal._problem(s.train, memory.model.standardizer)
    y_scale = float(problem.y.std())
    plan = sal.exact_plan()
    want = es.select(problem, y_scale, plan, lambda *_: False)

    k = plan.folds
    st = memory.model.standardizer
    scale = cross_fit.KeyScale.of(st.mean, st.scale, [e.y for e in s.train])
    keys = np.concatenate([cross_fit.row_keys(e.X, e.y, None, scale) for e in s.train])
    folds = cross_fit.folds_of(keys, 101, k)
    Z = problem.Z.double().numpy()
    y = problem.y.double().numpy() / y_scale
    env = problem.env_index.numpy()
    bounds = np.linspace(0, len(y), 7).astype(int)

    def chunk_stats(fits: es.FoldFits) -> LossStats:
        total = None
        for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
            rows = np.arange(lo, hi)
            per_env = [
                es.oof_losses(
                    Z[rows][env[rows] == e],
                    y[rows][env[rows] == e],
                    folds[rows][env[rows] == e],
                    fits,
                    y_scale,
                )
                for e in range(problem.n_envs)
            ]
            one = LossStats.of_rows(per_env)
            total = one if total is None else total + one
        assert total is not None
        return total

    sums = cross_fit.fold_sums(
        problem.Z,
        problem.y / y_scale,
        problem.env_index,
        problem.Z.new_tensor(folds).long(),
        problem.n_envs,
        k,
    )
    got = es.select_from_sums([sums], plan, lambda *_: False, chunk_stats, [e.name for e in problem.envs])
    assert got.selection.chosen == want.selection.chosen
    np.testing.assert_array_equal(got.w, want.w)
    np.testing.assert_array_equal(got.step.theta, want.step.theta)
    np.testing.assert_array_equal(got.theta, want.theta)
    assert got.certificate == want.certificate
    for a, b in zip(got.selection.candidates, want.selection.candidates, strict=True):
        assert (a.relative, a.variant) == (b.relative, b.variant)
        assert a.score == pytest.approx(b.score, rel=1e-12)
        assert a.se == pytest.approx(b.se, rel=1e-9, abs=1e-15)
