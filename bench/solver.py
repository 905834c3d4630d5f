"""What one round of SAL's exact w-path costs, by θ-step factorisation, as p grows.

    python -m bench.solver [--p 10 40 100 300 1000] [--rounds 5] [--threads 1]

``lambda_="auto"`` runs 40 w-paths side by side (4 λ × 2 anchors × 5 folds, :mod:`sal_core.exact_batch`)
for 400 rounds, plus the refit; every round is a θ-step (a root search for μ on the generalised-ridge
path of A = wGw + μI) and an implicit gradient. This bench times rounds of that batch with the θ-step
forced onto each factorisation, in one run: one eigendecomposition per round (``eigh``) against one
Cholesky factorisation per round at the extrapolated μ, the root search's other μ reached by the
shift, each solve either two triangular solves or a product with the explicit inverse, and the
compiled kernel (:mod:`sal_core.exact_compiled`: the same rounds, one loop per path), and prints
the ratio of eigh to the round the library runs at that p (``COMPILED_BELOW_P``,
``CHOLESKY_FROM_P``, ``INVERSE_BELOW_P``; CPU time of this process: the machines are shared) and the
selection's projected time (400 rounds of 40 paths + one refit) with it. Above p = 100 it
times 4 paths, not 40 (the per-path cost is what scales), and projects from that. Data: two Gaussian
environments with a spurious half (:func:`bench.speed.gaussian_environments`).

    python -m bench.solver --floor [--p 100 1000]

``--floor`` asks how much of the compiled round is the one factorisation it cannot skip (w moves every
round, so A = wGw + μI is new): it times the kernel's factorisation alone on the same moments, prints
its rate in GFLOP/s (p³/3 flops, p³/6 multiply-adds) beside the whole round, and the least a default selection
could cost if everything else in the round were free (40 paths + the refit, 400 rounds, one
factorisation each). A kernel at a core's peak rate leaves only fewer path-rounds as a way to go
faster.

    python -m bench.solver --floor --cuda [--p 100 1000]

``--cuda`` asks the same of an accelerator: the selection's 41 paths as one batch on the GPU in
float64, a round's least work timed with CUDA's clock: form A = wGw + μI from G and each path's w,
factorise all 41 at once (``torch.linalg.cholesky_ex``), and the θ-step's and the gradient's solves
(``SOLVES_PER_ROUND`` two-sided triangular solves, one right-hand side per path). It projects a
default selection from that (400 rounds) beside the one-thread CPU floor above, to say whether an
exact path on the GPU could reach what one core cannot.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence

import numpy as np

from bench.common import machine_line, now, set_threads
from bench.speed import gaussian_environments
from sal_core import exact_batch as eb
from sal_core import exact_compiled as ec
from sal_core import get_algorithm
from sal_core import robust_linear as rl
from sal_core.algorithms.wdrl import _moments, _target_scale
from sal_core.data import Standardizer

SELECTION_PATHS = 40
SELECTION_ROUNDS = 400
SOLVES_PER_ROUND = 11  # the root search's series powers A⁻ᵏb and the implicit gradient's solves


def _moments_of(p: int) -> rl.Moments:
    envs = gaussian_environments(max(20 * p, 4000), p, seed=0)
    algo = get_algorithm("sal")()
    problem = algo._problem(envs, Standardizer.fit(np.concatenate([e.X for e in envs])))
    return _moments(problem, _target_scale(problem))[0]


def _batch(m: rl.Moments, b: int) -> eb.BatchMoments:
    return eb.BatchMoments(
        np.repeat(m.gram[None], b, 0), np.repeat(m.cross[None], b, 0), np.full(b, m.yy),
        np.repeat(m.env_gram[None], b, 0), np.repeat(m.env_cross[None], b, 0), np.repeat(m.env_yy[None], b, 0),
    )  # fmt: skip


def seconds_per_round(
    m: eb.BatchMoments, yy: float, rounds: int, cholesky_from: int, inverse_below: int | None = None
) -> float:
    """Median over three runs of ``rounds`` rounds of the numpy path, per round, with the θ-step's
    thresholds forced (``inverse_below``: below this p a Cholesky factor solves through its
    explicit inverse; None keeps the library's)."""
    b, p = m.cross.shape
    lam = np.resize([1e-3, 1e-2, 1e-1, 1.0], b) * yy
    settings = eb.PathSettings(rounds=rounds, lr=0.1, w_max=1e4, alpha=0.5, stability="std")
    saved, saved_inverse = eb.CHOLESKY_FROM_P, eb.INVERSE_BELOW_P
    eb.CHOLESKY_FROM_P = cholesky_from
    eb.INVERSE_BELOW_P = saved_inverse if inverse_below is None else inverse_below
    try:
        return _median_per_round(lambda: eb._run_paths_numpy(m, lam, np.ones((b, p)), settings), rounds)
    finally:
        eb.CHOLESKY_FROM_P, eb.INVERSE_BELOW_P = saved, saved_inverse


def compiled_seconds_per_round(m: eb.BatchMoments, yy: float, rounds: int) -> float:
    """:func:`seconds_per_round` for the compiled kernel (compiled before it is timed)."""
    b, p = m.cross.shape
    lam = np.resize([1e-3, 1e-2, 1e-1, 1.0], b) * yy
    settings = eb.PathSettings(rounds=rounds, lr=0.1, w_max=1e4, alpha=0.5, stability="std")
    ec.warm_up()
    return _median_per_round(lambda: ec.run_paths(m, lam, np.ones((b, p)), settings), rounds)


def _median_per_round(run: Callable[[], object], rounds: int) -> float:
    """CPU seconds per round of ``run`` (``rounds`` rounds), median of three runs."""
    times = []
    for _ in range(3):
        started = time.process_time()
        run()
        times.append((time.process_time() - started) / rounds)
    return float(np.median(times))


def _picked(p: int, eigh: float, triangular: float, inverse: float, compiled: float) -> tuple[str, float]:
    """The round the library runs at p (``COMPILED_BELOW_P``, ``CHOLESKY_FROM_P``,
    ``INVERSE_BELOW_P``) and its time."""
    if eb.runs_compiled(p):
        return "compiled", compiled
    if p < eb.CHOLESKY_FROM_P:
        return "eigh", eigh
    if p < eb.INVERSE_BELOW_P:
        return "Cholesky, inverse", inverse
    return "Cholesky, triangular", triangular


def report(ps: Sequence[int], rounds: int, command: str) -> str:
    lines = [
        f"# SAL's exact w-path: cost of a round by θ-step factorisation ({now()})",
        "",
        f"`{command}`; {machine_line('cpu')}",
        "",
        "| p | paths timed | eigh ms/round | Cholesky, triangular solves | Cholesky, explicit inverse | "
        "compiled | eigh / library's | library picks | projected selection + refit (s) |",
        "|---:|---:|---:|---:|---:|---:|---:|---|---:|",
    ]
    for p in ps:
        m = _moments_of(p)
        b = SELECTION_PATHS if p <= 100 else 4
        batch = _batch(m, b)
        eigh = seconds_per_round(batch, float(m.yy), rounds, cholesky_from=10**9)
        triangular = seconds_per_round(batch, float(m.yy), rounds, cholesky_from=1, inverse_below=1)
        inverse = seconds_per_round(batch, float(m.yy), rounds, cholesky_from=1, inverse_below=10**9)
        compiled = compiled_seconds_per_round(batch, float(m.yy), rounds)
        picked, per_round = _picked(p, eigh, triangular, inverse, compiled)
        projected = per_round * (SELECTION_PATHS / b) * SELECTION_ROUNDS * (1 + 1 / SELECTION_PATHS)
        lines.append(
            f"| {p} | {b} | {eigh * 1e3:.3g} | {triangular * 1e3:.3g} | {inverse * 1e3:.3g} | {compiled * 1e3:.3g} | "
            f"{eigh / per_round:.2f}× | {picked} | {projected:.3g} |"
        )
    lines += [
        "",
        "The projection multiplies the timed round by 40 paths / paths timed, 400 rounds and one more path "
        "for the refit; it leaves out the O(n·p²) pass over the rows and the scoring (small beside it).",
    ]
    return "\n".join(lines)


def factorisation_seconds(m: rl.Moments) -> float:
    """CPU seconds of one factorisation of A = wGw + μI by the kernel, best of three batches of calls,
    at a w of the magnitudes a path reaches (log w uniform on [0, 3]) and μ at 10⁻³ of G's scale."""
    p = m.gram.shape[0]
    w = np.exp(np.random.default_rng(0).uniform(0.0, 3.0, p))
    mu = 1e-3 * float(np.max(np.diag(m.gram)) * np.max(w) ** 2)
    out = np.empty((p, p))
    ec.warm_up()
    if not ec._cholesky_scaled(m.gram, w, mu, out):
        raise RuntimeError(f"A is not positive definite at p = {p}")
    calls = max(3, int(3e8 / p**3))
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        for _ in range(calls):
            ec._cholesky_scaled(m.gram, w, mu, out)
        best = min(best, (time.process_time() - started) / calls)
    return best


def floor_report(ps: Sequence[int], rounds: int, command: str) -> str:
    """The factorisation's share of the compiled round, and the selection's floor from it."""
    lines = [
        f"# SAL's exact w-path: the factorisation every round needs, against the whole round ({now()})",
        "",
        f"`{command}`; {machine_line('cpu')}",
        "",
        "| p | factorisation (ms) | GFLOP/s | compiled round, per path (ms) | factorisation / round | "
        "selection + refit at the round (s) | floor: factorisations alone (s) |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    path_rounds = (SELECTION_PATHS + 1) * SELECTION_ROUNDS
    for p in ps:
        m = _moments_of(p)
        b = SELECTION_PATHS if p <= 100 else 4
        factor = factorisation_seconds(m)
        per_path = compiled_seconds_per_round(_batch(m, b), float(m.yy), rounds) / b
        lines.append(
            f"| {p} | {factor * 1e3:.3g} | {p**3 / 3 / factor / 1e9:.3g} | {per_path * 1e3:.3g} | "
            f"{factor / per_path:.2f} | {per_path * path_rounds:.3g} | {factor * path_rounds:.3g} |"
        )
    lines += [
        "",
        f"Both projections are {SELECTION_PATHS} paths and the refit × {SELECTION_ROUNDS} rounds; the floor "
        "counts one factorisation per path-round and nothing else.",
    ]
    return "\n".join(lines)


def cuda_round_seconds(m: rl.Moments, paths: int, rounds: int) -> tuple[float, float]:
    """Seconds per round on the GPU, float64, all ``paths`` at once: (forming A and factorising, the round's
    least work: form A, factorise, ``SOLVES_PER_ROUND`` two-sided triangular solves); best of three
    runs of ``rounds`` rounds, timed by CUDA events. w moves a little every round, as on a path."""
    import torch

    device = torch.device("cuda")
    p = m.gram.shape[0]
    gram = torch.as_tensor(m.gram, device=device)
    rng = np.random.default_rng(0)
    log_w = torch.as_tensor(rng.uniform(0.0, 3.0, (paths, p)), device=device)
    step = torch.as_tensor(rng.normal(0.0, 0.01, (paths, p)), device=device)
    mu = 1e-3 * float(np.max(np.diag(m.gram))) * float(torch.exp(log_w).max()) ** 2
    eye = mu * torch.eye(p, dtype=gram.dtype, device=device)
    rhs = torch.as_tensor(rng.normal(size=(paths, p, 1)), device=device)

    def one_round(k: int, solves: int) -> None:
        w = torch.exp(log_w + k * step)
        a = w[:, :, None] * gram * w[:, None, :] + eye
        factor, _ = torch.linalg.cholesky_ex(a)
        x = rhs
        for _ in range(solves):
            x = torch.cholesky_solve(x, factor)

    def timed(solves: int) -> float:
        one_round(0, solves)  # warm: kernels loaded, workspace allocated
        best = float("inf")
        for _ in range(3):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for k in range(rounds):
                one_round(k, solves)
            end.record()
            torch.cuda.synchronize()
            best = min(best, start.elapsed_time(end) / 1e3 / rounds)
        return best

    return timed(0), timed(SOLVES_PER_ROUND)


def cuda_floor_report(ps: Sequence[int], rounds: int, command: str) -> str:
    """The selection's least work per round on the GPU, projected over a default selection."""
    import torch

    if not torch.cuda.is_available():
        raise SystemExit("--cuda needs a CUDA device")
    paths = SELECTION_PATHS + 1
    lines = [
        f"# SAL's exact w-path on the GPU: a round's least work, {paths} paths at once, float64 ({now()})",
        "",
        f"`{command}`; {torch.cuda.get_device_name(0)}, torch {torch.__version__}",
        "",
        f"| p | form A + {paths} factorisations (ms per round) | GFLOP/s | the same + {SOLVES_PER_ROUND} solves (ms) "
        f"| floor of a default selection ({SELECTION_ROUNDS} rounds, s) |",
        "|---:|---:|---:|---:|---:|",
    ]
    for p in ps:
        factor, whole = cuda_round_seconds(_moments_of(p), paths, rounds)
        lines.append(
            f"| {p} | {factor * 1e3:.3g} | {paths * p**3 / 3 / factor / 1e9:.3g} | {whole * 1e3:.3g} | "
            f"{whole * SELECTION_ROUNDS:.3g} |"
        )
    lines += [
        "",
        "The floor leaves out the root search's scalar steps, the gradient's rank-one corrections, Adam and "
        "the losses (each a few small kernels per round), and the O(n·p²) pass over the rows.",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.solver", description=__doc__.split("\n\n")[0])
    parser.add_argument("--p", type=int, nargs="+", default=[10, 40, 100, 300, 1000])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument(
        "--floor", action="store_true", help="the factorisation's share of a round, and the floor"
    )
    parser.add_argument(
        "--cuda", action="store_true", help="with --floor: the floor of a batched round on the GPU"
    )
    args = parser.parse_args(argv)
    set_threads(args.threads)
    command = "python -m bench.solver " + " ".join(sys.argv[1:] if argv is None else argv)
    if args.floor and args.cuda:
        print(cuda_floor_report(args.p, args.rounds, command.strip()))
        return
    print((floor_report if args.floor else report)(args.p, args.rounds, command.strip()))


if __name__ == "__main__":
    main()
