"""Hand-written forward and backward passes for ReLU MLPs.

The deep path (:mod:`sal_core.deep_sal`) spends its time in thousands of θ-steps, each one forward
and one backward pass over every row of a small network (n = 2000, p = 10, one hidden layer of 64:
about 1.3 MFLOP a matrix product). At that size autograd's bookkeeping and the layouts it picks for
the backward products (an (m, h)ᵀ(m, p) product where MKL is slow on one thread) cost more than the
arithmetic, and ``torch.optim.Adam`` adds Python overhead per step for four small tensors (measured:
docs/sal.md, "Measured for the defaults").

:class:`ReluNet` reads a model built by :class:`sal_core.models.ModelSpec` (Linear, ReLU, …, Linear,
squeezed) and runs the same arithmetic feature-major: activations are (width, m), every product is
a plain (or NT) GEMM, and ∇_θ and ∇_x come from one backward sweep with no graph. The results equal
autograd's up to the order of floating-point sums (tests/sal_core/test_relu_net.py). Adam on one flat
parameter vector is :class:`sal_core.optim.FlatAdam`.
"""

from __future__ import annotations

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


__all__ = ["ReluNet", "output_gradient"]
