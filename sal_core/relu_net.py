"""Hand-written forward and backward passes for ReLU MLPs, and Adam on one flat parameter vector.

The deep path (:mod:`sal_core.deep_sal`) spends its time in thousands of θ-steps, each one forward
and one backward pass over every row of a small network (n = 2000, p = 10, one hidden layer of 64:
about 1.3 MFLOP a matrix product). At that size autograd's bookkeeping and the layouts it picks for
the backward products (an (m, h)ᵀ(m, p) product where MKL is slow on one thread) cost more than the
arithmetic, and ``torch.optim.Adam`` adds Python overhead per step for four small tensors (measured:
docs/sal.md, "Measured for the defaults").

:class:`ReluNet` reads a model built by :class:`sal_core.models.ModelSpec` (Linear, ReLU, …, Linear,
squeezed) and runs the same arithmetic feature-major: activations are (width, m), every product is
a plain (or NT) GEMM, and ∇_θ and ∇_x come from one backward sweep with no graph. The results equal
autograd's up to the order of floating-point sums (tests/sal_core/test_relu_net.py).

:class:`FlatAdam` is ``torch.optim.Adam``'s single-tensor update (the CPU default) on the parameters
viewed as slices of one flat vector: the same elementwise operations in the same order, so the same
bits, in seven tensor calls a step instead of twenty-eight plus the optimiser's Python.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from sal_core.losses import LossName
from sal_core.models import _Squeeze

SOFTPLUS_THRESHOLD = 20.0  # F.softplus's default: its backward is 1 above this


class ReluNet:
    """The Linear/ReLU chain of ``model``, read from its parameters at every pass (so it follows
    in-place updates and re-pointed storage)."""

    def __init__(self, params: list[nn.Parameter]) -> None:
        self.params = params  # W (out, in), b (out,) per Linear, in order

    @property
    def layers(self) -> list[tuple[torch.Tensor, torch.Tensor]]:
        p = self.params
        return [(p[i].detach(), p[i + 1].detach()) for i in range(0, len(p), 2)]

    @classmethod
    def of(cls, model: nn.Module) -> ReluNet | None:
        """The chain of ``model`` when it is ``_Squeeze(Sequential(Linear, ReLU, …, Linear))`` with one
        output and parameters in that order, else None (the caller keeps autograd)."""
        net = getattr(model, "net", None)
        if not isinstance(model, _Squeeze) or not isinstance(net, nn.Sequential):
            return None
        modules = list(net.children())
        if len(modules) % 2 != 1:
            return None
        for i, module in enumerate(modules):
            expected: type[nn.Module] = nn.Linear if i % 2 == 0 else nn.ReLU
            if type(module) is not expected:
                return None
        linears = [m for m in modules if isinstance(m, nn.Linear)]
        if linears[-1].out_features != 1 or any(m.bias is None for m in linears):
            return None
        ordered = [t for m in linears for t in (m.weight, m.bias)]
        params = list(model.parameters())
        if len(params) != len(ordered) or any(a is not b for a, b in zip(params, ordered, strict=True)):
            return None
        return cls(params)

    def forward(self, x_t: torch.Tensor) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """x_t (p, m) feature-major -> (output (m,), the inputs of every layer, feature-major)."""
        inputs = [x_t]
        z = x_t
        layers = self.layers
        last = len(layers) - 1
        for i, (weight, bias) in enumerate(layers):
            a = torch.addmm(bias[:, None], weight, z)
            z = a if i == last else a.relu_()  # in place: a is not needed again
            if i < last:
                inputs.append(z)
        return z[0], inputs

    def backward(
        self, inputs: list[torch.Tensor], d_out: torch.Tensor, *, theta: bool = True, x: bool = True
    ) -> tuple[list[torch.Tensor], torch.Tensor | None]:
        """∇ of Σ_i d_out_i·f(x_i): (∇_θ per parameter in the model's order when ``theta``,
        ∇_x (p, m) feature-major when ``x``)."""
        g = d_out[None, :]  # (1, m)
        grads: list[torch.Tensor] = []
        grad_x: torch.Tensor | None = None
        layers = self.layers
        for i in range(len(layers) - 1, -1, -1):
            weight, _ = layers[i]
            z = inputs[i]
            if theta:
                grads.append(g.sum(1))
                grads.append(torch.mm(z, g.t()).t())  # (in, m)(m, out) then viewed (out, in)
            if i > 0:
                g = _through_relu(weight.t(), g, z)
            elif x:
                grad_x = torch.mm(weight.t(), g)
        grads.reverse()
        return grads, grad_x


def _through_relu(weight_t: torch.Tensor, g: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
    """(Wᵀg) ⊙ 1[z > 0]: the gradient g (out, m) of the next layer back through W to z = relu(a)
    (in, m), then through the ReLU, which passes it where z > 0 (exactly where a > 0) and gives 0
    at a = 0, as torch's relu backward does.

    Public operations with the same bits as autograd's ``threshold_backward``: sign(z) is that 0/1
    mask (z ≥ 0), and 0 + v·mask turns the −0.0 a negative v times 0 gives into the +0.0 autograd
    writes (only a v of −0.0 where z > 0 comes out +0.0; a NaN z masks instead of passing v). Two
    passes over (in, m): ``torch.where`` on a mask costs ~8× as much on the CPU (a scalar loop)."""
    mask = torch.sign(z)
    zero = z.new_zeros(())
    if g.shape[0] == 1:  # one output: Wᵀg is an outer product, formed in the mask's second pass
        return torch.addcmul(zero, mask.mul_(weight_t), g, out=mask)
    return torch.addcmul(zero, torch.mm(weight_t, g), mask, out=mask)


def output_gradient(loss_name: LossName, output: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """∂ℓ/∂output per row, as autograd computes it through :func:`sal_core.losses.pointwise_loss`."""
    if loss_name == "squared":
        return 2.0 * (output - y)
    if loss_name == "absolute":
        return torch.sign(output - y)
    z = torch.exp(output)  # softplus(out) − y·out, softplus's backward exactly
    return torch.where(output > SOFTPLUS_THRESHOLD, torch.ones_like(output), z / (z + 1.0)) - y


class FlatAdam:
    """``torch.optim.Adam(params, lr)`` (defaults otherwise, single-tensor update) on ``params``
    re-pointed at slices of one flat vector, so one update touches every parameter at once."""

    def __init__(
        self, params: Sequence[torch.Tensor], lr: float, betas: tuple[float, float] = (0.9, 0.999)
    ) -> None:
        self.lr, (self.beta1, self.beta2), self.eps = lr, betas, 1e-8
        with torch.no_grad():
            self.flat = torch.cat([p.detach().reshape(-1) for p in params])
            offset = 0
            for p in params:
                p.data = self.flat[offset : offset + p.numel()].view_as(p)
                offset += p.numel()
        self.sizes = [p.numel() for p in params]
        self.exp_avg = torch.zeros_like(self.flat)
        self.exp_avg_sq = torch.zeros_like(self.flat)
        self.steps = 0

    def state(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(parameters, first moments, second moments), flat; ``steps`` is the step count."""
        return self.flat, self.exp_avg, self.exp_avg_sq

    def step(self, grads: list[torch.Tensor], divisor: float | None = None) -> None:
        """One update with the gradients ``grads`` (the parameters' shapes, in their order), each
        divided by ``divisor`` when given (elementwise, so the same bits as dividing each)."""
        grad = torch.cat([g.reshape(-1) for g in grads])
        if divisor is not None:
            grad = grad / divisor
        self.steps += 1
        step = float(self.steps)
        self.exp_avg.lerp_(grad, 1 - self.beta1)
        self.exp_avg_sq.mul_(self.beta2).addcmul_(grad, grad, value=1 - self.beta2)
        bias_correction1 = 1 - self.beta1**step
        bias_correction2 = 1 - self.beta2**step
        step_size = self.lr / bias_correction1
        denom = (self.exp_avg_sq.sqrt() / bias_correction2**0.5).add_(self.eps)
        self.flat.addcdiv_(self.exp_avg, denom, value=-step_size)


def release_storage(params: Sequence[torch.Tensor]) -> None:
    """Give every parameter its own storage again (after :class:`FlatAdam` shared one)."""
    with torch.no_grad():
        for p in params:
            p.data = p.data.clone()


__all__ = ["FlatAdam", "ReluNet", "release_storage", "output_gradient"]
