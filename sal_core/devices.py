"""Where a fit should run: the one cost rule behind ``device="auto"``.

A GPU pays off only when a fit's work per step is large enough to hide its fixed costs (kernel
launches, moving the data to the device, and on the linear path the p × p eigendecompositions that
run in numpy on the CPU anyway). The work grows with the training cells ``n_rows × n_features``;
the rule is a threshold on them per model kind, set from figures measured on an H200 (SAL, ERM
and IRM timed on CUDA and on the CPU at three sizes; the table and the reasoning from it are in
docs/benchmarks.md, "Where device='auto' puts a fit"). In short:
a linear fit is one O(n·p²) pass and then p × p work per round in numpy on the CPU, so a GPU only
paid off at 10⁹ cells (above the default upload bound); an MLP step on a GPU is launch-bound, so
the threshold sits where the CPU's time, which grows with the cells, would pass it.

The linear threshold predates :mod:`sal_core.exact_torch`, which can run the exact path's w-paths on
the GPU (off until timed there, ``exact_batch.DEVICE_FROM_P``). A batch of them gains with p, not
with n (a round's floor at p = 1,000 is 24× below one CPU thread's, at p = 100 no lower), so once
it is on, the linear rule wants a bound on p beside the one on cells; ``python -m bench.gpu_check``
measures both.

No algorithm changes its model kind's threshold today: the measured gaps of SAL, ERM and IRM at
the paper setting all fall under the same bound. ``choose_device`` takes the algorithm so the reason names it and a
measured exception has one place to go.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Device = Literal["cpu", "cuda"]

# Training cells (rows × features) from which a fit runs faster on one GPU than on the CPU.
GPU_MIN_CELLS: dict[str, int] = {"linear": 10**9, "mlp": 10**6}


@dataclass(frozen=True)
class DeviceChoice:
    """The device a fit should run on and why, in one sentence a user can read."""

    device: Device
    reason: str


def choose_device(
    n_rows: int,
    n_features: int,
    *,
    model_kind: str,
    algorithm: str,
    requested: str = "auto",
    gpu_available: bool = True,
) -> DeviceChoice:
    """Resolve ``requested`` ("auto", "cpu" or "cuda") for a fit on ``n_rows`` training rows of
    ``n_features`` covariates. "auto" is CUDA when the cells reach the model kind's
    ``GPU_MIN_CELLS`` and ``gpu_available``; "cpu" and "cuda" are kept as asked (a "cuda" request
    without a GPU is the caller's to refuse or hold). An unknown model kind is treated as the
    cheapest to move, the MLP."""
    if requested in ("cpu", "cuda"):
        return DeviceChoice(requested, f"requested {requested}")  # type: ignore[arg-type]
    if requested != "auto":
        raise ValueError(f"device must be 'auto', 'cpu' or 'cuda', got {requested!r}")
    cells = n_rows * n_features
    threshold = GPU_MIN_CELLS.get(model_kind, GPU_MIN_CELLS["mlp"])
    size = (
        f"{algorithm} on a {model_kind} model, {n_rows:,} rows × {n_features:,} features = {cells:.1e} cells"
    )
    if cells < threshold:
        return DeviceChoice("cpu", f"auto: {size}, below the {threshold:.0e} from which a GPU is faster")
    if not gpu_available:
        return DeviceChoice(
            "cpu",
            f"auto: {size} would be faster on a GPU (from {threshold:.0e}), but this deployment has none",
        )
    return DeviceChoice("cuda", f"auto: {size}, at or above the {threshold:.0e} from which a GPU is faster")
