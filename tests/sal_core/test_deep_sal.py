"""Deep SAL: the adversary, the implicit w-gradient against finite differences, and the fit's contract."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest
import torch

from sal_core.algorithms.base import Problem, Reporter
from sal_core.covariate_weights import make_w_update
from sal_core.deep_implicit import risk_grad_w
from sal_core.deep_sal import DeepSALOptions, fit_deep_sal
from sal_core.history import Round
from sal_core.robust_linear import stability_risk
from tests.sal_core.ascent_reference import ascend
from tests.sal_core.deep_fits import deep_problem, short_fit

TINY = DeepSALOptions(warmup_steps=20, theta_steps=5, final_steps=5, implicit_rows=128, cg_iters=5)


def _problem(model: dict[str, Any], n: int = 300, p: int = 6, seed: int = 1) -> Problem:
    return deep_problem(model, n=n, p=p, seed=seed)


def _risk(problem: Problem, net: torch.nn.Module, y: torch.Tensor) -> tuple[float, torch.Tensor]:
    losses = problem.env_means(problem.loss(net(problem.Z), y))
    risk, d = stability_risk(losses.detach().numpy(), 1.0, "std")
    grads = torch.autograd.grad((torch.as_tensor(d) * losses).sum(), list(net.parameters()))
    return risk, torch.cat([g.reshape(-1) for g in grads])


def _solve_theta(
    problem: Problem,
    net: torch.nn.Module,
    y: torch.Tensor,
    w: torch.Tensor,
    lam: float,
    *,
    tol: float = 1e-11,
    ascent_steps: int = 2000,
) -> None:
    """θ*(w) to high precision: L-BFGS on J with the adversary re-solved to ``tol`` at every evaluation."""
    x = problem.Z

    def row_loss(x_tilde: torch.Tensor) -> torch.Tensor:
        return problem.loss(net(x_tilde), y)

    optimizer = torch.optim.LBFGS(
        list(net.parameters()),
        max_iter=200,
        tolerance_grad=1e-12,
        tolerance_change=1e-15 if tol >= 1e-11 else 1e-17,
        history_size=30,
        line_search_fn="strong_wolfe",
    )

    def closure() -> torch.Tensor:
        u = ascend(row_loss, x, w, lam, torch.zeros_like(x), max_steps=ascent_steps, tol=tol, radius=1e6).u
        optimizer.zero_grad()
        objective = (row_loss(x + u / w) - lam * u.pow(2).sum(1)).mean()
        objective.backward()
        return objective

    for _ in range(3):
        optimizer.step(closure)  # type: ignore[no-untyped-call]


def _finite_differences(
    problem: Problem,
    net: torch.nn.Module,
    y: torch.Tensor,
    w: torch.Tensor,
    lam: float,
    coordinates: list[int],
    **solve: Any,
) -> list[float]:
    """Central differences of R(θ*(w)) in the given coordinates of w, each θ* re-solved from the
    current (optimal) parameters."""
    theta_star = [p.detach().clone() for p in net.parameters()]
    eps, fd = 1e-4, []
    for j in coordinates:
        values = []
        for sign in (1.0, -1.0):
            with torch.no_grad():
                for p, q in zip(net.parameters(), theta_star, strict=True):
                    p.copy_(q)
            shifted = w.clone()
            shifted[j] += sign * eps
            _solve_theta(problem, net, y, shifted, lam, **solve)
            values.append(_risk(problem, net, y)[0])
        fd.append((values[0] - values[1]) / (2 * eps))
    return fd


def test_w_gradient_matches_finite_differences_for_a_linear_model() -> None:
    torch.manual_seed(0)
    problem = _problem({"kind": "linear"})
    y = problem.y / problem.y.std()
    net = problem.new_model()
    lam, w = 0.5, torch.tensor([1.0, 2.0, 1.5, 3.0, 1.0, 1.2], dtype=torch.float64)
    _solve_theta(problem, net, y, w, lam)

    def row_loss(x_tilde: torch.Tensor) -> torch.Tensor:
        return problem.loss(net(x_tilde), y)

    u = ascend(
        row_loss, problem.Z, w, lam, torch.zeros_like(problem.Z), max_steps=2000, tol=1e-11, radius=1e6
    ).u
    _, grad_r = _risk(problem, net, y)
    implicit = risk_grad_w(
        net, problem.loss, problem.Z, y, u, w, lam, grad_r, damping=0.0, cg_iters=50, cg_tol=1e-12
    )

    fd = _finite_differences(problem, net, y, w, lam, list(range(len(w))))
    scale = float(np.abs(fd).max())
    np.testing.assert_allclose(implicit.grad_w.numpy(), fd, atol=2e-2 * scale)


def test_rank_one_curvature_is_exact_for_a_relu_network() -> None:
    torch.manual_seed(0)
    problem = _problem({"kind": "mlp", "hidden": [8], "activation": "relu"})
    y = problem.y / problem.y.std()
    net = problem.new_model()
    lam, w = 0.5, torch.tensor([1.0, 2.0, 1.5, 3.0, 1.0, 1.2], dtype=torch.float64)

    def row_loss(x_tilde: torch.Tensor) -> torch.Tensor:
        return problem.loss(net(x_tilde), y)

    u = ascend(
        row_loss, problem.Z, w, lam, torch.zeros_like(problem.Z), max_steps=200, tol=1e-8, radius=1e6
    ).u
    _, grad_r = _risk(problem, net, y)
    answers = [
        risk_grad_w(net, problem.loss, problem.Z, y, u, w, lam, grad_r, curvature=c, cg_iters=30).grad_w
        for c in ("rank_one", "exact")
    ]
    torch.testing.assert_close(answers[0], answers[1], rtol=1e-8, atol=1e-10)


def test_adversary_converges_in_u_whatever_w() -> None:
    problem = _problem({"kind": "linear"})
    net = problem.new_model()
    with torch.no_grad():
        net.weight.copy_(torch.linspace(-0.3, 0.3, problem.n_features))  # type: ignore[operator]
    y = problem.y / problem.y.std()
    for w in (torch.ones(problem.n_features), torch.tensor([1.0, 1e4, 1e2, 1.0, 1e3, 10.0])):
        result = ascend(
            lambda x_tilde: problem.loss(net(x_tilde), y),
            problem.Z,
            w.double(),
            0.5,
            torch.zeros_like(problem.Z),
            max_steps=200,
            tol=1e-8,
            radius=1e6,
        )
        assert result.converged and result.steps < 60, (result.steps, result.residual)


@pytest.mark.filterwarnings("ignore::sal_core.deep_sal.AdversaryConvergenceWarning")  # 20-step fit
@pytest.mark.parametrize("learns", [True, False])
def test_fit_deep_sal_contract(learns: bool) -> None:
    problem = _problem({"kind": "mlp", "hidden": [8], "activation": "relu"}, n=200)
    update = make_w_update("scaled_log", 0.3, 1e4) if learns else None
    solution = fit_deep_sal(
        problem,
        lambda_=0.3,
        alpha=1.0,
        stability="std",
        rounds=3,
        w_update=update,
        reporter=Reporter(None, 3),
        y_scale=float(problem.y.std()),
        options=TINY,
    )
    assert [r.round for r in solution.history] == ([1, 2, 3] if learns else [1])
    assert all(
        isinstance(r, Round) and set(r.env_losses) == {e.name for e in problem.envs} for r in solution.history
    )
    w = solution.covariate_weights
    assert w is not None and w.shape == (problem.n_features,)
    assert float(w.min()) == pytest.approx(1.0) and (learns or bool((w == 1.0).all()))
    assert solution.certificate is not None and np.isfinite(solution.certificate.worst_case_risk)
    assert solution.model(problem.Z).shape == (problem.Z.shape[0],)


@pytest.mark.filterwarnings("ignore::sal_core.deep_sal.AdversaryConvergenceWarning")
def test_fit_deep_sal_stops_when_asked_and_runs_minibatches() -> None:
    problem = _problem({"kind": "mlp", "hidden": [8], "activation": "tanh"}, n=300)
    options = DeepSALOptions(
        warmup_steps=10,
        theta_steps=3,
        final_steps=3,
        minibatch_from=100,
        batch_rows=64,
        eval_rows=150,
        implicit_rows=64,
    )
    solution = fit_deep_sal(
        problem,
        lambda_=0.3,
        alpha=1.0,
        stability="range",
        rounds=5,
        w_update=make_w_update("scaled_log", 0.3, 1e4),
        reporter=Reporter(lambda step, total, metrics: step >= 2, 5),
        y_scale=float(problem.y.std()),
        options=options,
    )
    assert solution.stopped and len(solution.history) == 2


def _seeded_fit(seed: int, options: DeepSALOptions) -> tuple[np.ndarray, np.ndarray]:
    problem = _problem({"kind": "mlp", "hidden": [8], "activation": "relu"}, n=300, seed=seed)
    solution = short_fit(problem, options, float(problem.y.std()))
    assert solution.covariate_weights is not None
    with torch.no_grad():
        return solution.model(problem.Z).numpy(), solution.covariate_weights.numpy()


@pytest.mark.filterwarnings("ignore::sal_core.deep_sal.AdversaryConvergenceWarning")
@pytest.mark.parametrize("minibatch", [False, True], ids=["full_batch", "minibatch"])
def test_fit_deep_sal_is_deterministic_under_a_seed(minibatch: bool) -> None:
    """The same seed gives the same fit (rows drawn from a CPU generator seeded by the problem's seed,
    whatever else drew from torch's global stream in between); another seed gives another fit."""
    small = DeepSALOptions(minibatch_from=100, batch_rows=64, eval_rows=150, implicit_rows=64)
    options = TINY if not minibatch else dataclasses.replace(TINY, **{
        k: getattr(small, k) for k in ("minibatch_from", "batch_rows", "eval_rows", "implicit_rows")
    })  # fmt: skip
    first = _seeded_fit(3, options)
    torch.rand(100)  # the global stream moves; the fit must not depend on it
    second = _seeded_fit(3, options)
    other = _seeded_fit(4, options)
    assert np.array_equal(first[0], second[0]) and np.array_equal(first[1], second[1])
    assert not np.array_equal(first[0][: other[0].shape[0]], other[0][: first[0].shape[0]])


class _TanhFeatures(torch.nn.Module):
    """A network whose hidden layer is fixed (buffers) and whose head is θ: non-linear in x, so the
    adversary's problem is not quadratic, while J stays convex in θ (a supremum of convex functions),
    so θ*(w) is unique and finite differences of R(θ*(w)) are well defined."""

    def __init__(self, p: int, width: int = 8) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.register_buffer("a", 0.5 * torch.randn(p, width, generator=g, dtype=torch.float64))
        self.register_buffer("b", 0.5 * torch.randn(width, generator=g, dtype=torch.float64))
        self.head = torch.nn.Linear(width, 1).double()

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        return self.head(torch.tanh(z @ self.a + self.b)).squeeze(-1)  # type: ignore[operator]


def test_w_gradient_matches_finite_differences_through_a_non_linear_feature_map() -> None:
    torch.manual_seed(0)
    problem = _problem({"kind": "linear"}, n=200)
    y = problem.y / problem.y.std()
    net = _TanhFeatures(problem.n_features)
    lam, w = 2.0, torch.tensor([1.0, 2.0, 1.5, 3.0, 1.0, 1.2], dtype=torch.float64)
    for _ in range(2):
        _solve_theta(problem, net, y, w, lam, tol=1e-12, ascent_steps=5000)

    def row_loss(x_tilde: torch.Tensor) -> torch.Tensor:
        return problem.loss(net(x_tilde), y)

    u = ascend(
        row_loss, problem.Z, w, lam, torch.zeros_like(problem.Z), max_steps=5000, tol=1e-12, radius=1e6
    ).u
    _, grad_r = _risk(problem, net, y)
    implicit = risk_grad_w(
        net, problem.loss, problem.Z, y, u, w, lam, grad_r, curvature="exact", damping=0.0, cg_iters=100,
        cg_tol=1e-13,
    ).grad_w.numpy()  # fmt: skip
    assert not np.allclose(implicit, 0.0)

    checked = [0, 1, 3]  # a w = 1 covariate and two shielded ones
    fd = _finite_differences(problem, net, y, w, lam, checked, tol=1e-12, ascent_steps=5000)
    np.testing.assert_allclose(implicit[checked], fd, atol=2e-2 * float(np.abs(implicit).max()))
