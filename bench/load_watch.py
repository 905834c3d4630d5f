"""What watching running jobs costs the API: Server-Sent Events against polling, in one run.

    python -m bench.load_watch [--jobs 100] [--sse-clients 1000] [--pollers 100] [--poll-hz 2]
                               [--duration 20] [--api-procs 2]

Starts its own API (``uvicorn --workers N``, no Celery worker) on PostgreSQL database
``sal_service_bench_watch`` (created if missing, schema reset and migrated) and Redis DB 7, submits
``--jobs`` tiny jobs and marks them running; a thread in this process then plays their workers,
writing each job's progress (step, the round's risk) every 0.5 s (``progress_min_interval_s``)
and renewing its lease. Then, one phase after the other, each ``--duration`` seconds:

* **idle**   nobody watches: the API's floor;
* **SSE**    ``--sse-clients`` streams of ``GET /jobs/{id}/events`` spread over the jobs;
* **poll**   ``--pollers`` clients each ``GET /jobs/{id}`` ``--poll-hz`` times a second;
* **list**   ``GET /jobs?limit=100`` in a closed loop of 4: p50/p99 and bytes per page.

The API's CPU is read from /proc (user + system of the uvicorn processes) before and after each
phase, and reported as CPU seconds per minute. The clients are raw asyncio sockets in this process
(bench.load.RawClient for the GETs), so they cost little; their own CPU is shown too.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import resource
import shlex
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx
import numpy as np

from bench.load import RawClient, Stack, prepare_database, upload_dataset

WATCH_DB = "sal_service_bench_watch"
WATCH_REDIS_DB = 7
PROGRESS_INTERVAL_S = 0.5
LIST_LIMIT = 100


@dataclass
class Phase:
    name: str
    clients: int
    seconds: float
    api_cpu_s: float
    client_cpu_s: float
    requests: int = 0  # GETs answered, or SSE events received
    p50_ms: float | None = None
    p99_ms: float | None = None
    bytes_per_response: float | None = None

    @property
    def api_cpu_s_per_min(self) -> float:
        return self.api_cpu_s / self.seconds * 60.0


def cpu_seconds(pids: Sequence[int]) -> float:
    """user + system CPU of ``pids`` and all their descendants (Linux /proc)."""
    tick = os.sysconf("SC_CLK_TCK")
    seen, todo, total = set(), list(pids), 0.0
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
            for task in Path(f"/proc/{pid}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
    return total


# --- the jobs and their pretend workers ---------------------------------------------------------


def start_running_jobs(base_url: str, database_url: str, n: int, total_steps: int = 10_000) -> list[str]:
    """``n`` jobs submitted through the API, then marked running as a worker's claim would."""
    from sqlalchemy import text

    from app.db.session import make_engine

    with httpx.Client(base_url=base_url, timeout=30) as client:
        dataset_id = upload_dataset(client, seed=7)
        body = {
            "dataset_id": dataset_id,
            "algorithm": "erm",
            "train_environments": ["a", "b"],
            "device": "cpu",
        }
        ids = [client.post("/jobs", json=body).json()["id"] for _ in range(n)]
    engine = make_engine(database_url)
    with engine.begin() as conn:
        conn.execute(
            text(
                "UPDATE jobs SET status = 'running', attempt = 1, started_at = now(), progress_step = 0, "
                "progress_total = :t, lease_expires_at = now() + interval '1 hour' WHERE id = ANY(:ids)"
            ),
            {"t": total_steps, "ids": ids},
        )
    engine.dispose()
    return ids


@contextlib.contextmanager
def pretend_workers(database_url: str, job_ids: list[str]) -> Iterator[None]:
    """Every PROGRESS_INTERVAL_S, each job moves one step with a new risk (one UPDATE for all)."""
    from sqlalchemy import text

    from app.db.session import make_engine

    engine = make_engine(database_url)
    stop = threading.Event()

    def run() -> None:
        step = 0
        while not stop.wait(PROGRESS_INTERVAL_S):
            step += 1
            with engine.begin() as conn:
                conn.execute(
                    text(
                        "UPDATE jobs SET progress_step = :s, progress_metrics = CAST(:m AS jsonb), "
                        "lease_expires_at = now() + interval '1 hour' WHERE id = ANY(:ids)"
                    ),
                    {"s": step, "m": f'{{"risk": {1.0 / step:.6f}}}', "ids": job_ids},
                )

    thread = threading.Thread(target=run, name="pretend-workers", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        engine.dispose()


# --- the watchers -------------------------------------------------------------------------------


async def sse_phase(
    base_url: str, job_ids: list[str], clients: int, duration: float, pids: list[int]
) -> Phase:
    """``clients`` event streams over the jobs; API CPU measured once all are connected."""
    url = httpx.URL(base_url)
    events = 0
    connected = 0
    all_connected = asyncio.Event()
    stop = asyncio.Event()

    async def one(job_id: str) -> None:
        nonlocal events, connected
        reader, writer = await asyncio.open_connection(url.host, url.port)
        writer.write(
            f"GET /jobs/{job_id}/events HTTP/1.1\r\nHost: {url.host}\r\nAccept: text/event-stream\r\n\r\n".encode()
        )
        await reader.readuntil(b"\r\n\r\n")
        connected += 1
        if connected == clients:
            all_connected.set()
        try:
            while not stop.is_set():
                line = await reader.readline()
                if not line:
                    break
                if line.startswith(b"event:"):
                    events += 1
        finally:
            writer.close()

    tasks = [asyncio.create_task(one(job_ids[i % len(job_ids)])) for i in range(clients)]
    await asyncio.wait_for(all_connected.wait(), timeout=120)
    await asyncio.sleep(1.0)  # the first events of every stream are out
    events_before, cpu0, client0, t0 = events, cpu_seconds(pids), time.process_time(), time.perf_counter()
    await asyncio.sleep(duration)
    phase = Phase(
        f"SSE, {clients} streams on {len(job_ids)} jobs",
        clients,
        time.perf_counter() - t0,
        cpu_seconds(pids) - cpu0,
        time.process_time() - client0,
        requests=events - events_before,
    )
    stop.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return phase


async def poll_phase(
    base_url: str, job_ids: list[str], pollers: int, hz: float, duration: float, pids: list[int]
) -> Phase:
    """``pollers`` clients, each GET /jobs/{id} ``hz`` times a second on its own connection."""
    client = RawClient(base_url, connections=pollers)
    latencies: list[float] = []
    cpu0, client0, t0 = cpu_seconds(pids), time.process_time(), time.perf_counter()
    stop = t0 + duration

    async def one(k: int) -> None:
        request = RawClient.encode("GET", f"/jobs/{job_ids[k % len(job_ids)]}")
        tick = t0 + k / pollers / hz  # spread over the period
        while tick < stop:
            await asyncio.sleep(max(tick - time.perf_counter(), 0))
            start = time.perf_counter()
            if await client.send(request) == 200:
                latencies.append(time.perf_counter() - start)
            tick += 1 / hz

    await asyncio.gather(*(one(k) for k in range(pollers)))
    phase = Phase(
        f"poll GET /jobs/{{id}}, {pollers} clients x {hz:g}/s",
        pollers,
        time.perf_counter() - t0,
        cpu_seconds(pids) - cpu0,
        time.process_time() - client0,
        requests=len(latencies),
        p50_ms=float(np.percentile(latencies, 50) * 1000) if latencies else None,
        p99_ms=float(np.percentile(latencies, 99) * 1000) if latencies else None,
    )
    await client.close()
    return phase


def list_phase(base_url: str, duration: float, pids: list[int], concurrency: int = 4) -> Phase:
    """GET /jobs?limit=100 in a closed loop (httpx in threads: the body size is read too)."""
    latencies: list[float] = []
    sizes: list[int] = []
    cpu0, client0, t0 = cpu_seconds(pids), time.process_time(), time.perf_counter()

    def loop() -> None:
        with httpx.Client(base_url=base_url, timeout=30) as client:
            while time.perf_counter() - t0 < duration:
                start = time.perf_counter()
                response = client.get(f"/jobs?limit={LIST_LIMIT}")
                latencies.append(time.perf_counter() - start)
                sizes.append(len(response.content))

    threads = [threading.Thread(target=loop) for _ in range(concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return Phase(
        f"GET /jobs?limit={LIST_LIMIT}, closed loop of {concurrency}",
        concurrency,
        time.perf_counter() - t0,
        cpu_seconds(pids) - cpu0,
        time.process_time() - client0,
        requests=len(latencies),
        p50_ms=float(np.percentile(latencies, 50) * 1000),
        p99_ms=float(np.percentile(latencies, 99) * 1000),
        bytes_per_response=float(np.mean(sizes)),
    )


@dataclass
class WatchConfig:
    jobs: int = 100
    sse_clients: int = 1000
    pollers: int = 100
    poll_hz: float = 2.0
    duration: float = 20.0


def run(base_url: str, database_url: str, api_pids: list[int], config: WatchConfig) -> list[Phase]:
    job_ids = start_running_jobs(base_url, database_url, config.jobs)
    with pretend_workers(database_url, job_ids):
        time.sleep(1.0)
        cpu0, client0, t0 = cpu_seconds(api_pids), time.process_time(), time.perf_counter()
        time.sleep(config.duration)
        idle = Phase("idle (nobody watching)", 0, time.perf_counter() - t0, cpu_seconds(api_pids) - cpu0,
                     time.process_time() - client0)  # fmt: skip
        sse = asyncio.run(sse_phase(base_url, job_ids, config.sse_clients, config.duration, api_pids))
        poll = asyncio.run(
            poll_phase(base_url, job_ids, config.pollers, config.poll_hz, config.duration, api_pids)
        )
        listing = list_phase(base_url, config.duration, api_pids)
    return [idle, sse, poll, listing]


def render(phases: list[Phase], command: str) -> str:
    def ms(v: float | None) -> str:
        return "–" if v is None else f"{v:.1f}"

    lines = [
        f"`{command}`",
        "",
        "| phase | API CPU s/min | client CPU s/min | answered (GETs or events) | p50 ms | p99 ms | bytes/response |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for p in phases:
        lines.append(
            f"| {p.name} | {p.api_cpu_s_per_min:.2f} | {p.client_cpu_s / p.seconds * 60:.2f} | {p.requests} "
            f"| {ms(p.p50_ms)} | {ms(p.p99_ms)} | {'–' if p.bytes_per_response is None else f'{p.bytes_per_response:.0f}'} |"
        )
    sse, poll = phases[1], phases[2]
    ratio = sse.api_cpu_s_per_min / poll.api_cpu_s_per_min if poll.api_cpu_s_per_min else float("nan")
    lines += ["", f"SSE / polling API CPU: {ratio:.2f} (goal < 1: {'met' if ratio < 1 else 'missed'})"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.load_watch", description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=100)
    parser.add_argument("--sse-clients", type=int, default=1000)
    parser.add_argument("--pollers", type=int, default=100)
    parser.add_argument("--poll-hz", type=float, default=2.0)
    parser.add_argument("--duration", type=float, default=20.0, help="seconds per phase")
    parser.add_argument("--api-procs", type=int, default=2)
    parser.add_argument("--pg-admin-url", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379")
    args = parser.parse_args(argv)
    config = WatchConfig(args.jobs, args.sse_clients, args.pollers, args.poll_hz, args.duration)
    # 1,000 streams need 1,000 sockets here and in the API (which inherits the limit).
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4 * args.sse_clients + 1024)), hard))
    database_url = prepare_database(args.pg_admin_url, WATCH_DB)
    broker_url = f"{args.redis_url.rstrip('/')}/{WATCH_REDIS_DB}"
    import redis

    with contextlib.closing(redis.Redis.from_url(broker_url)) as r:
        r.flushdb()  # DB 7 is this benchmark's own
    with tempfile.TemporaryDirectory(prefix="bench-watch-") as tmp:
        stack = Stack(
            database_url=database_url,
            broker_url=broker_url,
            api_procs=args.api_procs,
            workers=0,
            log_dir=Path(tmp),
            extra_env={"SAL_CPU_QUEUE": f"bench-watch-{os.getpid()}"},  # nobody takes these jobs
        )
        try:
            stack.start()
            phases = run(stack.base_url, database_url, stack.pids(), config)
        finally:
            stack.stop()
    print(
        render(phases, "python -m bench.load_watch " + shlex.join(argv if argv is not None else sys.argv[1:]))
    )


if __name__ == "__main__":
    main()
