"""The standard error of a difference of worst-environment scores (sal_core.score_noise)."""

from __future__ import annotations

import numpy as np
import pytest

from sal_core import score_noise
from sal_core.lambda_selection import score_of


def _close_environments(rng: np.random.Generator) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Two environments whose losses are nearly equal; candidate c loses a little more than b on the
    first and a little less on the second, row by row, so the worst environment often differs
    between them while their scores differ by little."""
    b = [rng.chisquare(1, 200), rng.chisquare(1, 200)]
    c = [b[0] * 1.05 + rng.normal(0, 0.02, 200) ** 2, b[1] * 0.97 + rng.normal(0, 0.02, 200) ** 2]
    return c, b


@pytest.mark.parametrize("squared", [True, False])
def test_standard_error_matches_the_spread_over_fresh_rows_where_the_worst_environment_flips(
    squared: bool,
) -> None:
    rng = np.random.default_rng(0)
    diffs, estimates, flips = [], [], 0
    for _ in range(400):
        c, b = _close_environments(rng)
        flips += _worst(c) != _worst(b)
        diffs.append(score_of(c, squared)[0] - score_of(b, squared)[0])
        estimates.append(score_noise.of_rows(c, b, squared))
    truth = float(np.std(diffs))
    assert flips > 20  # the case the delta method misreads does occur in these draws
    assert float(np.median(estimates)) == pytest.approx(truth, rel=0.25)
    # the delta method at the worst environments misreads both cases: it pairs nothing where they
    # differ, and where they agree it ignores that they might not
    draws = [_close_environments(rng) for _ in range(100)]
    flipped = [_worst(c) != _worst(b) for c, b in draws]
    delta = np.array([_delta_method(c, b, squared) for c, b in draws])
    assert 0 < sum(flipped) < len(draws)
    assert float(np.median(delta[np.array(flipped)])) > 2 * truth
    assert float(np.median(delta[~np.array(flipped)])) < truth / 2


def _worst(losses: list[np.ndarray]) -> int:
    return int(np.argmax([np.mean(e) for e in losses]))


def _delta_method(c: list[np.ndarray], b: list[np.ndarray], squared: bool) -> float:
    """The linearisation at each candidate's worst environment (the rule before score_noise)."""

    def gradient(losses: list[np.ndarray]) -> np.ndarray:
        means = np.array([np.mean(e) for e in losses])
        g, top = np.zeros(len(losses)), int(np.argmax(means))
        g[top] = 0.5 / np.sqrt(means[top]) if squared else 1.0
        return g

    g_c, g_b = gradient(c), gradient(b)
    return float(
        np.sqrt(sum(np.var(g_c[e] * c[e] - g_b[e] * b[e], ddof=1) / len(c[e]) for e in range(len(c))))
    )


def test_the_answer_does_not_depend_on_the_order_of_the_environments() -> None:
    rng = np.random.default_rng(1)
    c = [rng.chisquare(1, n) * s for n, s in ((50, 1.0), (80, 1.1), (30, 0.9))]
    b = [env * 0.95 + rng.normal(0, 0.1, env.shape) ** 2 for env in c]
    se = score_noise.of_rows(c, b, True)
    for order in ([2, 0, 1], [1, 2, 0]):
        assert score_noise.of_rows([c[i] for i in order], [b[i] for i in order], True) == se


def test_identical_candidates_and_empty_environments() -> None:
    rng = np.random.default_rng(2)
    same = [rng.chisquare(1, 40), rng.chisquare(1, 60)]
    assert score_noise.of_rows(same, same, True) == 0.0
    other = [same[0] * 1.1, same[1]]
    with_empty = score_noise.of_rows([*other, np.array([])], [*same, np.array([])], False)
    assert with_empty == score_noise.of_rows(other, same, False) > 0.0
