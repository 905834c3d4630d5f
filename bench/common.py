"""What every benchmark shares: the machine it ran on, thread control and small timing helpers."""

from __future__ import annotations

import datetime as dt
import os
import platform
import statistics
import time
from collections.abc import Callable, Sequence

import numpy as np
import torch


def set_threads(threads: int | None) -> None:
    """Limit torch's intra-op threads and, where threadpoolctl is installed, numpy's BLAS threads.

    On a small shared machine one thread is often faster: the problems are small and the other
    cores are busy, so extra threads mostly wait for each other.
    """
    if threads is None:
        return
    if threads < 1:
        raise SystemExit(f"--threads must be >= 1, got {threads}")
    torch.set_num_threads(threads)
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # optional: without it numpy keeps its own BLAS thread count
        return
    threadpool_limits(limits=threads)


def machine_line(device: str) -> str:
    """One line describing where the numbers came from."""
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"
    parts = [
        f"{os.cpu_count()} CPUs ({platform.processor() or platform.machine()})",
        f"torch {torch.__version__} with {torch.get_num_threads()} thread(s)",
        f"numpy {np.__version__}",
        f"device {device}",
        f"load average {load} at start",
    ]
    if device.startswith("cuda") and torch.cuda.is_available():
        parts.append(torch.cuda.get_device_name(0))
    return "; ".join(parts)


def now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def resolve_device_name(device: str) -> str:
    """'auto' -> 'cuda' when a GPU is visible, else 'cpu'; 'cuda' without a GPU stops the run."""
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise SystemExit("--device cuda requested but torch sees no GPU; use --device cpu or auto")
    return device


def timed(fn: Callable[[], object]) -> float:
    """Wall-clock seconds of one call."""
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    started = time.perf_counter()
    fn()
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    return time.perf_counter() - started


def median_time(fn: Callable[[], object], *, repeats: int, single_above_s: float = 2.0) -> float:
    """Median wall-clock seconds of ``repeats`` calls after one warm-up call.

    When the warm-up itself takes longer than ``single_above_s`` its time is returned alone: at that
    size first-call overheads are negligible and repeats would only lengthen the run.
    """
    first = timed(fn)
    if first > single_above_s:
        return first
    return statistics.median(timed(fn) for _ in range(repeats))


def growth_exponent(sizes: Sequence[float], seconds: Sequence[float]) -> float:
    """Least-squares slope of log(seconds) on log(size): time ∝ size^slope."""
    if len(sizes) < 2:
        return float("nan")
    slope, _ = np.polyfit(np.log(np.asarray(sizes, float)), np.log(np.asarray(seconds, float)), 1)
    return float(slope)


def met(ok: bool) -> str:
    return "MET" if ok else "MISSED"
