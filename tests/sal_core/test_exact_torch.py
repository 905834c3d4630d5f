"""The w-paths as torch tensors (sal_core.exact_torch), run here on the CPU's tensors, walk the numpy
path's rounds; run_paths sends a batch there only on an accelerator, from DEVICE_FROM_P covariates."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from sal_core import exact_batch as eb
from sal_core import exact_selection as es
from sal_core import exact_torch as et
from tests.sal_core.exact_moments import assert_same_paths, moments_of, stack
from tests.sal_core.test_exact_compiled import CASES

CPU = torch.device("cpu")
TORCH_CASES = (
    "anti-causal S1",
    "gaussian p=5, 4 envs",
    "gaussian p=56, 2 envs (by the shift's series)",
    "gaussian p=200, 2 envs (a longer series)",
)


@pytest.mark.parametrize("stability", ["std", "range"])
@pytest.mark.parametrize("case", TORCH_CASES)
def test_torch_paths_equal_the_numpy_paths_round_by_round(case: str, stability: str) -> None:
    m = moments_of(CASES[case])
    p = m.gram.shape[0]
    batch = stack([m, m, m])
    lam = np.array([1e-3, 1e-2, 1e-1]) * es.noise_variance(m, 1000)
    anchor = np.random.default_rng(7).random((3, p)) < 0.5
    anchor[0] = False  # no covariate marked: every one may pin
    settings = eb.PathSettings(rounds=250, lr=0.1, w_max=1e4, alpha=0.5, stability=stability)
    want = eb._run_paths_numpy(batch, lam, np.ones((3, p)), settings, anchor, record=True)
    got = et.run_paths(batch, lam, np.ones((3, p)), settings, anchor, device=CPU, record=True)
    assert not got.stopped
    assert_same_paths(got, want)


def test_an_unrecorded_run_ends_where_a_recorded_one_does() -> None:
    m = moments_of(CASES["selection bias p=10"])
    p = m.gram.shape[0]
    batch, lam = stack([m, m]), np.array([1e-3, 1e-1]) * es.noise_variance(m, 1000)
    settings = eb.PathSettings(rounds=80, lr=0.1, w_max=1e4, alpha=0.5, stability="std")
    recorded = et.run_paths(batch, lam, np.ones((2, p)), settings, device=CPU, record=True)
    plain = et.run_paths(batch, lam, np.ones((2, p)), settings, device=CPU)
    assert plain.risks.shape == (0, 2) and plain.ws.shape == (0, 2, p) and plain.env_losses.shape == (0, 2, 2)
    assert recorded.risks.shape == (80, 2) and recorded.ws.shape == (80, 2, p)
    np.testing.assert_array_equal(plain.w, recorded.w)


def test_on_round_sees_every_round_and_a_stop_ends_the_paths() -> None:
    m = moments_of(CASES["selection bias p=10"])
    p = m.gram.shape[0]
    batch, lam = stack([m, m]), np.array([1e-3, 1e-1]) * es.noise_variance(m, 1000)
    settings = eb.PathSettings(rounds=50, lr=0.1, w_max=1e4, alpha=0.5, stability="std")
    full = eb._run_paths_numpy(batch, lam, np.ones((2, p)), settings, record=True)
    seen: list[tuple[int, float, np.ndarray]] = []

    def watch(t: int, risk: np.ndarray, losses: np.ndarray, w: np.ndarray) -> bool:
        assert isinstance(risk, np.ndarray) and isinstance(losses, np.ndarray) and isinstance(w, np.ndarray)
        seen.append((t, float(risk[0]), w[0].copy()))
        return t == 23

    got = et.run_paths(batch, lam, np.ones((2, p)), settings, device=CPU, on_round=watch)
    assert got.stopped
    assert [t for t, _, _ in seen] == list(range(1, 24))
    for t, risk, w in seen:
        assert risk == pytest.approx(full.risks[t - 1, 0], rel=1e-9)
        np.testing.assert_allclose(w, full.ws[t - 1, 0], rtol=1e-9)
    np.testing.assert_allclose(got.w, full.ws[23], rtol=1e-9)  # w after round 23, where the loop stopped


def test_a_theta_step_falls_back_to_the_eigendecomposition_where_cholesky_fails() -> None:
    """A duplicated covariate makes wGw singular; at a μ far below the floor's scale a factorisation
    can fail, and then the θ-step decomposes A instead. Both ways give the numpy path's θ-step."""
    envs = CASES["gaussian p=5, 4 envs"]
    m = moments_of([type(e)(e.name, np.column_stack([e.X, e.X[:, 0]]), e.y) for e in envs])
    batch = stack([m, m])
    p = m.gram.shape[0]
    w = np.exp(np.random.default_rng(1).uniform(0.0, 2.0, (2, p)))
    lam = np.array([1e-3, 1e-1]) * es.noise_variance(m, 1000)
    want = eb._solve_theta_eigh(
        batch, w, w[:, :, None] * batch.gram * w[:, None, :], w * batch.cross, lam, None, 100
    )
    dm = et.DeviceMoments.of(batch, CPU)
    w_t, lam_t = torch.as_tensor(w), torch.as_tensor(lam)
    wg = w_t[:, :, None] * dm.gram * w_t[:, None, :]
    by_eigh = et._solve_theta_eigh(dm, w_t, wg, w_t * dm.cross, lam_t, None)
    by_step = et.solve_theta(dm, w_t, lam_t, None)
    for got in (by_eigh, by_step):
        np.testing.assert_allclose(
            got.theta.numpy(), want.theta, rtol=0, atol=1e-8 * np.abs(want.theta).max()
        )
        np.testing.assert_allclose(got.mu.numpy(), want.mu, rtol=1e-8)
    x = torch.as_tensor(np.random.default_rng(2).normal(size=(2, p, 2)))
    a = wg + by_eigh.mu[:, None, None] * torch.eye(p, dtype=torch.float64)
    np.testing.assert_allclose((a @ by_eigh.solve(x)).numpy(), x.numpy(), atol=1e-8)


def test_paths_run_on_the_device_only_on_an_accelerator_and_from_the_threshold(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert math.isinf(eb.DEVICE_FROM_P)  # off until whole fits are timed on a GPU
    assert not eb.runs_on_device(torch.device("cuda"), 10**6)
    monkeypatch.setattr(eb, "DEVICE_FROM_P", 100)
    assert eb.runs_on_device(torch.device("cuda"), 100) and eb.runs_on_device(torch.device("meta"), 300)
    assert not eb.runs_on_device(torch.device("cuda"), 99)
    assert not eb.runs_on_device(CPU, 10**6)  # the CPU runs the compiled kernel


def test_a_selection_on_the_device_chooses_what_the_cpu_chooses(monkeypatch: pytest.MonkeyPatch) -> None:
    """A default SAL fit whose w-paths take the torch path (here on the CPU's tensors, through
    run_paths as an accelerator's fit would) returns the fit the compiled path returns."""
    from sal_core import get_algorithm

    train = CASES["anti-causal S1"]
    want = get_algorithm("sal")(seed=0).fit(train)
    real = et.run_paths
    calls: list[int] = []

    def on_cpu_tensors(*args: object, **kwargs: object) -> eb.PathResult:
        calls.append(1)
        kwargs["device"] = CPU
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(eb, "runs_on_device", lambda device, p: True)
    monkeypatch.setattr(et, "run_paths", on_cpu_tensors)
    got = get_algorithm("sal")(seed=0).fit(train)
    assert calls  # the selection's batch and the refit went the torch way
    assert got.selection is not None and want.selection is not None
    chosen = [fit.selection.to_dict()["chosen"] for fit in (got, want)]
    assert (chosen[0]["relative"], chosen[0]["variant"]) == (chosen[1]["relative"], chosen[1]["variant"])
    assert chosen[0]["score"] == pytest.approx(chosen[1]["score"], rel=1e-6)
    assert math.isfinite(chosen[0]["relative"])  # a robust candidate (ERM's is ∞): its w-path decided
    np.testing.assert_allclose(np.log(got.covariate_weights), np.log(want.covariate_weights), atol=1e-5)
    X = np.concatenate([e.X for e in train])
    np.testing.assert_allclose(got.predict(X), want.predict(X), atol=1e-6 * np.abs(want.predict(X)).max())
