"""One command that checks the accelerator instead of assuming it; also runs, and is tested, on CPU.

    python -m bench.gpu_check [--out DIR] [--full] [--smoke]

Steps, each in its own process under its own timeout, everything printed also written to DIR
(default ``gpu-check-results/``):

1. ``tests``: the sal_core tests that need only torch and numpy (deep SAL, linear IRM, purity), with
   the service's conftest left out (the GPU machine has no web, queue or database packages).
2. ``agreement``: ERM, IRM, WDRL and SAL (linear), SAL with an MLP at defaults, and
   ``fit_deep_sal`` learning w through the network (full batch and minibatch) fitted on CPU and on CUDA in float64 from the same data; the largest prediction and w
   (log w for deep SAL) differences. CPU against CPU without CUDA.
3. ``speed-cpu`` and ``speed-cuda``: ``python -m bench.speed`` (``--quick`` unless ``--full``) on
   each device (CUDA only where available).
4. ``exact-device`` (CUDA only): SAL at defaults with its w-paths on the GPU
   (:mod:`sal_core.exact_torch`, ``exact_batch.DEVICE_FROM_P`` lowered for the run) against the
   default path on the CPU (the compiled kernel, one thread) on the same data: whole-fit seconds
   and the largest differences in log w and in predictions, at p = 100 and 300 (n = 20·p), then the
   GPU alone at p = 1,000, n = 10⁵ (one CPU thread took 245 s there). Where the GPU wins, and from
   which p, is where ``DEVICE_FROM_P`` belongs.

``--smoke`` runs the agreement step alone on tiny sizes (CPU against CPU when there is no GPU): the
test of this script. The whole default run stays well under 10 minutes.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

TEST_FILES = (
    "tests/sal_core/test_deep_sal.py",
    "tests/sal_core/test_mlp_sal.py",
    "tests/sal_core/test_irm_linear.py",
    "tests/sal_core/test_purity.py",
)
MLP = {"kind": "mlp", "hidden": [64], "activation": "relu"}
EXACT_DEVICE_SIZES = ((2000, 100, True), (6000, 300, True), (100_000, 1000, False))
"""(n, p, beside the CPU) of the ``exact-device`` step."""


def agreement(devices: tuple[str, str], *, n: int = 2000, rounds: int = 10) -> dict[str, float]:
    """Largest |difference| between two devices, per learner: predictions on the training rows and w."""
    from sal_core import Standardizer, get_algorithm
    from sal_core.algorithms.base import Reporter
    from sal_core.covariate_weights import make_w_update
    from sal_core.deep_sal import DeepSALOptions, fit_deep_sal
    from sal_core.synthetic import selection_bias

    envs = selection_bias(r=1.7, n=n, p=10, seed=0, n_test=2, test_rs=(2.0,)).train
    X = np.concatenate([e.X for e in envs])
    out: dict[str, float] = {}
    learners = {name: {"kind": "linear"} for name in ("erm", "irm", "wdrl", "sal")}
    learners["sal mlp"] = MLP  # SAL at defaults with a network: w from the linear path, then the network
    for name, model in learners.items():
        out.update(_fit_agreement(name, name.split()[0], model, "regression", envs, devices))
    # classification runs other code at defaults: the gradient path, the logistic adversary, the
    # likelihood-ratio slopes test and the temperature every candidate is scored after
    clf_envs = selection_bias(r=1.7, n=n, p=10, seed=0, n_test=2, test_rs=(2.0,), task="classification").train
    for name in ("erm", "irm", "sal"):
        out.update(
            _fit_agreement(
                f"{name} classification", name, {"kind": "linear"}, "classification", clf_envs, devices
            )
        )
    # λ = 1 (DEEP_GRID's robust candidate). At λ = 0.1 the supremum is unbounded on many rows, they
    # sit on the radius cap, and the cap / settle decisions amplify rounding: a 1e-15 relative change
    # of Z moved CPU predictions by 1.4 and w by 10, the size of the CPU-vs-CUDA gap once measured.
    # The minibatch row exercises the row draws (a CPU generator, the same rows on every device).
    small = n // 4
    cases = {
        "deep_sal": DeepSALOptions(warmup_steps=50, theta_steps=10, final_steps=20),
        "deep_sal minibatch": DeepSALOptions(
            warmup_steps=50,
            theta_steps=10,
            final_steps=20,
            minibatch_from=small,
            batch_rows=small,
            eval_rows=2 * small,
            implicit_rows=small,
        ),
    }
    for label, options in cases.items():
        results = []
        for d in devices:
            algorithm = get_algorithm("sal")(model=MLP, seed=0, device=d)
            problem = algorithm._problem(envs, Standardizer.fit(X))
            solution = fit_deep_sal(
                problem,
                lambda_=1.0,
                alpha=1.0,
                stability="std",
                rounds=rounds,
                w_update=make_w_update("scaled_log", 0.3, 1e4),
                reporter=Reporter(None, rounds),
                y_scale=float(problem.y.std()),
                options=options,
            )
            with torch.no_grad():
                prediction = solution.model(problem.Z).cpu().numpy()
            assert solution.covariate_weights is not None
            results.append((prediction, solution.covariate_weights.cpu().numpy()))
        out[f"{label} prediction"] = float(np.abs(results[0][0] - results[1][0]).max())
        # w is compared in log: near the cap (10⁴) a float-level change is 1e-3 in w.
        out[f"{label} log w"] = float(np.abs(np.log(results[0][1]) - np.log(results[1][1])).max())
    return out


def _fit_agreement(
    label: str,
    algorithm: str,
    model: dict[str, object],
    task: str,
    envs: Sequence[Any],
    devices: tuple[str, str],
) -> dict[str, float]:
    """Fit one learner at defaults on each device; the largest |difference| in predictions on the
    training rows (for classification in the decision function, the log-odds: labels would hide a
    difference) and in w."""
    from sal_core import get_algorithm

    X = np.concatenate([e.X for e in envs])
    fits = [get_algorithm(algorithm)(model=model, task=task, seed=0, device=d).fit(envs) for d in devices]
    scores = [f.model.decision_function(X) for f in fits]
    kind = "log-odds" if task == "classification" else "prediction"
    out = {f"{label} {kind}": float(np.abs(scores[0] - scores[1]).max())}
    if fits[0].covariate_weights is not None and fits[1].covariate_weights is not None:
        out[f"{label} w"] = float(np.abs(fits[0].covariate_weights - fits[1].covariate_weights).max())
    return out


def exact_on_device(device: str, sizes: Sequence[tuple[int, int, bool]]) -> list[str]:
    """Rows of the ``exact-device`` table: per (n, p, compare), a default SAL fit with the w-paths on
    ``device`` and, where ``compare``, the default path on the CPU on one thread beside it."""
    from bench.speed import gaussian_environments
    from sal_core import exact_batch as eb
    from sal_core import get_algorithm

    def timed_fit(envs: Sequence[Any], on: str) -> tuple[Any, float]:
        started = time.perf_counter()
        fit = get_algorithm("sal")(seed=0, device=on).fit(envs)
        return fit, time.perf_counter() - started

    rows = []
    faster: list[int] = []
    slower: list[int] = []
    saved = eb.DEVICE_FROM_P
    for n, p, compare in sizes:
        envs = gaussian_environments(n, p, seed=0)
        X = envs[0].X[:2000]
        eb.DEVICE_FROM_P = 0
        try:
            on_device, device_s = timed_fit(envs, device)
        finally:
            eb.DEVICE_FROM_P = saved
        cells = [f"{p}", f"{n:,}", f"{device_s:.2f}"]
        if compare:
            threads = torch.get_num_threads()
            torch.set_num_threads(1)
            try:
                on_cpu, cpu_s = timed_fit(envs, "cpu")
            finally:
                torch.set_num_threads(threads)
            assert on_device.covariate_weights is not None and on_cpu.covariate_weights is not None
            log_w = float(
                np.abs(np.log(on_device.covariate_weights) - np.log(on_cpu.covariate_weights)).max()
            )
            pred = float(np.abs(on_device.predict(X) - on_cpu.predict(X)).max())
            cells += [f"{cpu_s:.2f}", f"{cpu_s / device_s:.2f}", f"{log_w:.2g}", f"{pred:.2g}"]
            (faster if device_s < cpu_s else slower).append(p)
        else:
            cells += ["—"] * 4
        rows.append("| " + " | ".join(cells) + " |")
        print(rows[-1], flush=True)
    print(
        f"\nThe w-paths on {device} beat the default path on one CPU thread at p = {faster or 'none'}, "
        f"and lost at p = {slower or 'none'}: exact_batch.DEVICE_FROM_P belongs between.",
        flush=True,
    )
    return rows


def run_step(name: str, command: list[str], out_dir: Path, timeout_s: float) -> str:
    """Run one step in its own process; its output goes to ``out_dir/name.txt`` and is returned."""
    started = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s)
        text = done.stdout + done.stderr
        status = f"exit {done.returncode}"
    except subprocess.TimeoutExpired as expired:
        text = (
            (expired.stdout or b"").decode()
            if isinstance(expired.stdout, bytes)
            else str(expired.stdout or "")
        )
        status = f"TIMEOUT after {timeout_s:.0f} s"
    report = f"### {name}: {status}, {time.perf_counter() - started:.1f} s\n$ {' '.join(command)}\n\n{text}\n"
    (out_dir / f"{name}.txt").write_text(report)
    print(report, flush=True)
    return report


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.gpu_check", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("gpu-check-results"))
    parser.add_argument("--full", action="store_true", help="full bench.speed sizes (slower)")
    parser.add_argument("--smoke", action="store_true", help="the agreement step only, tiny sizes")
    parser.add_argument("--agreement-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--n", type=int, default=2000, help=argparse.SUPPRESS)
    parser.add_argument("--exact-device", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    cuda = torch.cuda.is_available()
    if args.exact_device:
        print(
            "| p | n | SAL, w-paths on the device (s) | SAL, default path on one CPU thread (s) | ratio | "
            "max Δ log w | max Δ prediction |\n|---:|---:|---:|---:|---:|---:|---:|",
            flush=True,
        )
        exact_on_device("cuda" if cuda else "cpu", EXACT_DEVICE_SIZES)
        return
    if args.agreement_only:
        devices = ("cpu", "cuda") if cuda else ("cpu", "cpu")
        for key, value in agreement(devices, n=args.n, rounds=2 if args.n < 1000 else 10).items():
            print(f"| {key} | {value:.3g} |")
        return
    args.out.mkdir(parents=True, exist_ok=True)
    py = sys.executable
    agreement_step = [py, "-m", "bench.gpu_check", "--agreement-only", "--n", "200" if args.smoke else "2000"]
    steps: list[tuple[str, list[str], float]] = [("agreement", agreement_step, 300.0)]
    if not args.smoke:
        pytest = [
            py,
            "-m",
            "pytest",
            "-q",
            "--noconftest",
            "-o",
            "addopts=",
            "--import-mode=importlib",
            *TEST_FILES,
        ]
        steps.insert(0, ("tests", pytest, 300.0))
        speed = [py, "-m", "bench.speed", *([] if args.full else ["--quick"])]
        steps.append(("speed-cpu", [*speed, "--device", "cpu"], 600.0 if args.full else 240.0))
        if cuda:
            steps.append(("speed-cuda", [*speed, "--device", "cuda"], 600.0 if args.full else 240.0))
            steps.append(("exact-device", [py, "-m", "bench.gpu_check", "--exact-device"], 420.0))
    header = f"GPU check: CUDA {'available: ' + torch.cuda.get_device_name(0) if cuda else 'not available'}\n"
    print(header)
    reports = [header] + [run_step(name, command, args.out, timeout) for name, command, timeout in steps]
    (args.out / "summary.md").write_text("\n".join(reports))


if __name__ == "__main__":
    main()
