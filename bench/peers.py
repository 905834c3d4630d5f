"""SAL at its defaults against the Wasserstein-DRO peers on PyPI, timed side by side in one run.

    python -m bench.peers [--quick]      # in an environment that has skwdro and dro installed
    python -m bench.peers --p1000 [--peer-limit 300]   # n = 10⁵, p = 1,000: SAL projected

The peers are not dependencies of the service; install them beside torch 2.13 (CPU) in a separate
environment, with the project on PYTHONPATH (``sal_core`` needs torch, numpy and, for the compiled
w-paths this bench times through :mod:`bench.solver`, numba at the project's pin)::

    python3 -m venv /tmp/peers && /tmp/peers/bin/pip install torch==2.13.0 numpy 'numba>=0.68,<0.69'
    /tmp/peers/bin/pip install -c <(echo torch==2.13.0) skwdro dro
    PYTHONPATH=. /tmp/peers/bin/python -m bench.peers

What is timed, on one thread, in CPU seconds of this process around each fit (the machines are
shared; median of 3 after a warm-up, one fit where a fit takes over 2 s):

* ``sal``: ``get_algorithm("sal")().fit(environments)`` at defaults (lambda_="auto": every λ
  candidate and w-path variant on every fold, then the refit);
* ``sal (one λ)``: SAL at the λ its default chose, one w-path (what a user who knows λ pays);
* ``erm``: least squares through the same interface;
* ``skwdro``: ``skwdro.linear_models.LinearRegression(rho=0.1, solver="dedicated")`` (its cvxpy
  solver for the linear Wasserstein problem) on the pooled rows;
* ``dro``: ``dro.linear_model.wasserstein_dro.WassersteinDRO(model_type="ols")`` with ``eps=0.1``
  (cvxpy, CLARABEL) on the pooled rows.

``--p1000`` runs only n = 100,000, p = 1,000. SAL at defaults is not run there (about 20 minutes of
CPU): its time is projected as :mod:`bench.solver` projects it, from rounds of 4 w-paths timed on
the factorisation the library picks, times 41 paths × 400 rounds, plus one measured pass over the
rows (X'X per environment). ERM and the peers each fit once in a forked child, stopped after
``--peer-limit`` CPU seconds (or three times that in wall-clock seconds, or when it asks for more
than ``--peer-memory-gb`` of memory) and printed as "> N" with the reason.

The peers solve a different problem (one isotropic ball, no environments, no learned w, one radius
given rather than chosen), so the ratios say what SAL's defaults cost against the fastest existing
robust linear fit, not which is better. ``dro`` imports torchvision for its neural models; PyPI's
torchvision does not load beside the CPU torch 2.13 build, so a stub module stands in for it (the
linear model never touches it).
"""

from __future__ import annotations

import argparse
import multiprocessing
import resource
import signal
import statistics
import sys
import time
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection

import numpy as np

from bench import solver
from bench.common import machine_line, now, set_threads
from bench.speed import gaussian_environments
from sal_core import Environment, get_algorithm
from sal_core import exact_batch as eb
from sal_core.synthetic import selection_bias

Fit = Callable[[], object]


def _stub_torchvision() -> None:
    if "torchvision" in sys.modules:
        return
    stub = types.ModuleType("torchvision")
    for name in ("models", "transforms", "datasets"):
        part = types.ModuleType(f"torchvision.{name}")
        setattr(stub, name, part)
        sys.modules[f"torchvision.{name}"] = part
    sys.modules["torchvision"] = stub


def _pooled(envs: Sequence[Environment]) -> tuple[np.ndarray, np.ndarray]:
    return np.concatenate([e.X for e in envs]), np.concatenate([e.y for e in envs])


def cpu_seconds(fn: Fit) -> float:
    """CPU seconds of this process during one call."""
    started = time.process_time()
    fn()
    return time.process_time() - started


def cpu_median(fn: Fit, *, repeats: int = 3, single_above_s: float = 2.0) -> float:
    """Median CPU seconds of ``repeats`` calls after a warm-up call; the warm-up alone above ``single_above_s``."""
    first = cpu_seconds(fn)
    if first > single_above_s:
        return first
    return statistics.median(cpu_seconds(fn) for _ in range(repeats))


def peer_fitters(X: np.ndarray, y: np.ndarray) -> dict[str, Fit]:
    """skwdro and dro on the pooled rows X (n, p), y (n,); a peer that is not installed is skipped."""
    out: dict[str, Fit] = {}
    try:
        from skwdro.linear_models import LinearRegression

        out["skwdro"] = lambda: LinearRegression(rho=0.1, solver="dedicated").fit(X, y)
    except ImportError as err:
        print(f"skwdro not installed ({err}); skipped", file=sys.stderr)
    try:
        _stub_torchvision()
        from dro.linear_model.wasserstein_dro import WassersteinDRO

        def dro_fit() -> object:
            model = WassersteinDRO(input_dim=X.shape[1], model_type="ols")
            model.update({"eps": 0.1})
            return model.fit(X, y)

        out["dro"] = dro_fit
    except ImportError as err:
        print(f"dro not installed ({err}); skipped", file=sys.stderr)
    return out


def fitters(envs: list[Environment]) -> dict[str, Fit]:
    chosen = get_algorithm("sal")().fit(envs).certificate
    lam = chosen.lambda_ if chosen is not None else 1.0
    out: dict[str, Fit] = {
        "sal": lambda: get_algorithm("sal")().fit(envs),
        "sal (one λ)": lambda: get_algorithm("sal")({"lambda_": min(lam, 1e6)}).fit(envs),
        "erm": lambda: get_algorithm("erm")().fit(envs),
    }
    return out | peer_fitters(*_pooled(envs))


def settings(quick: bool) -> list[tuple[str, list[Environment]]]:
    paper = selection_bias(r=1.7, n=2000, seed=0, n_test=2).train
    out = [("paper setting (selection bias, n = 2,000, p = 10)", paper)]
    if not quick:
        out += [
            ("n = 200,000, p = 10 (Gaussian, two environments)", gaussian_environments(200_000, 10)),
            ("n = 2,000, p = 100 (Gaussian, two environments)", gaussian_environments(2_000, 100)),
        ]
    return out


def compare(title: str, envs: list[Environment]) -> str:
    times = {name: cpu_median(fn) for name, fn in fitters(envs).items()}
    lines = [f"### {title}", "", "| fit | CPU seconds | SAL at defaults / this |", "|---|---:|---:|"]
    lines += [f"| {name} | {s:.4f} | {times['sal'] / s:.1f}× |" for name, s in times.items()]
    peers = [t for n, t in times.items() if n in ("skwdro", "dro")]
    if peers:
        lines += [
            "",
            f"Fastest peer {min(peers):.4f} s; SAL at defaults is **{min(peers) / times['sal']:.2f}×** its speed.",
        ]
    return "\n".join(lines) + "\n"


# --- n = 10⁵, p = 1,000: peers capped in a child, SAL projected -----------------------------------


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _address_space() -> int:
    """Bytes of this process's virtual memory (Linux)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[0]) * resource.getpagesize()


def _capped_child(fn: Fit, send: Connection, cpu_limit_s: int, memory_gb: float) -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_limit_s, cpu_limit_s + 5))  # SIGXCPU ends it
    room = _address_space() + int(memory_gb * 2**30)  # the machine is shared: fail, don't swap others out
    resource.setrlimit(resource.RLIMIT_AS, (room, room))
    try:
        send.send(cpu_seconds(fn))
    except MemoryError:
        send.send(f"out of memory (over {memory_gb:g} GB more)")


@dataclass(frozen=True)
class Capped:
    """CPU seconds of a fit in a child; where it did not finish, what it had spent and why it stopped."""

    seconds: float
    stopped: str = ""


def _ending(exitcode: int | None) -> str:
    """Why a child ended without an answer: SIGXCPU is the CPU cap, SIGABRT mostly a native allocation over the memory cap."""
    if exitcode is not None and exitcode < 0:
        name = signal.Signals(-exitcode).name
        return {"SIGXCPU": "CPU limit", "SIGKILL": "wall-clock limit"}.get(
            name, f"{name}; an allocation over the memory cap?"
        )
    return f"exit {exitcode}"


def capped_seconds(fn: Fit, cpu_limit_s: int, memory_gb: float) -> Capped:
    """One call in a forked child, stopped after ``cpu_limit_s`` CPU seconds (3× that in wall clock)."""
    context = multiprocessing.get_context("fork")  # the child shares the parent's arrays, no copy
    receive, send = context.Pipe(duplex=False)
    before = _children_cpu()
    child = context.Process(target=_capped_child, args=(fn, send, cpu_limit_s, memory_gb))
    child.start()
    send.close()
    child.join(3 * cpu_limit_s)  # the wall-clock guard: other processes share the cores
    if child.is_alive():
        child.kill()
        child.join()
    try:
        result = receive.recv()
    except EOFError:  # killed before it could answer
        result = _ending(child.exitcode)
    if isinstance(result, float):
        return Capped(result)
    return Capped(_children_cpu() - before, result)


def projected_sal(envs: list[Environment], rounds: int) -> tuple[float, float, float]:
    """(seconds per round of 4 paths, projected seconds of the rounds, seconds of one pass over the rows)."""
    p = envs[0].X.shape[1]
    moments = solver._moments_of(p)
    paths = 4
    batch = solver._batch(moments, paths)
    per_round = solver.seconds_per_round(batch, float(moments.yy), rounds, cholesky_from=eb.CHOLESKY_FROM_P)
    scale = (solver.SELECTION_PATHS / paths) * solver.SELECTION_ROUNDS * (1 + 1 / solver.SELECTION_PATHS)
    one_pass = cpu_seconds(lambda: [e.X.T @ e.X for e in envs])
    return per_round, per_round * scale, one_pass


def compare_p1000(cpu_limit_s: int, memory_gb: float, rounds: int) -> str:
    envs = gaussian_environments(100_000, 1000)
    per_round, rounds_s, one_pass = projected_sal(envs, rounds)
    sal = rounds_s + one_pass
    factorisation = "Cholesky" if eb.CHOLESKY_FROM_P <= 1000 else "eigh"
    fits = {"erm": lambda: get_algorithm("erm")().fit(envs)} | peer_fitters(*_pooled(envs))
    lines = [
        "### n = 100,000, p = 1,000 (Gaussian, two environments): SAL **projected**, not run",
        "",
        f"SAL at defaults, **projected**: {per_round * 1e3:.0f} ms of CPU per round of 4 w-paths "
        f"({rounds} rounds × 3 timed, {factorisation}) × 41 paths / 4 × 400 rounds "
        f"= {rounds_s:.0f} s, plus one pass over the rows {one_pass:.1f} s: **{sal:.0f} s**.",
        "",
        f"| fit (one each, stopped after {cpu_limit_s} CPU s) | CPU seconds | SAL at defaults (projected) / this |",
        "|---|---:|---:|",
    ]
    for name, fn in fits.items():
        run = capped_seconds(fn, cpu_limit_s, memory_gb)
        if run.stopped:
            lines.append(f"| {name} | > {run.seconds:.0f} ({run.stopped}) | < {sal / run.seconds:.1f}× |")
        else:
            lines.append(f"| {name} | {run.seconds:.2f} | {sal / run.seconds:.1f}× |")
        print(lines[-1], file=sys.stderr, flush=True)
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the paper setting only")
    parser.add_argument("--p1000", action="store_true", help="only n = 10⁵, p = 1,000 (SAL projected)")
    parser.add_argument("--peer-limit", type=int, default=300, help="CPU seconds a p = 1,000 fit may take")
    parser.add_argument("--peer-memory-gb", type=float, default=8.0, help="memory a p = 1,000 fit may add")
    parser.add_argument("--rounds", type=int, default=20, help="rounds timed for the p = 1,000 projection")
    args = parser.parse_args(argv)
    set_threads(1)
    command = " ".join(["python -m bench.peers", *(argv if argv is not None else sys.argv[1:])])
    print(f"## SAL at defaults vs Wasserstein-DRO peers — `{command}`\n")
    print(f"{now()}; {machine_line('cpu')}\n", flush=True)
    if args.p1000:
        print(compare_p1000(args.peer_limit, args.peer_memory_gb, args.rounds))
        return 0
    for title, envs in settings(args.quick):
        print(compare(title, envs), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
