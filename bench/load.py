"""Load benchmark of the service on loopback: PostgreSQL + Redis, N API processes, 2 Celery workers.

    python -m bench.load [--api-procs 2] [--workers 2] [--duration 10] [--get-rate 500]
                         [--post-rate 100] [--concurrency 32] [--jobs 50] [--base-url URL]

Measures latency (p50/p99) and throughput of ``GET /jobs/{id}`` and ``POST /jobs``, and the
end-to-end latency of a tiny ERM job (POST → GET says ``succeeded``), then prints a markdown
table. It measures and reports; it asserts nothing.

Without ``--base-url`` it starts its own stack as subprocesses: ``uvicorn --workers N`` and two
``celery worker --concurrency=1`` processes, on PostgreSQL database ``sal_service_bench`` (created
if missing, its schema reset and migrated) and Redis DB 6 (flushed; nothing else is touched).

The load generator is asyncio in this process, in two modes:

* **open loop at a fixed rate** — a request is started every 1/rate s whether or not earlier ones
  have returned, and its latency is counted from when it *should* have started, so a stalled
  server shows up in the tail (no coordinated omission). This is the "p99 at ≥ 500 req/s" figure.
* **closed loop** — ``concurrency`` clients each send their next request when the previous one
  returns: the throughput the stack sustains, with the latency at that (saturating) load.

Why not wrk: it only has the closed loop (its fixed-rate fork, wrk2, is not packaged), so its p99
is a p99 at saturation, and it is a system package the test suite cannot count on. Why not httpx
for the timed phases: on a 2-CPU machine httpx spent about 1.8 ms of CPU per request, as much as
the server, so it measured the client (55% of a core for 200 req/s). The timed phases use
``RawClient``, a minimal keep-alive HTTP/1.1 client on asyncio streams with pre-encoded requests
(~5% of a core at 500 req/s); setup and the end-to-end jobs use httpx. The client's own CPU use is
in the table, so a client that is the bottleneck is visible.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import io
import json
import os
import platform
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from app.queue import worker_command

ROOT = Path(__file__).resolve().parents[1]
BENCH_DB = "sal_service_bench"
BENCH_REDIS_DB = 6
TARGET_GET_P99_MS = 20.0
TARGET_GET_RATE = 500.0
TARGET_E2E_P50_MS = 250.0


# --- measuring ---------------------------------------------------------------------------------


@dataclass
class Stats:
    name: str
    mode: str
    seconds: float
    latencies_s: list[float] = field(default_factory=list)
    errors: int = 0
    statuses: dict[int, int] = field(default_factory=dict)
    client_cpu_s: float = 0.0

    @property
    def n(self) -> int:
        return len(self.latencies_s)

    @property
    def throughput(self) -> float:
        return self.n / self.seconds if self.seconds > 0 else 0.0

    def percentile_ms(self, q: float) -> float:
        return (
            float(np.percentile(np.asarray(self.latencies_s), q) * 1000) if self.latencies_s else float("nan")
        )

    @property
    def client_cpu_pct(self) -> float:
        return 100 * self.client_cpu_s / self.seconds if self.seconds > 0 else 0.0

    def record(self, status: int | None, seconds: float, expected: tuple[int, ...]) -> None:
        if status is not None:
            self.statuses[status] = self.statuses.get(status, 0) + 1
        if status in expected:
            self.latencies_s.append(seconds)
        else:
            self.errors += 1


class RawClient:
    """A minimal HTTP/1.1 keep-alive client on asyncio streams for the timed phases: requests are
    pre-encoded bytes and responses are read by Content-Length (the API always sends one). httpx
    costs about as much CPU per request as the server itself on a 2-CPU machine, which would
    measure the client; this costs a few percent of that."""

    def __init__(self, base_url: str, connections: int = 64) -> None:
        url = httpx.URL(base_url)
        self.host, self.port = url.host, url.port or 80
        self._idle: asyncio.Queue[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = asyncio.Queue()
        self._slots = asyncio.Semaphore(connections)
        self._all: list[asyncio.StreamWriter] = []

    @staticmethod
    def encode(
        method: str, path: str, *, headers: dict[str, str] | None = None, json_body: Any = None
    ) -> bytes:
        body = b"" if json_body is None else json.dumps(json_body).encode()
        lines = [
            f"{method} {path} HTTP/1.1",
            "Host: 127.0.0.1",  # the benches serve on loopback; the single-user API trusts only loopback hosts
            *(f"{k}: {v}" for k, v in (headers or {}).items()),
        ]
        if json_body is not None:
            lines += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
        return ("\r\n".join(lines) + "\r\n\r\n").encode() + body

    async def send(self, raw: bytes) -> int | None:
        """The response's status, or None when the connection failed."""
        async with self._slots:
            try:
                reader, writer = self._idle.get_nowait()
            except asyncio.QueueEmpty:
                reader, writer = await asyncio.open_connection(self.host, self.port)
                self._all.append(writer)
            try:
                writer.write(raw)
                head = await reader.readuntil(b"\r\n\r\n")
                status = int(head[9:12])
                length = 0
                for line in head.split(b"\r\n"):
                    if line[:15].lower() == b"content-length:":
                        length = int(line[15:])
                if length:
                    await reader.readexactly(length)
            except (OSError, asyncio.IncompleteReadError, ValueError):
                writer.close()
                return None
            self._idle.put_nowait((reader, writer))
            return status

    async def close(self) -> None:
        for writer in self._all:
            writer.close()
        self._all.clear()


async def closed_loop(
    client: RawClient,
    request: bytes,
    *,
    name: str,
    concurrency: int,
    duration: float,
    expected: tuple[int, ...],
) -> Stats:
    """``concurrency`` workers, each sending its next request when the last one returned."""
    stats = Stats(name, f"closed loop, {concurrency} concurrent", duration)
    cpu0, start = time.process_time(), time.perf_counter()
    stop = start + duration

    async def one_client() -> None:
        while time.perf_counter() < stop:
            t0 = time.perf_counter()
            status = await client.send(request)
            stats.record(status, time.perf_counter() - t0, expected)

    await asyncio.gather(*(one_client() for _ in range(concurrency)))
    stats.seconds = time.perf_counter() - start
    stats.client_cpu_s = time.process_time() - cpu0
    return stats


async def open_loop(
    client: RawClient, request: bytes, *, name: str, rate: float, duration: float, expected: tuple[int, ...]
) -> Stats:
    """A request every 1/rate s regardless of the others; latency counted from its scheduled
    start (so time spent waiting for the client to catch up counts too)."""
    stats = Stats(name, f"open loop at {rate:g} req/s", duration)
    cpu0, start = time.process_time(), time.perf_counter()
    total = int(rate * duration)
    tasks: list[asyncio.Task[None]] = []

    async def one(scheduled: float) -> None:
        status = await client.send(request)
        stats.record(status, time.perf_counter() - scheduled, expected)

    for i in range(total):
        scheduled = start + i / rate
        delay = scheduled - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(one(scheduled)))
    await asyncio.gather(*tasks)
    stats.seconds = max(time.perf_counter() - start, duration)
    stats.client_cpu_s = time.process_time() - cpu0
    return stats


# --- the service's side: a dataset, job bodies, end-to-end jobs ---------------------------------


def tiny_csv(seed: int = 0, n_per_env: int = 30) -> bytes:
    """Three environments of 30 rows and three features: a fit of a few milliseconds."""
    rng = np.random.default_rng(seed)
    lines = ["env,x1,x2,x3,y"]
    for k, env in enumerate(("a", "b", "c")):
        X = rng.normal(size=(n_per_env, 3))
        y = X @ np.array([1.0, -2.0, 0.5]) + 0.1 * k + rng.normal(scale=0.1, size=n_per_env)
        lines += [
            f"{env},{r[0]!r},{r[1]!r},{r[2]!r},{v!r}" for r, v in zip(X.tolist(), y.tolist(), strict=True)
        ]
    return ("\n".join(lines) + "\n").encode()


def job_body(dataset_id: str) -> dict[str, Any]:
    """A tiny ERM job: linear least squares in closed form on two environments, tested on the third."""
    return {"dataset_id": dataset_id, "algorithm": "erm", "train_environments": ["a", "b"], "device": "cpu"}


def upload_dataset(client: httpx.Client, seed: int = 0) -> str:
    files = {"file": ("bench.csv", io.BytesIO(tiny_csv(seed)), "text/csv")}
    response = client.post(
        "/datasets", files=files, data={"target": "y", "environment": "env", "name": "bench"}
    )
    response.raise_for_status()
    return str(response.json()["id"])


def wait_for_job(
    client: httpx.Client, job_id: str, *, poll_s: float = 0.002, timeout: float = 60.0
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        job = client.get(f"/jobs/{job_id}").json()
        if job["status"] in ("succeeded", "failed", "cancelled"):
            return job  # type: ignore[no-any-return]
        if time.monotonic() > deadline:
            raise TimeoutError(f"job {job_id} still {job['status']} after {timeout} s")
        time.sleep(poll_s)


def end_to_end(client: httpx.Client, dataset_id: str, jobs: int, *, poll_s: float = 0.002) -> Stats:
    """One job at a time: POST, then GET every ``poll_s`` until it has succeeded."""
    stats = Stats("tiny ERM job, POST → succeeded", f"sequential, poll every {poll_s * 1000:g} ms", 0.0)
    cpu0, start = time.process_time(), time.perf_counter()
    for _ in range(jobs):
        t0 = time.perf_counter()
        response = client.post("/jobs", json=job_body(dataset_id))
        if response.status_code != 202:
            stats.record(response.status_code, 0.0, (202,))
            continue
        job = wait_for_job(client, response.json()["id"], poll_s=poll_s)
        ok = job["status"] == "succeeded"
        stats.record(200 if ok else 500, time.perf_counter() - t0, (200,))
    stats.seconds = time.perf_counter() - start
    stats.client_cpu_s = time.process_time() - cpu0
    return stats


@dataclass
class LoadConfig:
    duration: float = 10.0
    get_rate: float = TARGET_GET_RATE
    post_rate: float = 100.0
    concurrency: int = 32
    jobs: int = 50
    poll_s: float = 0.002
    warmup: float = 2.0


@dataclass
class Report:
    rows: list[Stats]
    config: LoadConfig


async def _get_phases(base_url: str, headers: dict[str, str], job_id: str, config: LoadConfig) -> list[Stats]:
    client = RawClient(base_url)
    get_one = client.encode("GET", f"/jobs/{job_id}", headers=headers)
    try:
        if config.warmup > 0:  # open the connections, warm the servers' caches and pools
            await closed_loop(
                client,
                get_one,
                name="warm-up",
                concurrency=config.concurrency,
                duration=config.warmup,
                expected=(200,),
            )
        return [
            await open_loop(
                client,
                get_one,
                name="GET /jobs/{id}",
                rate=config.get_rate,
                duration=config.duration,
                expected=(200,),
            ),
            await closed_loop(
                client,
                get_one,
                name="GET /jobs/{id}",
                concurrency=config.concurrency,
                duration=config.duration,
                expected=(200,),
            ),
        ]
    finally:
        await client.close()


async def _post_phases(
    base_url: str, headers: dict[str, str], dataset_id: str, config: LoadConfig
) -> list[Stats]:
    client = RawClient(base_url)
    post_one = client.encode("POST", "/jobs", headers=headers, json_body=job_body(dataset_id))
    try:
        return [
            await open_loop(
                client,
                post_one,
                name="POST /jobs",
                rate=config.post_rate,
                duration=config.duration,
                expected=(202,),
            ),
            await closed_loop(
                client,
                post_one,
                name="POST /jobs",
                concurrency=config.concurrency,
                duration=config.duration,
                expected=(202,),
            ),
        ]
    finally:
        await client.close()


def run(base_url: str, config: LoadConfig, headers: dict[str, str] | None = None) -> Report:
    """Every phase against a running service. POST /jobs goes last: the jobs it creates would
    otherwise queue ahead of the end-to-end jobs."""
    headers = headers or {}
    with httpx.Client(base_url=base_url, headers=headers, timeout=30.0) as client:
        dataset_id = upload_dataset(client)
        first = client.post("/jobs", json=job_body(dataset_id))
        first.raise_for_status()
        job = wait_for_job(client, first.json()["id"], timeout=120)
        if job["status"] != "succeeded":
            raise RuntimeError(f"the warm-up job did not succeed: {job}")
        rows = asyncio.run(_get_phases(base_url, headers, job["id"], config))
        rows.append(end_to_end(client, dataset_id, config.jobs, poll_s=config.poll_s))
    rows += asyncio.run(_post_phases(base_url, headers, dataset_id, config))
    return Report(rows, config)


# --- the report ----------------------------------------------------------------------------------


def render(report: Report, command: str, stack: str = "") -> str:
    c = report.config
    lines = [
        "## Service load benchmark",
        "",
        f"`{command}`",
        "",
        f"{dt.date.today().isoformat()} · {os.cpu_count()} CPUs ({platform.machine()}) · Python {platform.python_version()}"
        + (f" · {stack}" if stack else ""),
        "",
        "| operation | load | requests | errors | throughput (req/s) | p50 (ms) | p99 (ms) | max (ms) | client CPU |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for s in report.rows:
        worst = max(s.latencies_s) * 1000 if s.latencies_s else float("nan")
        lines.append(
            f"| {s.name} | {s.mode} | {s.n} | {s.errors} | {s.throughput:.0f} | {s.percentile_ms(50):.1f} "
            f"| {s.percentile_ms(99):.1f} | {worst:.1f} | {s.client_cpu_pct:.0f}% |"
        )
    get_open = next((s for s in report.rows if s.name.startswith("GET") and s.mode.startswith("open")), None)
    e2e = next((s for s in report.rows if s.name.startswith("tiny")), None)
    lines += ["", "Targets (measured, not asserted):", ""]
    if get_open is not None:
        rate_ok = get_open.throughput >= TARGET_GET_RATE * 0.98 and get_open.errors == 0
        p99 = get_open.percentile_ms(99)
        verdict = "MET" if rate_ok and p99 < TARGET_GET_P99_MS else "MISSED"
        lines.append(
            f"- GET /jobs/{{id}} p99 < {TARGET_GET_P99_MS:g} ms at ≥ {TARGET_GET_RATE:g} req/s: "
            f"{p99:.1f} ms at {get_open.throughput:.0f} req/s — {verdict}"
        )
    if e2e is not None:
        p50 = e2e.percentile_ms(50)
        verdict = "MET" if p50 < TARGET_E2E_P50_MS and e2e.errors == 0 else "MISSED"
        lines.append(f"- tiny ERM job end to end p50 < {TARGET_E2E_P50_MS:g} ms: {p50:.1f} ms — {verdict}")
    errors = {s.name + " / " + s.mode: s.statuses for s in report.rows if s.errors}
    if errors:
        lines += ["", f"Status codes where there were errors: {errors}"]
    lines += [
        "",
        f"Duration per phase {c.duration:g} s after a {c.warmup:g} s warm-up; {c.jobs} end-to-end jobs.",
    ]
    return "\n".join(lines) + "\n"


# --- the stack ------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def prepare_database(pg_admin_url: str, database: str) -> str:
    """Create ``database`` if missing, empty its schema and migrate it to head; returns its URL."""
    import psycopg

    from app.db import migrate

    with psycopg.connect(pg_admin_url, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (database,)).fetchone() is None:
            conn.execute(f'CREATE DATABASE "{database}"')
    base = pg_admin_url.rsplit("/", 1)[0]
    with psycopg.connect(f"{base}/{database}", autocommit=True) as conn:
        conn.execute("DROP SCHEMA IF EXISTS public CASCADE")
        conn.execute("CREATE SCHEMA public")
    url = f"{base.replace('postgresql://', 'postgresql+psycopg://', 1)}/{database}"
    migrate.upgrade(url)
    return url


class Stack:
    """uvicorn with N API processes and W Celery worker processes, each in its own session,
    logging to files; stopped by their own pids only."""

    def __init__(self, *, database_url: str, broker_url: str, api_procs: int, workers: int, log_dir: Path,
                 extra_env: dict[str, str] | None = None, port: int | None = None,
                 server_args: list[str] | None = None) -> None:  # fmt: skip
        self.port = port or free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.api_procs = api_procs
        self.workers = workers
        self.log_dir = log_dir
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("SAL_")}
        self.env.update(
            SAL_DATABASE_URL=database_url,
            SAL_BROKER_URL=broker_url,
            SAL_DATA_DIR=str(log_dir / "var"),
            SAL_TORCH_THREADS="1",
            # The POST phase creates thousands of jobs for one tenant.
            SAL_MAX_ACTIVE_JOBS_PER_TENANT="1000000",
            PYTHONUNBUFFERED="1",
            **(extra_env or {}),
        )
        self.server_args = server_args or []
        self.procs: list[tuple[subprocess.Popen[bytes], Any]] = []

    def _spawn(self, args: list[str], log_name: str) -> subprocess.Popen[bytes]:
        log = open(self.log_dir / log_name, "wb")  # noqa: SIM115
        popen = subprocess.Popen(
            args, env=self.env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        self.procs.append((popen, log))
        return popen

    def start(self, timeout: float = 120.0) -> None:
        for i in range(self.workers):
            command = worker_command(["sal"], loglevel="WARNING", hostname=f"bench{i}-{os.getpid()}@%h")
            self._spawn(command, f"worker{i}.log")
        self._spawn(
            [
                sys.executable, "-m", "uvicorn", "app.main:create_app", "--factory", "--host", "127.0.0.1",
                "--port", str(self.port), "--workers", str(self.api_procs), "--no-access-log", "--log-level", "warning", *self.server_args,
            ],
            "api.log",
        )  # fmt: skip
        deadline = time.monotonic() + timeout
        while True:
            for popen, _ in self.procs:
                if popen.poll() is not None:
                    raise RuntimeError(
                        f"a bench process exited with {popen.returncode}; logs in {self.log_dir}"
                    )
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.base_url}/readyz", timeout=2).status_code == 200:
                    break
            if time.monotonic() > deadline:
                raise TimeoutError(f"the bench stack did not become ready; logs in {self.log_dir}")
            time.sleep(0.2)

    def pids(self) -> list[int]:
        return [p.pid for p, _ in self.procs]

    def stop(self, timeout: float = 20.0) -> None:
        for popen, _ in self.procs:
            if popen.poll() is None:
                popen.send_signal(signal.SIGTERM)
        for popen, log in self.procs:
            try:
                popen.wait(timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(popen.pid, signal.SIGKILL)
                popen.wait()
            log.close()


@contextlib.contextmanager
def bench_stack(
    *,
    api_procs: int,
    workers: int,
    pg_admin_url: str,
    redis_base: str,
    log_dir: Path,
    server_args: list[str] | None = None,
) -> Iterator[Stack]:
    import redis

    database_url = prepare_database(pg_admin_url, BENCH_DB)
    broker_url = f"{redis_base.rstrip('/')}/{BENCH_REDIS_DB}"
    client = redis.Redis.from_url(broker_url)
    client.flushdb()  # DB 6 is the benchmark's own
    client.close()
    stack = Stack(
        database_url=database_url,
        broker_url=broker_url,
        api_procs=api_procs,
        workers=workers,
        log_dir=log_dir,
        server_args=server_args,
    )
    try:
        stack.start()
        yield stack
    finally:
        stack.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__.splitlines()[0])
    parser.add_argument("--api-procs", type=int, default=2, help="uvicorn worker processes")
    parser.add_argument("--workers", type=int, default=2, help="Celery worker processes (concurrency 1 each)")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per phase")
    parser.add_argument("--get-rate", type=float, default=TARGET_GET_RATE, help="open-loop GET rate (req/s)")
    parser.add_argument("--post-rate", type=float, default=100.0, help="open-loop POST rate (req/s)")
    parser.add_argument("--concurrency", type=int, default=32, help="closed-loop clients")
    parser.add_argument("--jobs", type=int, default=50, help="end-to-end jobs")
    parser.add_argument("--poll-ms", type=float, default=2.0, help="end-to-end polling interval")
    parser.add_argument("--base-url", help="measure a running service instead of starting one")
    parser.add_argument(
        "--api-key", default=os.environ.get("SAL_BENCH_API_KEY"), help="Bearer key, where the API needs one"
    )
    parser.add_argument(
        "--pg", default="postgresql://postgres@127.0.0.1:5432/postgres", help="PostgreSQL admin URL"
    )
    parser.add_argument("--redis", default="redis://127.0.0.1:6379", help="Redis server (DB 6 is used)")
    parser.add_argument(
        "--server-args", default="", help="extra uvicorn arguments, e.g. '--http h11 --loop asyncio'"
    )
    parser.add_argument("--out", type=Path, help="also write the markdown here")
    args = parser.parse_args(argv)
    config = LoadConfig(
        duration=args.duration, get_rate=args.get_rate, post_rate=args.post_rate, concurrency=args.concurrency,
        jobs=args.jobs, poll_s=args.poll_ms / 1000,
    )  # fmt: skip
    headers = {"Authorization": f"Bearer {args.api_key}"} if args.api_key else {}
    command = "python -m bench.load " + shlex.join(argv if argv is not None else sys.argv[1:])
    if args.base_url:
        report, stack_line = run(args.base_url, config, headers), f"service at {args.base_url}"
    else:
        log_dir = Path(tempfile.mkdtemp(prefix="sal-bench-"))
        with bench_stack(
            api_procs=args.api_procs,
            workers=args.workers,
            pg_admin_url=args.pg,
            redis_base=args.redis,
            log_dir=log_dir,
            server_args=shlex.split(args.server_args),
        ) as stack:
            print(f"stack up at {stack.base_url} (pids {stack.pids()}, logs {log_dir})", file=sys.stderr)
            report = run(stack.base_url, config, headers)
        stack_line = f"{args.api_procs} API process(es), {args.workers} Celery worker process(es), PostgreSQL + Redis on loopback"
    text = render(report, command.strip(), stack_line)
    print(text)
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
