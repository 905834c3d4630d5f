"""The compiled exact path (sal_core.exact_compiled) walks the same w-paths as the numpy one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sal_core import exact_batch as eb
from sal_core import exact_compiled as ec
from sal_core import exact_selection as es
from sal_core import get_algorithm
from sal_core.algorithms.sal import LearnedW
from sal_core.data import Environment
from sal_core.paths import exact
from sal_core.synthetic import anti_causal, selection_bias
from tests.sal_core.exact_moments import assert_same_paths, moments_of, stack

ROOT = Path(__file__).resolve().parents[2]


def _gaussian(p: int, n_envs: int, seed: int) -> list[Environment]:
    rng = np.random.default_rng(seed)
    beta = rng.normal(size=p)
    envs = []
    for e in range(n_envs):
        X = rng.normal(size=(300, p)) * (1.0 + e)
        y = X @ beta + rng.normal(size=300) * (0.5 + e)
        envs.append(Environment(f"e{e}", X, y))
    return envs


CASES = {
    "selection bias p=10": selection_bias(r=1.7, n=800, seed=1, n_test=2).train,
    "anti-causal S1": anti_causal(1, seed=3, n_test=2).train,
    "anti-causal S2": anti_causal(2, seed=5, n_test=2).train,
    "gaussian p=5, 4 envs": _gaussian(5, 4, 0),
    "gaussian p=40, 3 envs": _gaussian(40, 3, 1),
    "gaussian p=56, 2 envs (by the shift's series)": _gaussian(56, 2, 2),
    "gaussian p=130, 2 envs (compiled at every p)": _gaussian(130, 2, 3),
    "gaussian p=200, 2 envs (a longer series)": _gaussian(200, 2, 4),
}
assert 40 < ec.SHIFT_FROM_P <= 56  # both ways of reaching the search's μ are compared
assert eb.shift_reuse(130) == eb.SHIFT_REUSE < eb.shift_reuse(200)  # and both reaches of the series


@pytest.mark.parametrize("p", [10, 48, 100, 149, 150, 200, 300, 599, 600, 1000, 5000])
def test_the_series_reaches_farther_as_a_factorisation_costs_more(p: int) -> None:
    """Below 10 × 15 covariates a θ-step refactorises beyond |δ|/μ = 1e-2 (9 terms in floating point);
    from there it allows one more term per 15 covariates, up to 40, and the compiled kernel draws the
    same line."""
    reuse = eb.shift_reuse(p)
    assert ec._shift_reuse(p) == reuse
    allowed = min(eb.SHIFT_TERMS, max(9, p // eb.COVARIATES_PER_TERM))
    terms = eb._terms_at(reuse)  # the ratio's own count may round up by one
    assert allowed <= terms <= min(allowed + 1, eb.SHIFT_TERMS)
    assert (reuse == eb.SHIFT_REUSE) == (p < 150)
    if 150 <= p < 600:
        assert eb._terms_at(reuse * 1.01) > allowed  # no larger ratio takes that many terms


@pytest.mark.parametrize("stability", ["std", "range"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_compiled_paths_equal_the_numpy_paths_round_by_round(case: str, stability: str) -> None:
    m = moments_of(CASES[case])
    p = m.gram.shape[0]
    batch = stack([m, m, m])
    lam = np.array([1e-3, 1e-2, 1e-1]) * es.noise_variance(m, 1000)
    rng = np.random.default_rng(7)
    anchor = rng.random((3, p)) < 0.5
    anchor[0] = False  # no covariate marked: every one may pin
    settings = eb.PathSettings(rounds=250, lr=0.1, w_max=1e4, alpha=0.5, stability=stability)
    want = eb._run_paths_numpy(batch, lam, np.ones((3, p)), settings, anchor, record=True)
    got = ec.run_paths(batch, lam, np.ones((3, p)), settings, anchor, record=True)
    assert got is not None and not got.stopped
    assert_same_paths(got, want)


def test_on_round_sees_path_zero_and_a_stop_ends_the_paths() -> None:
    m = moments_of(CASES["selection bias p=10"])
    p = m.gram.shape[0]
    batch = stack([m, m])
    lam = np.array([1e-3, 1e-1]) * es.noise_variance(m, 1000)
    settings = eb.PathSettings(rounds=50, lr=0.1, w_max=1e4, alpha=0.5, stability="std")
    full = eb._run_paths_numpy(batch, lam, np.ones((2, p)), settings, record=True)
    seen: list[tuple[int, float, np.ndarray]] = []

    def watch(t: int, risk: np.ndarray, losses: np.ndarray, w: np.ndarray) -> bool:
        seen.append((t, float(risk[0]), w[0].copy()))
        return t == 23

    got = ec.run_paths(batch, lam, np.ones((2, p)), settings, on_round=watch)
    assert got is not None and got.stopped
    assert [t for t, _, _ in seen] == list(range(1, 24))
    for t, risk, w in seen:
        assert risk == pytest.approx(full.risks[t - 1, 0], rel=1e-10)
        np.testing.assert_allclose(w, full.ws[t - 1, 0], rtol=1e-10)
    # the paths stop at the end of the chunk that held round 23
    np.testing.assert_allclose(got.w, full.ws[ec.CHUNK * 3], rtol=1e-9)


@pytest.mark.parametrize("record", [False, True])
def test_paths_split_over_threads_walk_bit_for_bit_as_on_one(record: bool) -> None:
    m = moments_of(CASES["gaussian p=56, 2 envs (by the shift's series)"])
    p = m.gram.shape[0]
    batch = stack([m] * 5)
    lam = np.array([1e-3, 1e-2, 1e-1, 1.0, 3e-2]) * es.noise_variance(m, 1000)
    anchor = np.random.default_rng(3).random((5, p)) < 0.5
    settings = eb.PathSettings(rounds=60, lr=0.1, w_max=1e4, alpha=0.5, stability="std")
    runs = {}
    for threads in (1, 2, 3, 8):  # 8 > 5 paths: one group per path
        seen: list[tuple[np.ndarray, ...]] = []

        def watch(
            t: int,
            risk: np.ndarray,
            losses: np.ndarray,
            w: np.ndarray,
            seen: list[tuple[np.ndarray, ...]] = seen,
        ) -> bool:
            seen.append((np.array([t]), risk.copy(), losses.copy(), w.copy()))
            return t == 47

        out = ec.run_paths(
            batch, lam, np.ones((5, p)), settings, anchor, record=record, on_round=watch, threads=threads
        )
        assert out is not None and out.stopped
        runs[threads] = (out, seen)
    one, seen_one = runs[1]
    assert len(seen_one) == 47 and seen_one[0][1].shape == ((5,) if record else (1,))
    assert one.risks.shape[0] == (50 if record else 0)  # the paths ran to the end of round 47's chunk
    for threads in (2, 3, 8):
        out, seen = runs[threads]
        for name in ("w", "theta", "mu", "mse", "kappa", "risks", "env_losses", "ws"):
            np.testing.assert_array_equal(
                getattr(out, name), getattr(one, name), err_msg=f"{threads}: {name}"
            )
        assert len(seen) == len(seen_one)
        for got, want in zip(seen, seen_one, strict=True):
            for a, b in zip(got, want, strict=True):
                np.testing.assert_array_equal(a, b)


def test_the_paths_split_into_even_contiguous_groups_one_thread_each() -> None:
    assert ec._groups(40, 1) == [(0, 40)]
    assert ec._groups(41, 4) == [(0, 10), (10, 20), (20, 30), (30, 41)]
    assert ec._groups(3, 8) == [(0, 1), (1, 2), (2, 3)]
    assert ec._groups(1, 16) == [(0, 1)]


def test_below_threads_from_p_the_paths_stay_on_the_calling_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    m = moments_of(CASES["selection bias p=10"])
    assert m.gram.shape[0] < ec.THREADS_FROM_P
    monkeypatch.setattr(
        ec, "_groups", lambda paths, threads: pytest.fail("split") if threads > 1 else [(0, paths)]
    )
    settings = eb.PathSettings(rounds=5, lr=0.1, w_max=1e4, alpha=0.5, stability="std")
    out = ec.run_paths(stack([m, m]), np.array([1e-2, 1e-1]), np.ones((2, 10)), settings, threads=4)
    assert out is not None


def test_a_default_fit_is_the_same_on_any_number_of_path_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    train = CASES["gaussian p=40, 3 envs"]
    assert train[0].X.shape[1] >= ec.THREADS_FROM_P  # the paths do split
    params = {"score_all": True}  # the slopes look alike here: without it no path would run
    one = get_algorithm("sal")(params).fit(train)
    calls: list[int] = []
    split = ec.run_paths

    def counted(*args: object, threads: int, **kwargs: object) -> eb.PathResult | None:
        calls.append(threads)
        return split(*args, threads=threads, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ec, "run_paths", counted)
    monkeypatch.setattr(eb, "path_threads", lambda: 3)
    three = get_algorithm("sal")(params).fit(train)
    assert calls and set(calls) == {3}  # the selection's batch and the refit were offered three
    assert one.covariate_weights is not None and three.covariate_weights is not None
    np.testing.assert_array_equal(three.covariate_weights, one.covariate_weights)
    for name, value in one.model.state.items():
        np.testing.assert_array_equal(three.model.state[name].numpy(), value.numpy())


def test_path_threads_follow_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    monkeypatch.setattr(torch, "get_num_threads", lambda: 6)
    assert eb.path_threads() == 6


def test_a_default_sal_fit_is_the_same_compiled_or_not(monkeypatch: pytest.MonkeyPatch) -> None:
    train = selection_bias(r=1.7, n=1000, seed=4, n_test=2).train
    compiled = get_algorithm("sal")().fit(train)
    monkeypatch.setattr(eb, "COMPILED_BELOW_P", 0)
    plain = get_algorithm("sal")().fit(train)
    assert compiled.certificate is not None and plain.certificate is not None
    assert compiled.certificate.lambda_ == plain.certificate.lambda_
    for name, value in plain.model.state.items():
        np.testing.assert_allclose(compiled.model.state[name].numpy(), value.numpy(), rtol=1e-9, atol=1e-12)
    assert compiled.covariate_weights is not None and plain.covariate_weights is not None
    np.testing.assert_allclose(np.log(compiled.covariate_weights), np.log(plain.covariate_weights), atol=1e-8)


def test_a_failed_factorisation_reruns_on_the_numpy_path_without_showing_rounds_twice(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    m = moments_of(CASES["selection bias p=10"])
    p = m.gram.shape[0]
    batch = stack([m])
    lam = np.array([1e-2]) * es.noise_variance(m, 1000)
    settings = eb.PathSettings(rounds=30, lr=0.1, w_max=1e4, alpha=0.5, stability="std")
    compiled_run = ec.run_paths

    def fails_in_round_13(*args: object, on_round: eb.RoundHook, **kwargs: object) -> None:
        """The compiled path, ended after round 12 as if a factorisation had failed there."""
        compiled_run(*args, on_round=lambda t, *rest: on_round(t, *rest) or t >= 12, **kwargs)  # type: ignore[arg-type]
        return None

    monkeypatch.setattr(ec, "run_paths", fails_in_round_13)
    told: list[int] = []
    out = eb.run_paths(
        batch, lam, np.ones((1, p)), settings, on_round=lambda t, *rest: told.append(t) or False
    )
    want = eb._run_paths_numpy(batch, lam, np.ones((1, p)), settings)
    np.testing.assert_array_equal(out.w, want.w)
    assert told == list(range(1, 31))  # rounds 1-12 from the compiled path, 13-30 from numpy's, once each


def _factor(chol: np.ndarray) -> np.ndarray:
    """L from the compiled factor, which holds 1/Lᵢᵢ on its diagonal."""
    return np.tril(chol, -1) + np.diag(1.0 / np.diag(chol))


@pytest.mark.parametrize("p", [*range(1, 14), *range(16, 24), 130, 131, 133])
def test_the_blocked_factorisation_and_solves_equal_lapack_at_every_remainder(p: int) -> None:
    """Two or (from ``QUADS_FROM_P``) four columns and four rows at a time (the factorisation), four
    rows and two right-hand sides at a time (the solves): every p mod 4 and every odd p leaves a
    different remainder, on both sides of ``QUADS_FROM_P``."""
    rng = np.random.default_rng(p)
    X = rng.normal(size=(2 * p + 3, p))
    a = X.T @ X / len(X) + 0.1 * np.eye(p)
    chol = np.zeros((p, p))
    assert ec._cholesky(a, chol)
    np.testing.assert_allclose(_factor(chol), np.linalg.cholesky(a), rtol=1e-12, atol=1e-12)
    b0, b1 = rng.normal(size=p), rng.normal(size=p)
    out0, out1, tmp0, tmp1 = (np.empty(p) for _ in range(4))
    ec._chol_solve(chol, b0, out0)
    np.testing.assert_allclose(out0, np.linalg.solve(a, b0), rtol=1e-10, atol=1e-12)
    ec._chol_solve_pair(chol, b0, b1, out0, out1)
    np.testing.assert_allclose(out0, np.linalg.solve(a, b0), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(out1, np.linalg.solve(a, b1), rtol=1e-10, atol=1e-12)
    shift = 1e-3
    ec._shifted_solve_pair(chol, b0, b1, shift, ec._terms_at(shift / 0.1), out0, out1, tmp0, tmp1)
    shifted = a + shift * np.eye(p)
    np.testing.assert_allclose(out0, np.linalg.solve(shifted, b0), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(out1, np.linalg.solve(shifted, b1), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("p", [1, 2, 5, 6, 7, 16, 17, 18, 19, 131])
def test_the_scaled_factorisation_forms_wgw_plus_mu_as_it_reads_the_lower_triangle(p: int) -> None:
    """A = diag(w)·G·diag(w) + μI factorised straight from G's lower triangle (the round's θ-step
    writes no copy of A): equal to LAPACK's factor of A, whatever G's upper triangle holds."""
    rng = np.random.default_rng(100 + p)
    X = rng.normal(size=(2 * p + 3, p))
    g = X.T @ X / len(X)
    w = np.exp(rng.uniform(0.0, 4.0, size=p))
    mu = 0.05
    a = w[:, None] * g * w[None, :] + mu * np.eye(p)
    g_lower = np.tril(g) + np.triu(np.full((p, p), np.nan), 1)  # the upper triangle is never read
    chol = np.zeros((p, p))
    assert ec._cholesky_scaled(g_lower, w, mu, chol)
    want = np.linalg.cholesky(a)
    np.testing.assert_allclose(_factor(chol), want, rtol=1e-11, atol=1e-11 * np.abs(want).max())


def test_the_compiled_cholesky_refuses_a_matrix_that_is_not_positive_definite() -> None:
    out = np.zeros((3, 3))
    assert ec._cholesky(np.diag([1.0, 2.0, 3.0]), out)
    np.testing.assert_allclose(out, np.diag(1.0 / np.sqrt([1.0, 2.0, 3.0])))  # 1/Lᵢᵢ on the diagonal
    assert not ec._cholesky(np.array([[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]]), out)
    assert not ec._cholesky(np.full((3, 3), np.nan), out)


@pytest.mark.parametrize("bad", [0, 1, 2, 3, 16, 17])
def test_four_columns_at_a_time_refuse_a_matrix_that_is_not_positive_definite_at_any_column(bad: int) -> None:
    """A negative pivot at each place of the 4 × 4 diagonal block, and in the last p mod 4 columns,
    which the four-column factorisation reaches one at a time (p = 18 ≥ ``QUADS_FROM_P``)."""
    p = 18
    assert p >= ec.QUADS_FROM_P
    a = np.eye(p)
    out = np.zeros((p, p))
    assert ec._cholesky(a, out)
    a[bad, bad] = -1.0
    assert not ec._cholesky(a, out)
    a[bad, bad] = 1.0
    a[bad, (bad + 1) % p] = a[(bad + 1) % p, bad] = 2.0  # indefinite: |off-diagonal| > 1
    assert not ec._cholesky(a, out)


def test_without_numba_sal_core_fits_the_same_model_on_numpy() -> None:
    """numba is optional to sal_core (torch and numpy are its stack): without it the paths run on numpy."""
    code = (
        "import json, sys; sys.modules['numba'] = None\n"
        "import numpy as np\n"
        "from sal_core import exact_batch as eb, get_algorithm\n"
        "from sal_core.synthetic import selection_bias\n"
        "assert not eb.runs_compiled(10)\n"
        "fit = get_algorithm('sal')().fit(selection_bias(r=1.7, n=1000, seed=4, n_test=2).train)\n"
        "print(json.dumps(np.log(fit.covariate_weights).tolist()))\n"
        "print('numba' in sys.modules and sys.modules['numba'] is not None)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    log_w, loaded = out.stdout.strip().splitlines()
    assert loaded == "False"
    compiled = get_algorithm("sal")().fit(selection_bias(r=1.7, n=1000, seed=4, n_test=2).train)
    assert eb.runs_compiled(10) and compiled.covariate_weights is not None
    np.testing.assert_allclose(json.loads(log_w), np.log(compiled.covariate_weights), atol=1e-8)


@pytest.mark.parametrize("anchor", ["auto", "significant"])
@pytest.mark.parametrize("case", ["selection bias p=10", "anti-causal S1"])
def test_a_fixed_lambda_w_path_runs_batched_with_the_rounds_of_the_loop(case: str, anchor: str) -> None:
    """At a fixed λ the default w-step runs as a batch of one (compiled): the same rounds as the
    round-by-round loop, to rounding, and a stop leaves the fit where the loop leaves it."""
    m = moments_of(CASES[case])
    params = get_algorithm("sal")({"lambda_": 0.01, "anchor": anchor}).params
    w_step = LearnedW(params, "exact")
    lam = 1e-2 * es.noise_variance(m, 1000)
    n_rows = sum(len(e.y) for e in CASES[case])
    for stop in (None, 37):
        told: list[list[int]] = [[], []]

        def watcher(seen: list[int], stop: int | None = stop) -> exact.OnRound:
            return lambda t, risk, w: seen.append(t) or t == stop

        batched = exact.learn_w(m, lam, n_rows, w_step, watcher(told[0]))
        loop = exact.learn_w_by_rounds(m, lam, n_rows, w_step, watcher(told[1]))
        assert batched.stopped == loop.stopped == (stop is not None)
        assert told[1] == list(range(1, (stop or 400) + 1)) and told[0][: len(told[1])] == told[1]
        assert [r[0] for r in batched.rounds] == [r[0] for r in loop.rounds]
        for (_, risk_b, w_b, loss_b), (_, risk_l, w_l, loss_l) in zip(
            batched.rounds, loop.rounds, strict=True
        ):
            assert risk_b == pytest.approx(risk_l, rel=1e-5)
            np.testing.assert_allclose(np.log(w_b), np.log(w_l), atol=1e-5)
            np.testing.assert_allclose(loss_b, loss_l, rtol=1e-5)
        np.testing.assert_allclose(np.log(batched.w), np.log(loop.w), atol=1e-5)
        np.testing.assert_allclose(
            batched.step.theta, loop.step.theta, atol=1e-6 * np.abs(loop.step.theta).max()
        )
        assert stop is not None or np.log(loop.w).max() > 0.1  # the whole path moved


def test_warm_up_compiles_the_kernel_a_fit_then_runs() -> None:
    code = (
        "from sal_core import exact_compiled as ec\n"
        "assert not ec._run.signatures\n"
        "ec.warm_up()\n"
        "warm = list(ec._run.signatures)\n"
        "from sal_core import get_algorithm\n"
        "from sal_core.synthetic import selection_bias\n"
        "get_algorithm('sal')().fit(selection_bias(r=1.7, n=300, seed=0, n_test=2).train)\n"
        "assert len(warm) == 1 and list(ec._run.signatures) == warm, (warm, ec._run.signatures)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)  # a fit needs no other version


def test_a_kernel_that_cannot_load_leaves_the_numpy_path() -> None:
    """numba installed but unusable (say, no writable cache): a warning, and the numpy path runs."""
    code = (
        "import sys; sys.modules['sal_core.exact_compiled'] = None\n"
        "from sal_core import exact_batch as eb, get_algorithm\n"
        "from sal_core.synthetic import selection_bias\n"
        "assert not eb.runs_compiled(10)\n"
        "get_algorithm('sal')().fit(selection_bias(r=1.7, n=300, seed=0, n_test=2).train)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert "compiled w-paths unavailable, the numpy path runs" in out.stderr
