"""The image and the compose stack on a real engine, driven from outside (issue 23).

    .venv/bin/python -m tests.image.stack [--image TAG] [--build-arg K=V ...] [--postgres-image I]
                                          [--redis-image I] [--keep] [--context DIR]

``scripts/image_test.sh`` runs it (it starts the engine first); not collected by pytest. Steps, each
a check that raises on failure:

1. build the image (the engine's layer cache makes a rebuild after a code change take seconds);
2. ``docker run`` with the default command and no configuration: ready, ``/ui`` answers 200;
3. ``compose up`` with two workers: the migrate service exits 0 at Alembic's head, the API is ready;
4. API keys from ``python -m app.admin`` in the api container (a tenant's, an operator's);
5. the README walkthrough over HTTP (upload, a SAL job, w per covariate), then the CLI in the api
   container: ``sal jobs get`` and ``sal jobs download -o FILE`` in its working directory;
6. ``/ui`` 200, and ``/metrics`` adding up both uvicorn processes (every scrape the same total);
7. one worker SIGKILLed mid-job: the other finishes the job, with two attempts and one result;
8. ``docker stop`` of a worker two seconds after it starts, and of an idle worker: under 10 s each,
   no SIGKILL;
9. PostgreSQL restarted, then Redis stopped while a job is submitted and started again: earlier
   jobs and results unchanged, the new job succeeds.

It prints the timings (build, ``up`` to the first job succeeded, the whole run) and the image size.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import io
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pandas as pd
from prometheus_client.parser import text_string_to_metric_families

ROOT = Path(__file__).resolve().parents[2]
# Its own compose project per run, so two runs on one engine (two checkouts) never meet.
PROJECT = f"salimage{os.getpid()}"
# The README's SAL job, and a longer one to kill a worker in the middle of: a small MLP learning w
# through the network, ~15-20 s an attempt on a 2-core host. (The MLP under the linear path's w, with
# 4,000 rounds, took 2.2 s once the linear path was compiled, and ended before the kill landed.)
README_JOB = {"algorithm": "sal", "train_environments": ["r=1.7", "r=-1.1"]}
LONG_JOB = {
    **README_JOB,
    "model": {"kind": "mlp", "hidden": [16]},
    "params": {"w_source": "network", "rounds": 150},
}
METRICS_ROUTE = "/algorithms"
PER_PROCESS = r"""
import glob, os, shutil, sys, tempfile
from prometheus_client import CollectorRegistry
from prometheus_client.multiprocess import MultiProcessCollector
for path in sorted(glob.glob(os.environ["PROMETHEUS_MULTIPROC_DIR"] + "/counter_*.db")):
    one = tempfile.mkdtemp()
    shutil.copy(path, one)
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=one)
    total = sum(s.value for m in registry.collect() for s in m.samples
                if s.name == "sal_http_requests_total" and s.labels.get("route") == sys.argv[1])
    print(os.path.basename(path), int(total))
"""


class StackError(AssertionError):
    pass


def check(condition: object, message: str) -> None:
    if not condition:
        raise StackError(message)


def sh(*args: str, timeout: float = 300, env: dict[str, str] | None = None, ok: bool = True) -> str:
    result = subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=env)
    if ok and result.returncode != 0:
        raise StackError(
            f"{' '.join(args)} exited {result.returncode}:\n{result.stdout[-2000:]}{result.stderr[-3000:]}"
        )
    return result.stdout


def wait_for(predicate: Callable[[], object], timeout: float, what: str, every: float = 0.5) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = predicate()
        except (httpx.HTTPError, StackError, subprocess.SubprocessError):
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            raise StackError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(every)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def log(message: str) -> None:
    print(f"[image-test {time.strftime('%H:%M:%S')}] {message}", flush=True)


def readme_csv() -> bytes:
    """The README's data: the paper's selection-bias generator, two training and ten test environments."""
    from sal_core.synthetic import selection_bias

    s = selection_bias(r=1.7, n=2000, seed=0, n_test=500)
    frames = [pd.DataFrame(e.X, columns=s.feature_names).assign(y=e.y, env=e.name) for e in s.train + s.test]
    out = io.StringIO()
    pd.concat(frames).to_csv(out, index=False)
    return out.getvalue().encode()


class Stack:
    def __init__(self, args: argparse.Namespace) -> None:
        self.image = args.image
        self.port = free_port()
        self.env = {
            **os.environ,
            "SAL_IMAGE": args.image,
            "SAL_API_PORT": str(self.port),
            **({"SAL_POSTGRES_IMAGE": args.postgres_image} if args.postgres_image else {}),
            **({"SAL_REDIS_IMAGE": args.redis_image} if args.redis_image else {}),
        }
        if shutil.which("docker-compose"):
            self.compose_cmd = ["docker-compose"]
        else:
            self.compose_cmd = ["docker", "compose"]
        self.http = httpx.Client(base_url=f"http://127.0.0.1:{self.port}", timeout=30)
        self.key = ""
        self.operator_key = ""

    # ---- plumbing
    def compose(self, *args: str, timeout: float = 300, ok: bool = True) -> str:
        cmd = [*self.compose_cmd, "-p", PROJECT, "-f", str(ROOT / "docker-compose.yml"), *args]
        return sh(*cmd, timeout=timeout, env=self.env, ok=ok)

    def containers(self, service: str) -> list[str]:
        return self.compose("ps", "-q", service).split()

    def exec_api(self, *args: str, env: dict[str, str] | None = None) -> str:
        extra = [f"-e{k}={v}" for k, v in (env or {}).items()]
        return sh("docker", "exec", *extra, self.containers("api")[0], *args, timeout=120)

    def auth(self, key: str = "") -> dict[str, str]:
        return {"Authorization": f"Bearer {key or self.key}"}

    def job(self, job_id: str) -> dict[str, Any]:
        response = self.http.get(f"/jobs/{job_id}", headers=self.auth())
        check(
            response.status_code == 200, f"GET /jobs/{job_id}: {response.status_code} {response.text[:500]}"
        )
        body: dict[str, Any] = response.json()
        return body

    def submit(self, body: dict[str, Any]) -> str:
        response = self.http.post("/jobs", json=body, headers=self.auth())
        check(response.status_code == 202, f"POST /jobs: {response.status_code} {response.text[:500]}")
        job_id: str = response.json()["id"]
        return job_id

    def finished(self, job_id: str, timeout: float) -> dict[str, Any]:
        done: dict[str, Any] = wait_for(
            lambda: (j := self.job(job_id))["status"] in ("succeeded", "failed", "cancelled") and j,
            timeout,
            f"job {job_id} to finish",
        )
        check(done["status"] == "succeeded", f"job {job_id} ended {done['status']}: {done.get('error')}")
        return done

    def ready(self) -> bool:
        return self.http.get("/readyz").status_code == 200

    def container_of(self, worker: str) -> str:
        """The worker container whose hostname is ``worker``'s (an attempt's ``hostname:pid``)."""
        host = worker.rsplit(":", 1)[0]
        for cid in self.containers("worker"):
            if sh("docker", "inspect", "-f", "{{.Config.Hostname}}", cid).strip() == host:
                return cid
        raise StackError(f"no worker container has hostname {host}")

    def dump_logs(self) -> None:
        print(self.compose("logs", "--no-color", "--tail", "60", ok=False)[-20000:], file=sys.stderr)

    # ---- steps
    def default_command(self) -> None:
        """Defect 3: the image's default command, no configuration, as a non-root user."""
        port = free_port()
        cid = sh("docker", "run", "-d", "-p", f"127.0.0.1:{port}:8000", self.image).strip()
        try:
            client = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10)
            wait_for(lambda: client.get("/readyz").status_code == 200, 90, "the default command's /readyz")
            check(client.get("/ui").status_code == 200, "/ui of the default command is not 200")
            user = sh("docker", "exec", cid, "python", "-c", "import os; print(os.getuid())").strip()
            check(user != "0", "the image runs as root")
            pid1 = sh("docker", "exec", cid, "cat", "/proc/1/cmdline").split("\0")[0]
            check(pid1.endswith("tini"), f"PID 1 is {pid1}, not an init process")
        except StackError:
            print(sh("docker", "logs", cid, ok=False), file=sys.stderr)
            raise
        finally:
            sh("docker", "rm", "-f", cid, ok=False)

    def up(self) -> float:
        self.compose("down", "-v", "--remove-orphans", ok=False)
        started = time.monotonic()
        self.compose("up", "-d", "--no-build", "--scale", "worker=2", timeout=600)
        wait_for(self.ready, 180, "the API's /readyz")
        (migrate,) = self.compose("ps", "-a", "-q", "migrate").split() or [""]
        code = sh("docker", "inspect", "-f", "{{.State.ExitCode}}", migrate).strip()
        check(code == "0", f"the migrate service exited {code}")
        current = self.exec_api("alembic", "current")
        check("(head)" in current, f"alembic current in the api container: {current!r}")
        check(len(self.containers("worker")) == 2, "two workers are not running")
        return started

    def create_key(self, tenant: str) -> str:
        out = self.exec_api("python", "-m", "app.admin", "keys", "create", "--tenant", tenant)
        keys = [line.split()[-1] for line in out.splitlines() if re.fullmatch(r"key\s+\S+", line.strip())]
        check(len(keys) == 1, f"no key in app.admin's output: {out!r}")
        return keys[0]

    def create_keys(self) -> None:
        """A tenant's key for the jobs, and an operator's (SAL_OPERATOR_TENANTS' default) for /metrics."""
        self.key = self.create_key("image-test")
        self.operator_key = self.create_key("admin")
        check(self.http.get("/datasets").status_code == 401, "a request without a key is not refused")
        check(self.http.get("/datasets", headers=self.auth()).status_code == 200, "the key is refused")

    def walkthrough(self) -> tuple[str, str, dict[str, Any]]:
        files = {"file": ("selection_bias.csv", readme_csv(), "text/csv")}
        response = self.http.post(
            "/datasets", files=files, data={"target": "y", "environment": "env"}, headers=self.auth()
        )
        check(
            response.status_code in (200, 201),
            f"POST /datasets: {response.status_code} {response.text[:500]}",
        )
        dataset_id: str = response.json()["id"]
        job_id = self.submit({"dataset_id": dataset_id, **README_JOB})
        done = self.finished(job_id, 180)
        w = done["result"]["covariate_weights"]
        theta = done["result"]["coefficients"]
        check(set(w) == {f"S{i}" for i in range(1, 6)} | {f"V{i}" for i in range(1, 6)}, f"w names: {w}")
        check(min(w[f"S{i}"] for i in range(1, 6)) > w["V1"], f"w: stable S below V1: {w}")
        ref = done["result"].get("reference") or {}
        check(
            ref.get("algorithm") == "erm" and ref["difference"] < -2 * ref["standard_error"],
            f"the README job is not clearly below ERM on its test rows: {ref}",
        )
        log(f"README job: w={w}, theta[V1]={theta['V1']}")
        return dataset_id, job_id, done

    def cli(self, job_id: str) -> None:
        env = {"SAL_API_KEY": self.key, "SAL_URL": "http://127.0.0.1:8000"}
        got = json.loads(self.exec_api("sal", "--json", "jobs", "get", job_id, env=env))
        check(got["status"] == "succeeded", f"sal jobs get: {got}")
        # Defect 4: a download into the working directory (/srv), as the image's user.
        self.exec_api("sal", "jobs", "download", job_id, "-o", "model.safetensors", env=env)
        keys = self.exec_api(
            "python",
            "-c",
            "from safetensors import safe_open; print(*safe_open('model.safetensors', 'np').keys())",
        )
        check(keys.split(), f"the downloaded model holds no tensors: {keys!r}")

    def ui_and_metrics(self) -> None:
        check(self.http.get("/ui").status_code == 200, "/ui is not 200")
        check(self.http.get("/ui/static/app.js").status_code == 200, "/ui/static/app.js is not 200")
        # Many short connections, in parallel, so both uvicorn processes answer some.
        url = f"{self.http.base_url}{METRICS_ROUTE}"
        total = 0
        per_process: dict[str, int] = {}
        for _ in range(5):
            with concurrent.futures.ThreadPoolExecutor(8) as pool:
                codes = list(pool.map(lambda _: httpx.get(url, headers=self.auth()).status_code, range(40)))
            check(codes == [200] * 40, f"GET {METRICS_ROUTE}: {set(codes)}")
            total += 40
            out = self.exec_api("python", "-c", PER_PROCESS, METRICS_ROUTE)
            per_process = {line.split()[0]: int(line.split()[1]) for line in out.splitlines()}
            if sum(v > 0 for v in per_process.values()) >= 2:
                break
        check(
            sum(v > 0 for v in per_process.values()) >= 2, f"one process answered everything: {per_process}"
        )
        check(
            sum(per_process.values()) == total, f"per-process counts {per_process} do not add up to {total}"
        )
        for _ in range(6):  # each scrape may land on either process; each must see the sum
            scrape = httpx.get(f"{self.http.base_url}/metrics", headers=self.auth(self.operator_key))
            check(scrape.status_code == 200, f"/metrics: {scrape.status_code} {scrape.text[:300]}")
            text = scrape.text
            value = sum(
                sample.value
                for family in text_string_to_metric_families(text)
                for sample in family.samples
                if sample.name == "sal_http_requests_total" and sample.labels.get("route") == METRICS_ROUTE
            )
            check(
                value == total,
                f"/metrics says {value} for {METRICS_ROUTE}, {total} were made ({per_process})",
            )
        log(f"/metrics: {total} requests, per process {per_process}")

    def kill_mid_job(self, dataset_id: str) -> str:
        job_id = self.submit({"dataset_id": dataset_id, **LONG_JOB})
        running = wait_for(
            lambda: (j := self.job(job_id))["status"] == "running" and j["progress"]["step"] >= 1 and j,
            120,
            "the long job to be mid-fit",
            every=0.2,
        )
        victim = self.container_of(running["attempts"][-1]["worker"])
        sh("docker", "kill", victim)
        log(f"killed worker {victim[:12]} at step {running['progress']['step']}")
        done = self.finished(job_id, 240)
        check([a["number"] for a in done["attempts"]] == [1, 2], f"attempts: {done['attempts']}")
        results = sh(
            "docker", "exec", self.containers("postgres")[0], "psql", "-U", "sal", "-d", "sal", "-tAc",
            f"SELECT count(*) FROM job_results WHERE job_id = '{job_id}'",
        ).strip()  # fmt: skip
        check(results == "1", f"job {job_id} has {results} results")
        return victim

    def stop_workers(self, killed: str) -> list[float]:
        """Defect 2: a worker stopped two seconds after it starts, and an idle one: no grace-period
        hang, no SIGKILL (a generous -t, so a hang would show)."""
        other = next(c for c in self.containers("worker") if c != killed)
        times = []
        sh("docker", "start", killed)
        time.sleep(2)
        for cid in (killed, other):
            started = time.monotonic()
            sh("docker", "stop", "-t", "120", cid, timeout=150)
            times.append(time.monotonic() - started)
            code = sh("docker", "inspect", "-f", "{{.State.ExitCode}}", cid).strip()
            check(code != "137", f"worker {cid[:12]} was SIGKILLed after {times[-1]:.1f} s")
            check(times[-1] < 10, f"docker stop of worker {cid[:12]} took {times[-1]:.1f} s")
        for cid in (killed, other):
            sh("docker", "start", cid)
        return times

    def restarts(self, dataset_id: str, before: dict[str, dict[str, Any]]) -> None:
        self.compose("restart", "postgres")
        wait_for(self.ready, 120, "/readyz after PostgreSQL restarted")
        self.compose("stop", "redis")
        job_id = self.submit({"dataset_id": dataset_id, **README_JOB, "seed": 7})  # the outbox keeps it
        self.compose("start", "redis")
        wait_for(self.ready, 120, "/readyz after Redis restarted")
        self.finished(job_id, 240)
        for old_id, old in before.items():
            now = self.job(old_id)
            check(now["status"] == old["status"], f"job {old_id}: {old['status']} -> {now['status']}")
            check(now["result"] == old["result"], f"job {old_id}: its result changed across the restarts")
        check(
            self.http.get(f"/datasets/{dataset_id}", headers=self.auth()).status_code == 200, "dataset lost"
        )


def build(image: str, build_args: list[str], context: Path) -> float:
    started = time.monotonic()
    args = [a for kv in build_args for a in ("--build-arg", kv)]
    cmd = ["docker", "build", "--network", "host", *args]
    result = subprocess.run([*cmd, "-t", image, str(context)], capture_output=True, text=True, timeout=1800)
    if result.returncode != 0:
        raise StackError(f"docker build failed:\n{result.stdout[-4000:]}{result.stderr[-4000:]}")
    elapsed = time.monotonic() - started
    # Each dependency change leaves the previous images untagged (~3 GB); remove those older than
    # this build, except the build stage's image, which is the cache of the next build.
    cache = sh(*cmd, "-q", "--target", "build", str(context), timeout=600).strip().removeprefix("sha256:")
    stale = sh(
        "docker", "images", "-q", "--no-trunc", "--filter", "dangling=true", "--filter", f"before={image}"
    )
    for old in stale.split():
        if old.removeprefix("sha256:") != cache:
            sh("docker", "rmi", old, ok=False)
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--image", default="sal-service:image-test")
    parser.add_argument("--build-arg", action="append", default=[])
    parser.add_argument("--postgres-image")
    parser.add_argument("--redis-image")
    parser.add_argument("--keep", action="store_true", help="leave the stack up afterwards")
    parser.add_argument(
        "--context", type=Path, default=ROOT, help="the build context (e.g. a `git archive HEAD` export)"
    )
    args = parser.parse_args(argv)
    t0 = time.monotonic()
    figures: dict[str, Any] = {}
    stack = Stack(args)
    try:
        log("building the image")
        figures["build_s"] = round(build(args.image, args.build_arg, args.context), 1)
        size = int(sh("docker", "image", "inspect", "-f", "{{.Size}}", args.image))
        figures["image_bytes"] = size
        log(f"built {args.image} in {figures['build_s']} s, {size / 1e9:.2f} GB")
        stack.default_command()
        log("default command: ready with no configuration, /ui 200, non-root, tini is PID 1")
        up_at = stack.up()
        log(f"compose up: migrated, API ready after {time.monotonic() - up_at:.1f} s, two workers")
        stack.create_keys()
        dataset_id, readme_id, readme = stack.walkthrough()
        figures["up_to_first_job_succeeded_s"] = round(time.monotonic() - up_at, 1)
        log(f"README job succeeded {figures['up_to_first_job_succeeded_s']} s after `up`")
        stack.cli(readme_id)
        log("CLI in the container: jobs get, jobs download -o model.safetensors in /srv")
        stack.ui_and_metrics()
        killed = stack.kill_mid_job(dataset_id)
        log("a worker killed mid-job: the other finished it, attempts [1, 2], one result")
        figures["worker_stop_s"] = [round(t, 1) for t in stack.stop_workers(killed)]
        log(f"docker stop of a starting and an idle worker: {figures['worker_stop_s']} s")
        stack.restarts(dataset_id, {readme_id: readme})
        log("PostgreSQL restarted, Redis stopped during a submit and started: nothing lost")
    except (StackError, subprocess.TimeoutExpired) as exc:
        print(f"IMAGE TEST FAILED: {exc}", file=sys.stderr)
        stack.dump_logs()
        return 1
    finally:
        if not args.keep:
            stack.compose("down", "-v", "--remove-orphans", ok=False)
    figures["total_s"] = round(time.monotonic() - t0, 1)
    print("image test passed:", json.dumps(figures), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
