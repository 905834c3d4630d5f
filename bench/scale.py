"""Out-of-core fits at scale (issue 19): a dataset generated chunk by chunk, uploaded through the
API, and fitted chunk by chunk through the API with 1 and with 2 worker processes.

    python -m bench.scale [--rows 4000000] [--features 20] [--check-rows 200000] [--lambda auto]
    python -m bench.scale --rows 100000000 --into-store --check-rows 0     # issue 19's 10^8 rows

``--into-store`` generates the rows straight into the service's store, staged as an upload stages
them (``--chunk-rows`` per row group), instead of uploading a file: at 10^8 rows an upload holds
the file, the request's spool, the per-environment spools and the stored table at once (~76 GB).

Runs the service in a temporary directory on SQLite and the local store, with a private Redis as
the broker (the filesystem broker of the embedded default delivers about one message a second,
too slow to hand out chunk tasks; tests/faults/servers.py starts it on its own port and stops it),
and ``SAL_CHUNKED_FIT_MIN_ROWS=1``. Prints:

* the dataset: how it was made (uploaded or generated into the store), its stored size and rows
  per stored chunk (row group);
* per worker count: the job's wall time (POST to succeeded) and the peak RSS of any worker process;
* the same job in memory (``--in-memory``: one worker with ``SAL_CHUNKED_FIT_MIN_ROWS=0``, which
  loads the table), for its wall time and peak RSS;
* the measured cost of one chunk (its passes, one core, in this process);
* the chunked fit against the in-memory fit of the same rows at ``--check-rows`` (relative
  difference of the coefficients and of w; at ``lambda_="auto"`` whether both chose the same λ);
* the projection to ``--target-rows`` (issue 19: 10^8 x 20) on N workers: chunks x cost / N plus
  the solve.

SAL runs at its defaults (``--lambda auto``: four passes, the fourth scoring the λ candidates out
of fold) or at a fixed ``lambda_`` (three passes). It measures and reports; it asserts nothing
(tests/worker/test_chunked.py and tests/app/test_outofcore.py check the behaviour).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from app.datasets import chunks, fanout, service, tables
from app.datasets.streaming import Stager
from app.db.models import DEFAULT_TENANT_ID
from app.db.session import engine_for, make_sessionmaker
from app.queue import worker_command
from app.settings import Settings
from app.storage.local import LocalStore
from sal_core.algorithms.sal import SAL
from tests.conftest import Proc, _wait_for, free_port
from tests.faults.servers import PrivateRedis

ENVIRONMENTS = ("e0", "e1", "e2", "e3")  # e0, e1 train; e2, e3 test
SPURIOUS = {"e0": 2.0, "e1": 1.0, "e2": -1.0, "e3": -2.0}  # x5 = r_e * y + noise


def generated_chunks(
    rows: int, p: int, chunk_rows: int, seed: int = 0
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(environment names, X, y) of ``rows`` rows, ``chunk_rows`` at a time: y depends on x0-x4
    (stable), x5 follows y with an environment-dependent sign (spurious), the rest is noise."""
    beta = np.array([1.0, -0.5, 0.8, 0.3, -1.2])
    for i, start in enumerate(range(0, rows, chunk_rows)):
        n = min(chunk_rows, rows - start)
        rng = np.random.default_rng([seed, i])
        which = rng.integers(0, len(ENVIRONMENTS), size=n)
        X = rng.normal(size=(n, p))
        y = X[:, :5] @ beta + rng.normal(scale=0.5, size=n)
        X[:, 5] = np.array([SPURIOUS[e] for e in ENVIRONMENTS])[which] * y + rng.normal(size=n)
        yield np.asarray(ENVIRONMENTS, dtype=object)[which], X, y


def generate(path: Path, rows: int, p: int, chunk_rows: int, seed: int = 0) -> None:
    """A Parquet file of ``rows`` x (env, x0..x{p-1}, y) (:func:`generated_chunks`), written a chunk
    at a time."""
    schema = pa.schema(
        [
            pa.field("env", pa.string()),
            *(pa.field(f"x{j}", pa.float64()) for j in range(p)),
            pa.field("y", pa.float64()),
        ]
    )
    with pq.ParquetWriter(path, schema, compression="zstd") as writer:
        for env, X, y in generated_chunks(rows, p, chunk_rows, seed):
            arrays = [pa.array(env, pa.string()), *(pa.array(X[:, j]) for j in range(p)), pa.array(y)]
            writer.write_table(pa.Table.from_arrays(arrays, schema=schema))


def _env(root: Path, broker_url: str, groups_per_task: int = 4) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SAL_")}
    return env | {
        "SAL_CHUNK_GROUPS_PER_TASK": str(groups_per_task),
        "SAL_DATA_DIR": str(root),
        "SAL_BROKER_URL": broker_url,
        "SAL_AUTH": "single-user",
        "SAL_CHUNKED_FIT_MIN_ROWS": "1",
        "SAL_MAX_UPLOAD_BYTES": str(1 << 40),
        "SAL_MAX_ROWS": str(10**10),
        "SAL_MAX_CELLS": str(10**12),
        "SAL_UPLOAD_WAIT_S": "3600",
        "SAL_PROGRESS_MIN_INTERVAL_S": "1",
        "SAL_TORCH_THREADS": "1",
        "PROMETHEUS_MULTIPROC_DIR": str(root / "metrics"),
        "PYTHONUNBUFFERED": "1",
    }


def _rss_mb(pid: int) -> float:
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _tree(pid: int) -> list[int]:
    out = [pid]
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            for child in (task / "children").read_text().split():
                out += _tree(int(child))
    return out


class Stack:
    """The API (one uvicorn process) on SQLite; workers started and stopped per measurement."""

    def __init__(self, root: Path, groups_per_task: int = 4) -> None:
        self.root = root
        (root / "redis").mkdir(parents=True, exist_ok=True)
        self.redis = PrivateRedis(root / "redis")
        self.redis.start()
        self.env = _env(root, self.redis.url, groups_per_task)
        (root / "metrics").mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, "-c", "from app.db import migrate; from app.settings import get_settings; "
             "migrate.upgrade(get_settings().database_url)"],
            env=self.env, check=True,
        )  # fmt: skip
        port = free_port()
        self.base = f"http://127.0.0.1:{port}"
        self.api = Proc(
            [sys.executable, "-m", "uvicorn", "app.main:app", "--host", "127.0.0.1", "--port", str(port)],
            self.env, root / "api.log",
        )  # fmt: skip

        def up() -> bool:
            with contextlib.suppress(httpx.HTTPError):
                return httpx.get(f"{self.base}/healthz", timeout=1).status_code == 200
            return False

        _wait_for(up, 60, "the API")

    def settings(self) -> Settings:
        """The service's settings, as its processes read them from their environment."""
        values: dict[str, Any] = {
            k.removeprefix("SAL_").lower(): v for k, v in self.env.items() if k.startswith("SAL_")
        }
        return Settings.model_validate(values)

    def generate_into_store(self, rows: int, p: int, chunk_rows: int) -> dict[str, Any]:
        """The dataset generated chunk by chunk straight into the service's store (issue 19's
        ``bench.scale`` at 10^8 rows: an upload would hold the file, the request's spool, the
        per-environment spools and the stored table at once). Rows are staged as an upload stages
        them (:class:`app.datasets.streaming.Stager`: row groups of the stored table, content id
        from the per-environment spool), stored by the service's own ``datasets.service.store``,
        then read back through ``GET /datasets/{id}``."""
        settings = self.settings()
        stage = Path(tempfile.mkdtemp(prefix="stage-", dir=self.root))
        with Stager(stage, [f"x{j}" for j in range(p)], "y") as stager:
            for env, X, y in generated_chunks(rows, p, chunk_rows):
                stager.add(env, np.asfortranarray(X), y)
        with stager.staged() as staged, make_sessionmaker(engine_for(settings))() as session:
            dataset, _ = service.store(session, DEFAULT_TENANT_ID, staged, "scale", settings=settings)
            dataset_id = dataset.id
        response = httpx.get(f"{self.base}/datasets/{dataset_id}", timeout=60)
        response.raise_for_status()
        return dict(response.json())

    def upload(self, path: Path) -> dict[str, Any]:
        with path.open("rb") as fh:
            response = httpx.post(
                f"{self.base}/datasets",
                files={"file": (path.name, fh, "application/octet-stream")},
                data={"target": "y", "environment": "env"},
                timeout=3600,
            )
        response.raise_for_status()
        return dict(response.json())

    def fit(
        self, dataset_id: str, workers: int, params: dict[str, Any], *, chunked: bool = True
    ) -> tuple[float, float, dict[str, Any], float]:
        """(wall seconds from POST to succeeded, peak RSS of any worker process in MB, result,
        seconds the job's worker spent in its passes, from its log; nan in memory)."""
        args = worker_command(["sal", "sal-chunks"], concurrency=workers, hostname=f"scale{workers}@%h")
        env = self.env | ({} if chunked else {"SAL_CHUNKED_FIT_MIN_ROWS": "0"})
        log = self.root / f"worker-{workers}{'' if chunked else '-memory'}.log"
        worker = Proc(args, env, log)
        worker.wait_for_log(" ready.", timeout=120)
        peak, stop = 0.0, threading.Event()

        def watch() -> None:
            nonlocal peak
            while not stop.is_set():
                peak = max([peak, *(_rss_mb(pid) for pid in _tree(worker.popen.pid))])
                time.sleep(0.2)

        watcher = threading.Thread(target=watch)
        watcher.start()
        try:
            body = {
                "dataset_id": dataset_id, "algorithm": "sal", "params": params,
                "train_environments": ["e0", "e1"], "test_environments": ["e2", "e3"],
            }  # fmt: skip
            started = time.monotonic()
            posted = httpx.post(f"{self.base}/jobs", json=body, timeout=60)
            if posted.status_code >= 300:
                raise RuntimeError(f"POST /jobs: {posted.status_code} {posted.text}")
            job = posted.json()["id"]
            while True:
                state = httpx.get(f"{self.base}/jobs/{job}", timeout=60).json()
                if state["status"] in ("succeeded", "failed", "cancelled"):
                    break
                time.sleep(0.2)
            took = time.monotonic() - started
            if state["status"] != "succeeded":
                raise RuntimeError(f"job {job} {state['status']}: {state.get('error')}")
            return took, peak, state["result"], _pass_seconds(worker.log(), job)
        finally:
            stop.set()
            watcher.join()
            worker.stop()

    def stop(self) -> None:
        self.api.stop()
        self.redis.stop()


def _pass_seconds(log: str, job: str) -> float:
    """The passes' seconds the worker logged for the job (worker.chunked: 'passes {...}')."""
    for line in log.splitlines():
        if f"chunked fit of job {job}" in line:
            found = re.search(r"passes (\{[^}]*\})", line)
            if found:
                return float(sum(ast.literal_eval(found.group(1)).values()))
    return float("nan")


def chunk_cost(
    store: LocalStore, key: str, environments: tuple[str, ...], p: int, auto: bool, sample: int = 6
) -> tuple[float, int]:
    """(seconds of one core per row group for the job's passes, row groups), on ``sample`` groups."""
    n_groups = chunks.n_chunks(store, key)
    features = tuple(f"x{j}" for j in range(p))
    groups = tuple(range(min(sample, n_groups)))
    scaling = {"mean": [0.0] * p, "scale": [1.0] * p, "y_scale": 1.0}
    plan = SAL({}).exact_plan()
    folds = {"folds": plan.folds, "seed": 0} if auto else {}
    candidates = (len(plan.relatives) - 1) * len(plan.anchors) + 1
    fits = {
        "train": [0, 1],
        "theta": np.zeros((candidates, plan.folds, p)).tolist(),
        "z_bar": np.zeros((plan.folds, p)).tolist(),
        "y_bar": [0.0] * plan.folds,
    }
    passes = [
        fanout.Pass("stats", {}),
        fanout.Pass("sums", scaling | folds),
        *([fanout.Pass("oof", scaling | folds | fits)] if auto else []),
        fanout.Pass("metrics", {"coef": [0.0] * p, "intercept": 0.0}),
    ]
    total = 0.0
    for what in passes:
        part = fanout.Part(
            "cost", what.name, 0, groups, "local", key, environments, features, "y", what.params
        )
        start = time.perf_counter()
        fanout.compute_part(store, part)
        total += time.perf_counter() - start
    return total / len(groups), n_groups


def _stored_key(root: Path, sha: str) -> str:
    found = sorted((root / "objects").rglob(f"{sha}-*.parquet"))
    return found[0].relative_to(root / "objects").as_posix()


def _rel(a: dict[str, float], b: np.ndarray) -> float:
    x = np.array(list(a.values()))
    return float(np.max(np.abs(x - b)) / np.max(np.abs(b)))


def check_in_memory(stack: Stack, root: Path, rows: int, p: int, params: dict[str, Any]) -> str:
    """The chunked job against sal_core's in-memory fit of the same rows."""
    from app.jobs.spec import build_algorithm

    path = root / "check.parquet"
    generate(path, rows, p, chunk_rows=max(1, rows // 40), seed=1)
    dataset = stack.upload(path)
    _, _, result, _ = stack.fit(dataset["id"], 1, params)
    table = tables.from_file(
        path.read_bytes(), filename="check.parquet", target="y", environment="env", features=None
    )
    model = build_algorithm(
        "sal", params=params, task="regression", model={"kind": "linear"}, seed=0, device="cpu"
    )
    fit = model.fit([table.environment("e0"), table.environment("e1")], feature_names=table.feature_names)
    assert fit.coefficients_original is not None and fit.covariate_weights is not None
    chose = ""
    if fit.selection is not None and fit.selection.lambda_ is not None:
        mine, theirs = result["selection"]["chosen"], fit.selection.lambda_.chosen_candidate
        same = (mine["relative"], mine["variant"]) == (theirs.relative, theirs.variant)
        chose = f"; chosen λ = {mine['relative']}·base ({'the same' if same else 'NOT the same'} in memory)"
    return (
        f"n = {rows:,} x p = {p}: coefficients {_rel(result['coefficients'], fit.coefficients_original):.1e}, "
        f"w {_rel(result['covariate_weights'], fit.covariate_weights):.1e} relative (target 1e-8){chose}"
    )


def _chosen(result: dict[str, Any]) -> str:
    selection = result.get("selection")
    return "" if not selection else f"; chose λ = {selection['chosen']['relative']}·base"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.scale", description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=4_000_000)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--check-rows", type=int, default=200_000)
    parser.add_argument("--target-rows", type=int, default=100_000_000)
    parser.add_argument("--lambda", dest="lambda_", default="auto", help="'auto' (SAL's default) or a number")
    parser.add_argument("--workers", default="1,2", help="worker process counts to time")
    parser.add_argument("--in-memory", action="store_true", help="also time the job in memory")
    parser.add_argument(
        "--groups-per-task", type=int, default=4, help="SAL_CHUNK_GROUPS_PER_TASK: row groups per chunk task"
    )
    parser.add_argument(
        "--chunk-rows", type=int, default=20_000,
        help="rows per stored chunk with --into-store (an upload's parser stores ~19,900 at p = 20)",
    )  # fmt: skip
    parser.add_argument(
        "--into-store", action="store_true",
        help="generate the rows straight into the service's store instead of uploading a file (10^8 rows)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    auto = args.lambda_ == "auto"
    params: dict[str, Any] = {} if auto else {"lambda_": float(args.lambda_)}
    n_passes = "four" if auto else "three"
    root = Path(tempfile.mkdtemp(prefix="sal-bench-scale-"))
    rows: list[tuple[str, str]] = []
    stack = Stack(root, args.groups_per_task)
    try:
        path = root / "big.parquet"
        start = time.perf_counter()
        if args.into_store:
            dataset = stack.generate_into_store(args.rows, args.features, args.chunk_rows)
            made = f"generated chunk by chunk into the store in {time.perf_counter() - start:.0f} s"
        else:
            generate(path, args.rows, args.features, chunk_rows=100_000)
            generated = time.perf_counter() - start
            start = time.perf_counter()
            dataset = stack.upload(path)
            made = (
                f"generated in {generated:.0f} s, {path.stat().st_size / 2**20:.0f} MB Parquet uploaded in "
                f"{time.perf_counter() - start:.0f} s"
            )
            path.unlink()
        key = _stored_key(root, dataset["sha256"])
        store = LocalStore(root / "objects")
        cost, n_groups = chunk_cost(store, key, ENVIRONMENTS, args.features, auto)
        per_group = args.rows / n_groups
        stored_mb = store.size(key) / 2**20
        rows.append(
            ("dataset", f"n = {args.rows:,} x p = {args.features} ({args.rows * (args.features + 1) * 8 / 2**30:.2f} GiB "
             f"as float64): {made}; stored as {stored_mb:,.0f} MB in {n_groups} chunks of ~{per_group:,.0f} rows")
        )  # fmt: skip
        rows.append(("cost per chunk", f"{cost * 1e3:.0f} ms of one core (its {n_passes} passes)"))
        walls: dict[int, tuple[float, float]] = {}
        for w in (int(x) for x in args.workers.split(",")):
            took, peak, result, passes = stack.fit(dataset["id"], w, params)
            walls[w] = took, passes
            rows.append(
                (f"SAL (lambda_ = {args.lambda_}) through the API, {w} worker process(es)",
                 f"{took:.1f} s POST to succeeded, {passes:.1f} s of it in the {n_passes} passes; peak worker "
                 f"RSS {peak:.0f} MB (target <= 2048); test mean RMSE {result['summary']['mean_error']:.4f}"
                 f"{_chosen(result)}")
            )  # fmt: skip
        if args.in_memory:
            took, peak, result, _ = stack.fit(dataset["id"], 1, params, chunked=False)
            rows.append(
                (f"SAL (lambda_ = {args.lambda_}) through the API in memory, 1 worker process",
                 f"{took:.1f} s POST to succeeded; peak worker RSS {peak:.0f} MB; test mean RMSE "
                 f"{result['summary']['mean_error']:.4f}{_chosen(result)}")
            )  # fmt: skip
        if args.check_rows:
            rows.append(
                (
                    "chunked vs in-memory fit",
                    check_in_memory(stack, root, args.check_rows, args.features, params),
                )
            )
        # per chunk as the job paid it (compute, reads, the parts' objects, on the loaded host), and
        # what the job spent outside the passes (claim, the solve, the result): from the 1-worker run
        wall_1, passes_1 = walls.get(1, next(iter(walls.values())))
        in_job = passes_1 / n_groups
        fixed = max(wall_1 - passes_1, 0.0)
        target_chunks = args.target_rows / per_group
        projection = ", ".join(
            f"{n} worker(s) ~{target_chunks * in_job / n + fixed:,.0f} s" for n in (1, 2, 8, 32, 128)
        )
        rows.append(
            (f"projection to n = {args.target_rows:,} x p = {args.features}",
             f"{target_chunks:,.0f} chunks x {in_job * 1e3:.0f} ms (a chunk's {n_passes} passes inside the job) / N "
             f"+ {fixed:.0f} s outside the passes: {projection}; the rows' float64 are "
             f"{args.target_rows * (args.features + 1) * 8 / 2**30:.0f} GiB, a worker holds one chunk")
        )  # fmt: skip
    finally:
        stack.stop()
        shutil.rmtree(root, ignore_errors=True)
    print(f"\n{os.cpu_count()} CPUs; SQLite, a private Redis broker, the local store\n")
    print("| measure | result |\n|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")


if __name__ == "__main__":
    main()
