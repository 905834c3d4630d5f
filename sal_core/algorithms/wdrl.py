"""Wasserstein distributionally robust learning (Sinha et al.) in the Lagrangian-penalty form.

min_θ mean_i sup_x̃ ℓ(θ; x̃, y_i) − λ‖x̃ − x_i‖²: SAL with w ≡ 1 and no w learning. Shares SAL's
θ-step: exact on the ridge path for a linear model with squared loss, closed-form adversary for
other linear losses, gradient ascent for MLPs.
"""

from __future__ import annotations

from dataclasses import dataclass

from sal_core.algorithms.sal import SAL
from sal_core.params import Params, param


@dataclass(frozen=True)
class WDRLParams(Params):
    lambda_: float = param(
        1.0,
        low=0.0,
        low_inclusive=False,
        high=1e6,
        doc="λ, price per unit of transport cost ‖x̃ − x‖² (unit-free: covariates and targets are "
        "standardised). The paper searches the radius ρ; in the Lagrangian form smaller λ = larger ball.",
        grid=(0.3, 1.0, 2.0, 5.0, 10.0, 30.0, 100.0),
    )
    adversary: str = param(
        "auto",
        choices=("auto", "closed_form", "gradient"),
        doc="Inner supremum: closed form for linear models ('auto'), or m steps of gradient ascent.",
    )
    theta_steps: int = param(2000, low=1, high=1_000_000, doc="Adam steps on θ (gradient paths only).")
    theta_lr: float = param(0.01, low=0.0, low_inclusive=False, high=10.0, doc="Adam step size for θ.")
    ascent_steps: int = param(
        20, low=1, high=10_000, doc="m, gradient-ascent steps for x̃ (gradient adversary)."
    )
    ascent_lr: float = param(
        0.1, low=0.0, low_inclusive=False, high=10.0, doc="Gradient-ascent step size for x̃."
    )


class WDRL(SAL):
    """SAL with the isotropic cost ‖x̃ − x‖² (w ≡ 1)."""

    name = "wdrl"
    params_type = WDRLParams  # type: ignore[assignment]
    min_environments = 1
    learns_weights = False
    summary = "Wasserstein DRO with an isotropic transport cost (SAL with w ≡ 1)."


ALGORITHM = WDRL
