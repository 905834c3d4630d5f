"""Stable Adversarial Learning (Algorithm 1 of the paper) with a learned transport cost.

Each round: θ ← argmin_θ mean s_λ(θ; x, y) with c_w(x̃, x) = ‖w ⊙ (x̃ − x)‖² (the θ-step), then
R(θ) = mean_e L^e + α·spread_e(L^e) and w ← update(w, ∂R/∂w) on W = {w ≥ 1, min w = 1}.

Three ways to run a round, picked from the model, the loss and ``gradient`` / ``adversary``:

* **exact ridge path** (linear model, squared loss; the default there): the θ-step is solved
  exactly on the generalised-ridge path and ∂R/∂w comes from implicit differentiation
  (:mod:`sal_core.robust_linear`). A round costs O(p³), independent of n.
* **exact, closed-form adversary** (linear model, absolute or logistic loss): Adam θ-steps on the
  closed-form s_λ, ∂R/∂w by implicit differentiation through autograd.
* **paper** (any model; MLPs always): m gradient-ascent steps for X̃ per θ-step and the
  approximation of Section 4.2.1: ∂θ/∂X̃ ≈ −ε_θ Σ_t ∂∇_θℓ(θ_t; X̃)/∂X̃ and
  ∂X̃/∂w ≈ −4ε_xλ·w ⊙ Σ_k (X̃_k − X) (the paper's −2ε_xλΣ(X̃_k − X) for our w² cost).

Regression targets are divided by their pooled standard deviation inside the fit, so ``lambda_`` is
unit-free; results are reported in the target's own units.

A limit, measured on the anti-causal setting (dev seeds): with w_S → ∞ on the stable covariates,
R(θ(w)) = mean_e L^e + α·spread_e L^e on the training environments is minimised at a *moderate*
weight on the anti-causal V (it buys a real in-sample gain: V carries information about y's noise,
most in the low-noise environment), for std or max − min spread and α up to 10. Minimising R
exactly therefore does not give the stable-only oracle; SAL improves on ERM there (≈ 0.58 vs 0.71
test RMSE) but not to the paper's 0.415. A small λ (strong adversary) does not change R's
minimiser, and with too few rounds it leaves every coefficient shrunk (test RMSE > 1).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch.func import functional_call

from sal_core import robust_linear as rl
from sal_core.adversary import kappa, linear_inner_sup
from sal_core.algorithms.base import Algorithm, Certificate, Problem, Reporter, Solution
from sal_core.covariate_weights import make_w_update
from sal_core.exceptions import InvalidParameterError
from sal_core.optim import set_linear
from sal_core.params import Params, param


@dataclass(frozen=True)
class SALParams(Params):
    lambda_: float = param(
        0.1,
        low=0.0,
        low_inclusive=False,
        high=1e6,
        doc="λ, the price per unit of transport cost c_w paid by the adversary (unit-free: targets are "
        "standardised). Smaller λ = larger uncertainty set. Default 0.1: lowest held-out-row R among "
        "{1, 0.1, 0.01} on the paper's settings (λ = 1 barely perturbs: SAL ≈ ERM).",
        grid=(0.01, 0.03, 0.1, 0.3, 1.0),
    )
    alpha: float = param(
        1.0, low=0.0, high=1e4, doc="α, weight of the spread of training-environment losses in R(θ)."
    )
    stability: str = param(
        "std",
        choices=("std", "range"),
        doc="Spread in R: 'std' of environment losses (smooth) or the paper's max − min.",
    )
    rounds: int = param(40, low=1, high=100_000, doc="T, outer rounds (one θ-step and one w-step each).")
    w_lr: float = param(0.3, low=0.0, low_inclusive=False, high=1e6, doc="ε_w, step size of the w update.")
    w_max: float = param(
        1e4,
        low=1.0,
        high=1e12,
        doc="Cap on w. At w = 10⁴ moving a covariate costs the adversary 10⁸ per unit: in effect never "
        "perturbed. Keeps reported weights readable without changing θ.",
    )
    w_update: str = param(
        "scaled_log",
        choices=("adaptive_log", "scaled_log", "projected"),
        doc="'scaled_log' (default): step on log w proportional to ∂R/∂log w, one global RMS scale, then "
        "w / min w; 'adaptive_log': per-coordinate RMSprop step on log w (sign-like: a covariate with a tiny "
        "but steady gradient moves as fast as a decisive one); 'projected': the paper's Proj_W(w − ε_w ∂R/∂w).",
    )
    gradient: str = param(
        "auto",
        choices=("auto", "exact", "paper"),
        doc="How ∂R/∂w is computed: 'exact' (implicit differentiation; linear models), 'paper' (Section 4.2.1 "
        "approximation), 'auto' = exact for linear models, paper for MLPs.",
    )
    adversary: str = param(
        "auto",
        choices=("auto", "closed_form", "gradient"),
        doc="Inner supremum: closed form for linear models ('auto'), or m steps of gradient ascent.",
    )
    theta_steps: int = param(
        50, low=1, high=1_000_000, doc="T_θ, Adam steps on θ per round (gradient paths only)."
    )
    theta_lr: float = param(0.01, low=0.0, low_inclusive=False, high=10.0, doc="ε_θ, Adam step size for θ.")
    ascent_steps: int = param(
        20, low=1, high=10_000, doc="m, gradient-ascent steps for X̃ (gradient adversary)."
    )
    ascent_lr: float = param(
        0.1, low=0.0, low_inclusive=False, high=10.0, doc="ε_x, gradient-ascent step size for X̃."
    )


class SAL(Algorithm[SALParams]):
    """Stable Adversarial Learning: WDRL whose transport cost learns a weight per covariate."""

    name = "sal"
    params_type = SALParams
    min_environments = 2
    learns_weights = True
    summary = "Stable Adversarial Learning: Wasserstein DRO with a learned per-covariate transport cost."

    def total_steps(self) -> int:
        return self.params.rounds if self.learns_weights else 1

    _warm_shift: torch.Tensor | None = None  # the logistic adversary's last roots, reused as a start

    def _risk_terms(self) -> tuple[float, str]:
        """(α, spread) of R(θ); without w learning R is only reported, as the mean loss."""
        if not self.learns_weights:
            return 0.0, "std"
        return self.params.alpha, self.params.stability

    def _w_update(self) -> Any:
        if not self.learns_weights:
            return None
        return make_w_update(self.params.w_update, self.params.w_lr, self.params.w_max)

    # ----------------------------------------------------------------------------------------------
    def _fit(self, problem: Problem, reporter: Reporter) -> Solution:
        self._check_options(problem)
        y_scale = float(problem.y.std()) if problem.task == "regression" else 1.0
        y_scale = y_scale if y_scale > 0 else 1.0
        if self._uses_ridge_path(problem):
            return self._fit_ridge_path(problem, reporter, y_scale)
        return self._fit_gradient(problem, reporter, y_scale)

    def _check_options(self, problem: Problem) -> None:
        p = self.params
        linear = problem.model_spec.is_linear
        if not self.learns_weights:
            if p.adversary == "closed_form" and not linear:
                raise InvalidParameterError(
                    "the closed-form adversary needs a linear model", field="params.adversary"
                )
            return
        if p.gradient == "exact" and not linear:
            raise InvalidParameterError(
                "gradient='exact' needs a linear model; use 'paper'", field="params.gradient"
            )
        if p.adversary == "closed_form" and not linear:
            raise InvalidParameterError(
                "the closed-form adversary needs a linear model", field="params.adversary"
            )
        if p.gradient == "exact" and p.adversary == "gradient" and self.learns_weights:
            raise InvalidParameterError(
                "gradient='exact' differentiates the closed-form adversary; use adversary='closed_form' or 'auto'",
                field="params.gradient",
            )

    def _closed_form(self, problem: Problem) -> bool:
        p = self.params
        return (
            problem.model_spec.is_linear
            and p.adversary != "gradient"
            and getattr(p, "gradient", "auto") != "paper"
        )

    def _uses_ridge_path(self, problem: Problem) -> bool:
        return self._closed_form(problem) and problem.loss_name == "squared"

    # ---------------------------------------------------------------- exact ridge path (linear, squared)
    def _fit_ridge_path(self, problem: Problem, reporter: Reporter, y_scale: float) -> Solution:
        p = self.params
        moments, y_mean = _moments(problem, y_scale)
        w = np.ones(problem.n_features)
        step_w = self._w_update()
        history: list[dict[str, Any]] = []
        stopped = False
        for round_ in range(1, self.total_steps() + 1):
            step = rl.solve_theta(moments, w, p.lambda_)
            risk, grad_theta, losses = rl.risk_and_grad_theta(step.theta, moments, *self._risk_terms())
            history.append(_record(round_, risk * y_scale**2, w, losses * y_scale**2, problem))
            if reporter(round_, {"risk": risk * y_scale**2}):
                stopped = True
                break
            if not self.learns_weights:
                break
            w = step_w(w, rl.risk_grad_w(step.theta, w, moments, p.lambda_, grad_theta))
        step = rl.solve_theta(moments, w, p.lambda_)
        cert = rl.certificate(step, p.lambda_)
        model = problem.new_model()
        theta = torch.as_tensor(step.theta * y_scale, dtype=problem.Z.dtype, device=problem.Z.device)
        bias = y_mean - theta @ problem.Z.mean(0)  # rows are centred on the pooled mean (≈ 0)
        set_linear(model, theta, bias)
        return Solution(
            model=model,
            covariate_weights=torch.as_tensor(w),
            history=history,
            certificate=Certificate(cert.rho_hat, cert.worst_case_risk * y_scale**2, p.lambda_),
            stopped=stopped,
        )

    # ---------------------------------------------------------------- gradient paths (any model/loss)
    def _fit_gradient(self, problem: Problem, reporter: Reporter, y_scale: float) -> Solution:
        p = self.params
        self._warm_shift = None
        Z, y = problem.Z, problem.y / y_scale
        model = problem.new_model()
        names = [n for n, _ in model.named_parameters()]
        optimizer = torch.optim.Adam(model.parameters(), lr=p.theta_lr)
        w = torch.ones(problem.n_features, dtype=Z.dtype, device=Z.device)
        step_w = self._w_update()
        closed_form = self._closed_form(problem)
        loss_scale = y_scale**2 if problem.loss_name == "squared" else y_scale
        rounds = self.total_steps()
        theta_steps = p.theta_steps
        history: list[dict[str, Any]] = []
        stopped = False
        for round_ in range(1, rounds + 1):
            trace: list[tuple[dict[str, torch.Tensor], torch.Tensor, torch.Tensor]] = []
            for _ in range(theta_steps):
                optimizer.zero_grad(set_to_none=True)
                if closed_form:
                    objective = self._closed_form_sup(problem, model, Z, y, w).value.mean()
                else:
                    delta, d_delta_dw = self._ascent(problem, model, Z, y, w)
                    if self.learns_weights and not closed_form:
                        params_now = {k: v.detach().clone() for k, v in model.named_parameters()}
                        trace.append((params_now, Z + delta, d_delta_dw))
                    objective = (
                        problem.loss(model(Z + delta), y) - p.lambda_ * ((w * delta) ** 2).sum(1)
                    ).mean()
                objective.backward()
                optimizer.step()
            losses = problem.env_means(problem.loss(model(Z), y)).detach()
            risk, d_losses = rl.stability_risk(losses.cpu().double().numpy(), *self._risk_terms())
            history.append(
                _record(
                    round_, risk * loss_scale, w.cpu().numpy(), losses.cpu().numpy() * loss_scale, problem
                )
            )
            if reporter(round_, {"risk": risk * loss_scale}):
                stopped = True
                break
            if not self.learns_weights:
                break
            grad_r = self._risk_grad_params(problem, model, y, d_losses, names)
            if closed_form:
                grad_w = self._implicit_grad_w(problem, model, Z, y, w, grad_r, names)
            else:
                grad_w = self._paper_grad_w(problem, model, y, trace, grad_r)
            w_new = step_w(w.cpu().double().numpy(), grad_w)
            w = torch.as_tensor(w_new, dtype=Z.dtype, device=Z.device)
        cert = self._certificate(problem, model, Z, y, w, closed_form, loss_scale)
        _rescale_output(model, y_scale, problem)
        return Solution(
            model=model, covariate_weights=w.cpu(), history=history, certificate=cert, stopped=stopped
        )

    def _closed_form_sup(
        self, problem: Problem, model: torch.nn.Module, Z: torch.Tensor, y: torch.Tensor, w: torch.Tensor
    ) -> Any:
        weight: torch.Tensor = model.weight  # type: ignore[assignment]
        warm = (
            self._warm_shift if self._warm_shift is not None and self._warm_shift.shape == y.shape else None
        )
        sup = linear_inner_sup(problem.loss_name, model(Z), y, kappa(weight, w), self.params.lambda_, warm)
        self._warm_shift = sup.shift
        return sup

    def _ascent(
        self, problem: Problem, model: torch.nn.Module, Z: torch.Tensor, y: torch.Tensor, w: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """m ascent steps on ℓ(X̃) − λ‖w ⊙ (X̃ − X)‖²; returns δ = X̃ − X and the paper's ∂X̃/∂w (n, p)."""
        p = self.params
        delta = torch.zeros_like(Z)
        d_dw = torch.zeros_like(Z)
        w2 = w**2
        for _ in range(p.ascent_steps):
            d_dw = d_dw - 4.0 * p.ascent_lr * p.lambda_ * w * delta
            delta.requires_grad_(True)
            gain = problem.loss(model(Z + delta), y).sum() - p.lambda_ * (w2 * delta**2).sum()
            (grad,) = torch.autograd.grad(gain, delta)
            delta = (delta + p.ascent_lr * grad).detach()
        return delta, d_dw

    def _risk_grad_params(
        self,
        problem: Problem,
        model: torch.nn.Module,
        y: torch.Tensor,
        d_losses: np.ndarray,
        names: list[str],
    ) -> list[torch.Tensor]:
        losses = problem.env_means(problem.loss(model(problem.Z), y))
        weights = torch.as_tensor(d_losses, dtype=losses.dtype, device=losses.device)
        return list(
            torch.autograd.grad((weights * losses).sum(), [dict(model.named_parameters())[n] for n in names])
        )

    def _implicit_grad_w(
        self,
        problem: Problem,
        model: torch.nn.Module,
        Z: torch.Tensor,
        y: torch.Tensor,
        w: torch.Tensor,
        grad_r: list[torch.Tensor],
        names: list[str],
    ) -> np.ndarray:
        """−(H⁻¹∇_θR)ᵀ ∂²J/∂θ∂w for a linear model with the closed-form adversary."""
        lam = self.params.lambda_
        theta0 = torch.cat([model.weight.detach(), model.bias.detach().reshape(1)])  # type: ignore[operator]
        p_ = problem.n_features

        def objective(theta: torch.Tensor, w_: torch.Tensor) -> torch.Tensor:
            out = Z @ theta[:p_] + theta[p_]
            return linear_inner_sup(problem.loss_name, out, y, kappa(theta[:p_], w_), lam).value.mean()

        hess = torch.autograd.functional.hessian(lambda th: objective(th, w), theta0)
        g = torch.cat([grad_r[names.index("weight")], grad_r[names.index("bias")].reshape(1)])
        v = torch.linalg.solve(hess + 1e-10 * torch.eye(p_ + 1, dtype=hess.dtype, device=hess.device), g)
        w_req = w.detach().clone().requires_grad_(True)
        theta_req = theta0.clone().requires_grad_(True)
        (grad_theta,) = torch.autograd.grad(objective(theta_req, w_req), theta_req, create_graph=True)
        (mixed,) = torch.autograd.grad(grad_theta @ v, w_req)
        return -mixed.detach().cpu().double().numpy()

    def _paper_grad_w(
        self,
        problem: Problem,
        model: torch.nn.Module,
        y: torch.Tensor,
        trace: list[tuple[dict[str, torch.Tensor], torch.Tensor, torch.Tensor]],
        grad_r: list[torch.Tensor],
    ) -> np.ndarray:
        """Section 4.2.1: ∂R/∂w ≈ Σ_t −ε_θ ∂(∇_θRᵀ∇_θℓ(θ_t; X̃_t))/∂X̃ ⊙ ∂X̃_t/∂w, summed over rows."""
        total = torch.zeros(problem.n_features, dtype=problem.Z.dtype, device=problem.Z.device)
        names = [n for n, _ in model.named_parameters()]
        for params_t, x_tilde, d_dw in trace:
            x_req = x_tilde.detach().requires_grad_(True)
            leaves = {k: v.detach().requires_grad_(True) for k, v in params_t.items()}
            loss = problem.loss(functional_call(model, leaves, (x_req,)), y).mean()
            grads = torch.autograd.grad(loss, [leaves[n] for n in names], create_graph=True)
            inner = torch.stack([(g * r).sum() for g, r in zip(grads, grad_r, strict=True)]).sum()
            (d_x,) = torch.autograd.grad(inner, x_req)
            total = total + (-self.params.theta_lr * d_x * d_dw).sum(0)
        return total.detach().cpu().double().numpy()

    def _certificate(
        self,
        problem: Problem,
        model: torch.nn.Module,
        Z: torch.Tensor,
        y: torch.Tensor,
        w: torch.Tensor,
        closed_form: bool,
        loss_scale: float,
    ) -> Certificate:
        lam = self.params.lambda_
        with torch.enable_grad():
            if closed_form:
                sup = self._closed_form_sup(problem, model, Z, y, w)
                value, cost = sup.value.detach(), sup.cost.detach()
            else:
                delta, _ = self._ascent(problem, model, Z, y, w)
                cost = ((w * delta) ** 2).sum(1)
                value = problem.loss(model(Z + delta), y).detach() - lam * cost
        rho = float(cost.mean())
        return Certificate(rho, (float(value.mean()) + lam * rho) * loss_scale, lam)


def _moments(problem: Problem, y_scale: float) -> tuple[rl.Moments, float]:
    """Moments of the centred rows (targets divided by ``y_scale``) and the pooled mean of y.

    One pass of O(n·p²) matrix products on the fit's device; everything after works on p×p arrays.
    """
    z_mean, y_mean = problem.Z.mean(0), problem.y.mean()
    env_gram, env_cross, env_yy = [], [], []
    for env in problem.envs:
        Ze, ye = env.Z - z_mean, (env.y - y_mean) / y_scale
        env_gram.append(Ze.T @ Ze / Ze.shape[0])
        env_cross.append(Ze.T @ ye / Ze.shape[0])
        env_yy.append((ye * ye).mean())
    g = torch.stack(env_gram).double().cpu().numpy()
    c = torch.stack(env_cross).double().cpu().numpy()
    yy = torch.stack(env_yy).double().cpu().numpy()
    counts = np.array([env.Z.shape[0] for env in problem.envs], dtype=np.float64)
    weights = counts / counts.sum()
    moments = rl.Moments(
        gram=np.einsum("e,eij->ij", weights, g),
        cross=weights @ c,
        yy=float(weights @ yy),
        env_gram=g,
        env_cross=c,
        env_yy=yy,
    )
    return moments, float(y_mean)


def _record(round_: int, risk: float, w: np.ndarray, losses: np.ndarray, problem: Problem) -> dict[str, Any]:
    return {
        "round": round_,
        "risk": float(risk),
        "w": [float(v) for v in w],
        "env_losses": {e.name: float(v) for e, v in zip(problem.envs, losses, strict=True)},
    }


def _rescale_output(model: torch.nn.Module, y_scale: float, problem: Problem) -> None:
    """Undo the target standardisation: the last layer's weight and bias times y_scale."""
    if y_scale == 1.0:
        return
    last = list(model.parameters())
    with torch.no_grad():
        for tensor in last[-2:]:
            tensor.mul_(y_scale)


ALGORITHM = SAL
