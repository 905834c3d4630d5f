"""Workers on every core, with numpy's BLAS held to the worker's thread setting or left at its default.

    python -m bench.worker_threads [--workers 2] [--fits 6]

The scale-out deployment runs one worker per core with ``SAL_TORCH_THREADS=1`` (the compose file).
That setting used to reach torch alone; numpy's BLAS (OpenBLAS in numpy's wheel) kept one thread
per core, whose idle threads spin after every call, so N workers ran N × cores busy threads.
:func:`worker.runner.hold_threads` now holds both. This bench starts ``--workers`` processes at once,
each holding its threads as a worker does (``held``: :func:`worker.runner.hold_threads`) or as one did
before (``torch only``: ``torch.set_num_threads``), each fitting SAL at defaults ``--fits`` times on
n = 2,000, p = 100 (:func:`bench.speed.gaussian_environments`, a fit whose selection calls numpy's
LAPACK between its compiled w-paths), and prints the fits' CPU and wall seconds per fit, both ways,
and their ratio. The two ways run one after the other in the same run, held first.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import statistics
import time
from collections.abc import Sequence

from bench.common import machine_line, now


def _worker(held: bool, fits: int, start: mp.synchronize.Barrier, out: mp.Queue) -> None:  # type: ignore[type-arg]
    import torch

    from bench.speed import gaussian_environments
    from sal_core import exact_compiled, get_algorithm
    from worker.runner import hold_threads

    if held:
        hold_threads(1)
    else:
        torch.set_num_threads(1)
    exact_compiled.warm_up()
    envs = gaussian_environments(2_000, 100)
    algorithm = get_algorithm("sal")(seed=0)
    algorithm.fit(envs)  # warm-up: numba's cache, torch's first calls
    start.wait()
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(fits):
        algorithm.fit(envs)
    out.put(((time.process_time() - cpu) / fits, (time.perf_counter() - wall) / fits))


def run(held: bool, workers: int, fits: int) -> tuple[float, float]:
    """Mean CPU and wall seconds per fit over ``workers`` processes fitting at once."""
    ctx = mp.get_context("spawn")
    start = ctx.Barrier(workers)
    out: mp.Queue = ctx.Queue()  # type: ignore[type-arg]
    procs = [ctx.Process(target=_worker, args=(held, fits, start, out)) for _ in range(workers)]
    for proc in procs:
        proc.start()
    results = [out.get() for _ in procs]
    for proc in procs:
        proc.join()
    return statistics.mean(r[0] for r in results), statistics.mean(r[1] for r in results)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.worker_threads", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--workers", type=int, default=2, help="processes fitting at once (one per core)")
    parser.add_argument("--fits", type=int, default=6, help="fits per process")
    args = parser.parse_args(argv)
    print(f"# Workers' BLAS threads ({now()}; {machine_line('cpu')})\n")
    print(f"{args.workers} workers at once, {args.fits} default SAL fits each, n = 2,000, p = 100\n")
    print("| threads | CPU s per fit | wall s per fit |")
    print("|---|---:|---:|")
    rows = {}
    for held in (True, False):
        cpu, wall = run(held, args.workers, args.fits)
        rows[held] = (cpu, wall)
        print(
            f"| {'torch and BLAS held (now)' if held else 'torch only (before)'} | {cpu:.3f} | {wall:.3f} |"
        )
    (cpu_h, wall_h), (cpu_t, wall_t) = rows[True], rows[False]
    print(f"\nbefore / now: CPU {cpu_t / cpu_h:.2f}×, wall {wall_t / wall_h:.2f}×")


if __name__ == "__main__":
    main()
