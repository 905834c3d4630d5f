"""The hand-written ReLU MLP passes and flat Adam (sal_core.relu_net) against autograd and torch.optim.Adam,
the feature-major Newton step against the row-major one, and a deep SAL fit on both paths."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from sal_core.algorithms.base import Problem, Reporter
from sal_core.deep_adversary import newton_update
from sal_core.deep_sal import DeepSALOptions, fit_deep_sal
from sal_core.losses import LossName, Task, pointwise_loss
from sal_core.models import ModelSpec
from sal_core.optim import FlatAdam, release_storage
from sal_core.relu_net import ReluNet, _through_relu, output_gradient
from tests.sal_core.deep_fits import deep_problem, short_fit

D = torch.float64


def _net(hidden: tuple[int, ...], p: int = 7, activation: str = "relu") -> torch.nn.Module:
    torch.manual_seed(0)
    return ModelSpec(kind="mlp", hidden=hidden, activation=activation).build(p).to(D)  # type: ignore[arg-type]


@pytest.mark.parametrize("loss", ["squared", "absolute", "logistic"])
@pytest.mark.parametrize("hidden", [(16,), (12, 5)], ids=["one_hidden", "two_hidden"])
def test_passes_match_autograd(hidden: tuple[int, ...], loss: LossName) -> None:
    model = _net(hidden)
    net = ReluNet.of(model)
    assert net is not None
    g = torch.Generator().manual_seed(1)
    x = 3.0 * torch.randn(50, 7, generator=g, dtype=D)
    y = (
        (torch.rand(50, generator=g) < 0.5).to(D)
        if loss == "logistic"
        else torch.randn(50, generator=g, dtype=D)
    )
    x_tilde = x.clone().requires_grad_(True)
    out_ref = model(x_tilde)
    params = list(model.parameters())
    *grads_ref, grad_x_ref = torch.autograd.grad(pointwise_loss(loss, out_ref, y).sum(), [*params, x_tilde])

    out, inputs = net.forward(x.t().contiguous())
    grads, grad_x_t = net.backward(inputs, output_gradient(loss, out, y))
    assert grad_x_t is not None
    torch.testing.assert_close(out, out_ref.detach(), rtol=1e-13, atol=1e-13)
    for got, want in zip([*grads, grad_x_t.t()], [*grads_ref, grad_x_ref], strict=True):
        assert got.shape == want.shape
        torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)
    theta_only, no_x = net.backward(inputs, output_gradient(loss, out, y), x=False)
    assert no_x is None and all(torch.equal(a, b) for a, b in zip(theta_only, grads, strict=True))


@pytest.mark.parametrize("outputs", [1, 3], ids=["outer_product", "product"])
def test_the_relu_backward_is_autograds_bit_for_bit(outputs: int) -> None:
    g = torch.Generator().manual_seed(3)
    a = torch.randn(16, 40, generator=g, dtype=D)
    a[:, :8] = 0.0  # at a = 0 the gradient is 0, as torch's relu gives
    weight = torch.randn(outputs, 16, generator=g, dtype=D)
    weight[0, :3] = 0.0  # products of ±0 on both sides of the ReLU
    upstream = torch.randn(outputs, 40, generator=g, dtype=D)
    a_ref = a.clone().requires_grad_(True)
    (want,) = torch.autograd.grad(torch.mm(weight, torch.relu(a_ref)), a_ref, upstream)
    got = _through_relu(weight.t(), upstream, torch.relu(a))
    assert torch.equal(got, want)
    # Bit for bit, signs of zero included, but where Wᵀg is itself −0.0 and a > 0 (documented: +0.0).
    corner = (a > 0) & (want == 0.0) & torch.signbit(want)
    assert bool(corner.any()) == (outputs == 1)  # the zeroed weights made some, in the outer product
    assert torch.equal(got.view(torch.int64)[~corner], want.view(torch.int64)[~corner])


def test_only_relu_chains_take_the_hand_written_path() -> None:
    assert ReluNet.of(_net((8,), activation="tanh")) is None
    assert ReluNet.of(ModelSpec().build(7)) is None  # the linear model
    assert ReluNet.of(_net((8, 4))) is not None


def test_flat_adam_is_torch_adam_bit_for_bit_and_the_model_sees_its_updates() -> None:
    reference, model = _net((16,)), _net((16,))
    reference_adam = torch.optim.Adam(reference.parameters(), lr=0.01)
    params = list(model.parameters())
    adam = FlatAdam(params, lr=0.01)
    g = torch.Generator().manual_seed(2)
    x = torch.randn(20, 7, generator=g, dtype=D)
    for _ in range(30):
        grads = [torch.randn(p.shape, generator=g, dtype=D) for p in params]
        for p, grad in zip(reference.parameters(), grads, strict=True):
            p.grad = grad / 3.0
        reference_adam.step()
        adam.step(grads, 3.0)
    for a, b in zip(reference.parameters(), params, strict=True):
        assert torch.equal(a, b)
    with torch.no_grad():
        assert torch.equal(reference(x), model(x))  # the module reads the flat vector
    before = [p.detach().clone() for p in params]
    release_storage(params)
    adam.flat.zero_()
    assert all(torch.equal(a, b) for a, b in zip(before, params, strict=True))  # own storage again


def test_feature_major_newton_step_is_the_row_major_one() -> None:
    g = torch.Generator().manual_seed(3)
    m, p = 400, 6
    u = 0.5 * torch.randn(m, p, generator=g, dtype=D)
    d1 = torch.where(torch.rand(m, generator=g) < 0.5, -1.0, 1.0).to(D) * (
        1.0 + torch.rand(m, generator=g, dtype=D)
    )
    d1[:5] = 0.0  # the fixed-point rows
    steep = torch.arange(m) >= m // 2  # curvature above λ: the supremum is unbounded, the row goes to the cap
    a = torch.randn(m, p, generator=g, dtype=D) * torch.where(steep, 2.0, 0.1)[:, None].to(D)
    grad_x = d1[:, None] * a
    d2 = torch.full((m,), 2.0, dtype=D)
    w = 1.0 + torch.rand(p, generator=g, dtype=D)
    rows, inside = newton_update(u, grad_x, d1, d2, w, 0.4, 10.0)
    cols, inside_t = newton_update(
        u.t().contiguous(), grad_x.t().contiguous(), d1, d2, w, 0.4, 10.0, features=0
    )
    torch.testing.assert_close(cols.t(), rows, rtol=1e-13, atol=1e-13)
    assert torch.equal(inside, inside_t)
    assert bool(inside[5 : m // 2].all())  # small steps stay inside
    assert not bool(inside[m // 2 :].any())  # rows sent to the cap are never inside, whatever rounding says
    torch.testing.assert_close(rows[m // 2 :].norm(dim=1), torch.full((m - m // 2,), 10.0, dtype=D))


def _problem(n: int = 300, p: int = 6, task: Task = "regression") -> Problem:
    return deep_problem(n=n, p=p, task=task)


@pytest.mark.filterwarnings("ignore::sal_core.deep_sal.AdversaryConvergenceWarning")
@pytest.mark.parametrize("task", ["regression", "classification"])
@pytest.mark.parametrize("minibatch", [False, True], ids=["full_batch", "minibatch"])
def test_deep_sal_fit_is_the_same_on_the_hand_written_path(task: Task, minibatch: bool) -> None:
    """Warm-up, rounds with w-steps and final θ-steps: the hand-written path ends where autograd's does."""
    problem = _problem(task=task)
    options = DeepSALOptions(warmup_steps=40, theta_steps=10, final_steps=20, implicit_rows=128, cg_iters=5)
    if minibatch:
        options = dataclasses.replace(
            options, minibatch_from=100, batch_rows=64, eval_rows=150, implicit_rows=64
        )

    def fit(hand_written: bool) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
        y_scale = float(problem.y.std()) if task == "regression" else 1.0
        solution = short_fit(problem, dataclasses.replace(options, hand_written=hand_written), y_scale)
        assert solution.covariate_weights is not None and solution.certificate is not None
        storages = [prm.untyped_storage().data_ptr() for prm in solution.model.parameters()]
        assert len(set(storages)) == len(storages)  # each parameter its own storage, not a flat view
        params = [prm.detach().numpy().copy() for prm in solution.model.parameters()]
        return solution.covariate_weights.numpy(), np.array([solution.certificate.worst_case_risk]), params

    fast, reference = fit(True), fit(False)
    np.testing.assert_allclose(fast[0], reference[0], rtol=1e-8)
    np.testing.assert_allclose(fast[1], reference[1], rtol=1e-8)
    for a, b in zip(fast[2], reference[2], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9)


@pytest.mark.filterwarnings("ignore::sal_core.deep_sal.AdversaryConvergenceWarning")
def test_fits_on_the_same_rows_resume_the_shared_erm_steps_with_the_same_bits() -> None:
    """λ's candidates (adversarial fits after an ERM warm-up, and ERM) resume from the ERM states an
    earlier fit left on the problem: the same bits as fitting each on a fresh copy of the problem."""
    problem = _problem()
    y_scale = float(problem.y.std())
    adversarial = DeepSALOptions(warmup_steps=250, final_steps=30)
    erm = dataclasses.replace(adversarial, warmup_steps=0, final_steps=650)
    w = torch.linspace(1.0, 4.0, problem.n_features, dtype=D)

    def fit(on: Problem, lam: float, options: DeepSALOptions, learner_adversary: bool) -> list[torch.Tensor]:
        solution = fit_deep_sal(
            on,
            lambda_=lam,
            alpha=1.0,
            stability="std",
            rounds=1,
            w_update=None,
            reporter=Reporter(None, 3),
            y_scale=y_scale,
            options=options,
            initial_w=w if learner_adversary else None,
            adversary=learner_adversary,
            ticks=3,
        )
        return [p.detach().clone() for p in solution.model.parameters()]

    plan = [(0.5, adversarial, True), (2.0, adversarial, True), (0.5, erm, False)]
    shared = [fit(problem, *step) for step in plan]
    fresh = [fit(dataclasses.replace(problem), *step) for step in plan]
    for a, b in zip(shared, fresh, strict=True):
        assert all(torch.equal(x, y) for x, y in zip(a, b, strict=True))
    (checkpoints,) = vars(problem)["_deep_sal_erm_checkpoints"].values()
    assert sorted(checkpoints) == [100, 200, 300, 400]  # the ERM fit's 650 steps: the first 4 kept
    assert not torch.equal(shared[0][0], shared[2][0])
