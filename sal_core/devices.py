"""Where a fit should run: the one cost rule behind ``device="auto"``.

A GPU pays off only when a fit's work per step is large enough to hide its fixed costs (kernel
launches, moving the data to the device, and on the linear path the p × p eigendecompositions that
run in numpy on the CPU anyway). The work grows with the training cells ``n_rows × n_features``;
the rule is a threshold on them per model kind, set from the figures measured on an H200
(docs/benchmarks.md, "On a GPU machine"; the linear point from issue 9):

===========  ===============================  =========  ============================  ==========
model kind   measured at (cells)              CUDA       CPU                           threshold
===========  ===============================  =========  ============================  ==========
linear       SAL, paper setting (2·10⁴)       0.659 s    0.662 s (16 threads)          10⁹
linear       SAL, n = 10⁵, p = 20 (2·10⁶)     1.43 s     0.86 s (1 thread)             10⁹
linear       SAL, n = 10⁷, p = 100 (10⁹)      18.2 s     22.3 s (16 threads)           10⁹
mlp          paper setting (2·10⁴)            SAL 14.2,  SAL 10.0, ERM 5.4, IRM 2.5 s  10⁶
                                              ERM 6.4,   (16 threads)
                                              IRM 4.8 s
===========  ===============================  =========  ============================  ==========

- **linear**: a linear fit is one O(n·p²) pass over the data (standardisation, sufficient
  statistics) and then p × p work per round, in numpy on the CPU. At 2·10⁶ cells one CPU thread
  beat the GPU; at 10⁹ the GPU was only 1.2× faster than 16 CPU threads. 10⁹ is above the default
  ``max_cells`` upload bound (5·10⁷), so with default limits linear jobs run on the CPU.
- **mlp**: at the paper setting the GPU was 1.4× (SAL), 1.2× (ERM) and 1.9× (IRM) slower than
  16 CPU threads: its time per step is launch-bound and flat in n, while the CPU's grows with the
  cells. Even if 96% of the CPU's time there were overhead that does not grow with n·p, the CPU
  would pass the GPU's time by 24× the paper setting (IRM, the worst case; SAL 12×, ERM 6×); the
  threshold is 50× (10⁶ cells), where the GPU is still launch-bound (a [64] MLP step over 10⁶
  cells is ~10⁹ flops). No measurement lies between; ``bench.gpu_check`` at larger n should
  narrow it.

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
