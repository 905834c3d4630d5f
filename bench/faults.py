"""Fault benchmark: recovery times and input bombs on a private stack, printed as a markdown table.

    python -m bench.faults [--kills 5] [--queued 19] [--sweep-trials 200]

Starts its own PostgreSQL cluster and Redis servers on free ports in temp dirs (the fault tests'
``tests/faults/servers.py``; the shared 5432/6379 are never touched), an API process and Celery
workers with the service's *default* recovery settings, and measures:

* worker pool child SIGKILLed mid-fit -> its second attempt starts (``--kills`` trials);
* a whole worker (main process and pool) SIGKILLed with a second worker up -> second attempt;
* Redis restarted (no persistence: every message lost) under 1 running + ``--queued`` queued
  jobs -> all done, counted from when Redis is back;
* PostgreSQL stopped 10 s under the same load -> all done, counted from when it is back;
* POST /jobs while Redis is down (status, latency) -> the job done after Redis is back;
* a 12 M x 7 Parquet file (a few hundred KB) and a 3 x 50,000 CSV: status, time, and the API
  process's peak RSS (VmHWM) before and after;
* tenant B's tiny job posted behind tenant A's ``--sweep-trials`` sweep -> B's job starts.

It measures and reports; it asserts nothing (tests/faults checks the budgets).
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import signal
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from app.db.session import make_engine
from app.settings import Settings
from tests.app import factories as f
from tests.conftest import Proc, bearer, make_api_key, start_worker
from tests.faults.servers import PrivatePostgres, PrivateRedis, start_api

LONG: dict[str, Any] = {
    "algorithm": "sal",
    "model": {"kind": "mlp", "hidden": [16]},
    "params": {"rounds": 200, "theta_steps": 10, "ascent_steps": 5},
}
SHORT: dict[str, Any] = {**LONG, "params": {**LONG["params"], "rounds": 40}}


def _until(predicate: Callable[[], bool], timeout: float, what: str, poll: float = 0.05) -> float:
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if predicate():
            return time.monotonic() - start
        time.sleep(poll)
    raise TimeoutError(f"{what} not within {timeout} s")


def _job(client: httpx.Client, job_id: str) -> dict[str, Any]:
    for _ in range(600):
        try:
            response = client.get(f"/jobs/{job_id}")
            if response.status_code == 200:
                return response.json()  # type: ignore[no-any-return]
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise TimeoutError(job_id)


def _mid_fit(client: httpx.Client, job_id: str, attempt: int) -> dict[str, Any]:
    state: dict[str, Any] = {}

    def ready() -> bool:
        state.update(_job(client, job_id))
        return (
            state["status"] == "running"
            and len(state["attempts"]) == attempt
            and state["progress"]["step"] >= 1
        )

    _until(ready, 120, f"job {job_id} attempt {attempt} mid-fit")
    return state


def _all_done(client: httpx.Client, ids: list[str], timeout: float = 900) -> list[str]:
    statuses: dict[str, str] = {}

    def done() -> bool:
        for job_id in ids:
            if statuses.get(job_id) not in ("succeeded", "failed", "cancelled"):
                statuses[job_id] = _job(client, job_id)["status"]
        return all(s in ("succeeded", "failed", "cancelled") for s in statuses.values()) and len(
            statuses
        ) == len(ids)

    _until(done, timeout, "every job", poll=0.2)
    return [statuses[i] for i in ids]


def _one_running_and_queued(client: httpx.Client, dataset: str, queued: int, seed: int = 0) -> list[str]:
    """A SAL fit (running when this returns) and ``queued`` tiny ERM jobs behind it: after a fault
    the time to all done is then recovery, not work."""
    first = client.post("/jobs", json=f.job_body(dataset, seed=seed, **SHORT)).json()["id"]
    rest = [
        client.post("/jobs", json=f.job_body(dataset, seed=seed + 1 + i)).json()["id"] for i in range(queued)
    ]
    _mid_fit(client, first, 1)
    return [first, *rest]


def _peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


@contextmanager
def _stack(
    root: Path,
    pg: PrivatePostgres,
    redis: PrivateRedis,
    name: str,
    workers: int = 1,
    auth: str = "single-user",
) -> Iterator[tuple[Settings, Proc, list[Proc], httpx.Client]]:
    settings = Settings(data_dir=root / name, database_url=pg.new_database(name), broker_url=redis.url)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    procs = [start_worker(settings, root / f"{name}-worker{i}.log") for i in range(workers)]
    api, base = start_api(settings, root / f"{name}-api.log", auth=auth)
    client = httpx.Client(base_url=base, timeout=60)
    try:
        yield settings, api, procs, client
    finally:
        client.close()
        api.stop()
        for proc in procs:
            proc.stop()


def _second_attempt_after_kill(
    client: httpx.Client, dataset: str, seed: int, kill: Callable[[dict[str, Any]], None]
) -> float:
    job_id = client.post("/jobs", json=f.job_body(dataset, seed=seed, **LONG)).json()["id"]
    state = _mid_fit(client, job_id, 1)
    kill(state)
    killed = time.monotonic()
    _until(lambda: len(_job(client, job_id)["attempts"]) >= 2, 120, "the second attempt", poll=0.05)
    took = time.monotonic() - killed
    _all_done(client, [job_id])
    return took


def bench_kills(root: Path, pg: PrivatePostgres, redis: PrivateRedis, kills: int) -> dict[str, str]:
    out: dict[str, str] = {}
    with _stack(root, pg, redis, "kills") as (_, _, procs, client):
        dataset = f.upload_csv(client, f.frame(seed=1)).json()["id"]

        def kill_child(state: dict[str, Any]) -> None:
            pid = int(state["attempts"][-1]["worker"].rsplit(":", 1)[1])
            ppid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
            assert ppid == procs[0].popen.pid, "not our worker's pool child"
            os.kill(pid, signal.SIGKILL)

        times = [_second_attempt_after_kill(client, dataset, i, kill_child) for i in range(kills)]
        out["pool child SIGKILLed -> second attempt (s)"] = (
            f"median {statistics.median(times):.1f}, max {max(times):.1f} ({kills} kills: "
            + ", ".join(f"{t:.1f}" for t in times)
            + ")"
        )
    with _stack(root, pg, redis, "hostkill", workers=2) as (settings, _, procs, client):
        dataset = f.upload_csv(client, f.frame(seed=2)).json()["id"]
        times = []
        for i in range(2):

            def kill_worker(state: dict[str, Any]) -> None:
                pid = int(state["attempts"][-1]["worker"].rsplit(":", 1)[1])
                ppid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
                victim = next(p for p in procs if p.popen.pid == ppid)
                os.killpg(victim.popen.pid, signal.SIGKILL)  # main process and pool, as a host loss
                victim.popen.wait()
                procs.remove(victim)

            times.append(_second_attempt_after_kill(client, dataset, 100 + i, kill_worker))
            procs.append(start_worker(settings, root / f"hostkill-worker-new{i}.log"))  # two again
        out["whole worker SIGKILLed, another up -> second attempt (s)"] = ", ".join(f"{t:.1f}" for t in times)
    return out


def bench_restarts(root: Path, pg: PrivatePostgres, queued: int) -> dict[str, str]:
    out: dict[str, str] = {}
    redis = PrivateRedis(root / "redis-restart")
    (root / "redis-restart").mkdir()
    redis.start()
    try:
        with _stack(root, pg, redis, "redis_restart") as (_, _, _, client):
            dataset = f.upload_csv(client, f.frame(seed=3)).json()["id"]
            ids = _one_running_and_queued(client, dataset, queued)
            redis.stop()
            time.sleep(5)
            redis.start()
            back = time.monotonic()
            resumed = _until(lambda: _job(client, ids[1])["status"] != "queued", 600, "the first queued job")
            statuses = _all_done(client, ids)
            out[
                f"Redis restarted (5 s down) under 1 running + {queued} queued ERM jobs -> (s after back)"
            ] = (
                f"first queued job starts {resumed:.1f}, all done {time.monotonic() - back:.1f} "
                f"({statuses.count('succeeded')}/{len(ids)} succeeded)"
            )
        with _stack(root, pg, redis, "pg_restart") as (_, _, _, client):
            dataset = f.upload_csv(client, f.frame(seed=4)).json()["id"]
            ids = _one_running_and_queued(client, dataset, queued)
            pg.stop()
            time.sleep(10)
            pg.start()
            back = time.monotonic()
            resumed = _until(lambda: _job(client, ids[1])["status"] != "queued", 600, "the first queued job")
            statuses = _all_done(client, ids)
            out[f"PostgreSQL stopped 10 s under 1 running + {queued} queued ERM jobs -> (s after back)"] = (
                f"first queued job starts {resumed:.1f}, all done {time.monotonic() - back:.1f} "
                f"({statuses.count('succeeded')}/{len(ids)} succeeded)"
            )
            ids = _one_running_and_queued(client, dataset, queued, seed=1000)
            start = time.monotonic()
            _all_done(client, ids)
            out[f"the same 1 + {queued} jobs, no fault -> all done (s after the fit was mid-way)"] = (
                f"{time.monotonic() - start:.1f}"
            )
        with _stack(root, pg, redis, "broker_down") as (_, _, _, client):
            dataset = f.upload_csv(client, f.frame(seed=5)).json()["id"]
            redis.stop()
            start = time.monotonic()
            response = client.post("/jobs", json=f.job_body(dataset))
            latency = time.monotonic() - start
            time.sleep(3)
            redis.start()
            back = time.monotonic()
            statuses = _all_done(client, [response.json()["id"]]) if response.status_code == 202 else ["-"]
            out["POST /jobs with Redis down"] = (
                f"{response.status_code} in {latency * 1000:.0f} ms; {statuses[0]} {time.monotonic() - back:.1f} s after Redis is back"
            )
    finally:
        redis.stop()
    return out


def _parquet_bomb(rows: int = 12_000_000, columns: int = 7) -> bytes:
    sink = io.BytesIO()
    chunk = 1_000_000
    schema = pa.schema(
        [("env", pa.string()), ("y", pa.float64())] + [(f"x{i}", pa.float64()) for i in range(columns - 2)]
    )
    block = pa.table(
        {
            "env": pa.array(["a"] * chunk),
            "y": np.zeros(chunk),
            **{f"x{i}": np.zeros(chunk) for i in range(columns - 2)},
        },
        schema=schema,
    )
    with pq.ParquetWriter(sink, schema, compression="zstd") as writer:
        for _ in range(rows // chunk):
            writer.write_table(block)
    return sink.getvalue()


def bench_bombs(root: Path, pg: PrivatePostgres, redis: PrivateRedis) -> dict[str, str]:
    out: dict[str, str] = {}
    bomb = _parquet_bomb()
    header = ",".join(["env", "y", *(f"c{i}" for i in range(50_000))])
    row = ",".join(["a", "1", *("0" for _ in range(50_000))])
    wide = "\n".join([header, row, row, row]).encode()
    with _stack(root, pg, redis, "bombs") as (_, api, _, client):
        f.upload_csv(client, f.frame(seed=6))
        before = _peak_rss_mb(api.popen.pid)
        form = {"target": "y", "environment": "env"}
        start = time.monotonic()
        response = client.post(
            "/datasets", files={"file": ("bomb.parquet", bomb, "application/octet-stream")}, data=form
        )
        took = time.monotonic() - start
        after = _peak_rss_mb(api.popen.pid)
        out[f"Parquet 12 M x 7 ({len(bomb) // 1024} KB)"] = (
            f"{response.status_code} in {took * 1000:.0f} ms; API peak RSS {before:.0f} -> {after:.0f} MB"
        )
        start = time.monotonic()
        response = client.post("/datasets", files={"file": ("wide.csv", wide, "text/csv")}, data=form)
        took = time.monotonic() - start
        out[f"CSV 3 x 50,000 columns ({len(wide) // 1024} KB)"] = (
            f"{response.status_code} in {took * 1000:.0f} ms; API peak RSS {_peak_rss_mb(api.popen.pid):.0f} MB"
        )
    return out


def bench_fairness(root: Path, pg: PrivatePostgres, redis: PrivateRedis, trials: int) -> dict[str, str]:
    with _stack(root, pg, redis, "fairness", auth="keys") as (settings, _, _, client):
        engine = make_engine(settings.database_url)
        a, b = bearer(make_api_key(engine, "tenant-a")), bearer(make_api_key(engine, "tenant-b"))
        engine.dispose()
        data = client.post("/datasets", files={"file": ("d.csv", f.csv_bytes(f.frame(seed=7)), "text/csv")},
                           data={"target": "y", "environment": "env"}, headers=a).json()["id"]  # fmt: skip
        b_data = client.post("/datasets", files={"file": ("d.csv", f.csv_bytes(f.frame(seed=8)), "text/csv")},
                             data={"target": "y", "environment": "env"}, headers=b).json()["id"]  # fmt: skip
        seeds = list(range(trials // 10))
        grid = [0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0]
        sweep = client.post(
            "/sweeps",
            json={"dataset_id": data, "train_environments": ["a", "b"], "seeds": seeds, "model": {"kind": "linear"},
                  "algorithms": {"sal": {"grid": {"lambda_": grid}, "params": {"rounds": 150, "theta_steps": 5, "ascent_steps": 2}}}},
            headers=a,
        ).json()  # fmt: skip
        time.sleep(2)
        tiny = client.post("/jobs", json=f.job_body(b_data), headers=b).json()["id"]
        waited = _until(
            lambda: client.get(f"/jobs/{tiny}", headers=b).json()["status"] != "queued",
            600,
            "B's job",
            poll=0.05,
        )
        progress = client.get(f"/sweeps/{sweep['id']}", headers=a).json()["progress"]
        client.post(f"/sweeps/{sweep['id']}/cancel", headers=a)
        return {
            f"tenant B's tiny job behind tenant A's {len(seeds) * len(grid)}-trial sweep -> starts (s)": (
                f"{waited:.1f} (A's trials still queued then: {progress['queued']})"
            )
        }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.faults", description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=5)
    parser.add_argument("--queued", type=int, default=19)
    parser.add_argument("--sweep-trials", type=int, default=200)
    parser.add_argument("--parts", default="kills,restarts,bombs,fairness", help="comma-separated subset")
    args = parser.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="sal-bench-faults-"))
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
    pg = PrivatePostgres(root)
    pg.start()
    redis = PrivateRedis(root / "redis")
    (root / "redis").mkdir()
    redis.start()
    rows: dict[str, str] = {}
    try:
        parts = set(args.parts.split(","))
        if "kills" in parts:
            rows |= bench_kills(root, pg, redis, args.kills)
        if "restarts" in parts:
            rows |= bench_restarts(root, pg, args.queued)
        if "bombs" in parts:
            rows |= bench_bombs(root, pg, redis)
        if "fairness" in parts:
            rows |= bench_fairness(root, pg, redis, args.sweep_trials)
    finally:
        redis.stop()
        pg.stop()
        shutil.rmtree(root, ignore_errors=True)
    defaults = Settings()
    print(f"\nDefaults: lease_s {defaults.lease_s}, heartbeat_s {defaults.heartbeat_s}, reaper_interval_s "
          f"{defaults.reaper_interval_s}, idle_resend_s {defaults.idle_resend_s}, requeue_after_s {defaults.requeue_after_s}; "
          f"{os.cpu_count()} CPUs\n")  # fmt: skip
    print("| fault | measured |\n|---|---|")
    for key, value in rows.items():
        print(f"| {key} | {value} |")


if __name__ == "__main__":
    main()
