"""Many tenants, the edges: revocation, origin and erasure, measured on live API processes.

    python -m bench.tenants_edges [--parts revocation,origin,erasure] [--backends postgresql,sqlite]

On a private PostgreSQL + Redis (tests/faults/servers.py; the shared 5432/6379 are never touched)
and on SQLite with the file broker (the embedded default's stores), each API a uvicorn process:

* revocation: a tenant's key holds an open ``GET /jobs/{id}/events`` (a queued job: the stream
  stays open); an operator revokes the key (``DELETE /admin/keys/{id}``); seconds from the revoke's
  answer to the stream's end. Target (issue 24): <= 5 s.
* origin (single-user on SQLite, as the embedded default runs): a cross-origin multipart upload
  (``Origin`` of another site), a no-cors form (``Sec-Fetch-Site: cross-site``, no ``Origin``), a
  foreign ``Host``; their statuses and the datasets stored meanwhile. Target: refused, none stored.
* erasure: a tenant uploads a dataset whose name, columns and environments carry a marker and runs
  a job on it (a worker stores its result and weights); rows in any table that mention the marker
  before and after the operator erases the tenant; the same for ``DELETE /datasets/{id}?cascade=true``.
  Target: 0 after.

``python -m bench.tenants`` runs these after its flood, fair share and uploads (parts revocation,
origin, erasure), so it prints every figure of issue 24's "Done when". It measures and reports;
tests/app/test_tenants_{streams,origin,erase}.py check the behaviour.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from app.db import migrate
from app.db.session import make_engine
from app.settings import Settings
from tests.app import factories as f
from tests.app.test_tenants_erase import marker_rows
from tests.conftest import _wait_for, bearer, make_api_key, start_worker
from tests.faults.servers import PrivatePostgres, PrivateRedis, start_api

Row = tuple[str, str]


class Stores:
    """Where each backend's API keeps its rows and sends its jobs."""

    def __init__(self, root: Path, pg: PrivatePostgres | None, redis: PrivateRedis | None) -> None:
        self.root, self.pg, self.redis = root, pg, redis

    def settings(self, backend: str, name: str) -> Settings:
        data_dir = self.root / f"{name}-{backend}"
        data_dir.mkdir(parents=True, exist_ok=True)
        if backend == "postgresql":
            assert self.pg is not None and self.redis is not None
            database, broker = self.pg.new_database(name), self.redis.url
        else:  # SQLite in data_dir and the file broker, as the embedded default
            database, broker = "", ""
        settings = Settings(
            data_dir=data_dir, database_url=database, broker_url=broker, cpu_queue=f"{name}-{backend}",
            gpu_queue=f"{name}-{backend}-gpu", progress_min_interval_s=0.0,
        )  # fmt: skip
        migrate.upgrade(settings.database_url)
        return settings


@contextmanager
def _api(settings: Settings, log: Path, auth: str = "keys") -> Iterator[str]:
    api, base = start_api(settings, log, workers=1, auth=auth)
    try:
        yield base
    finally:
        api.stop()


def _keys(settings: Settings, tenant: str) -> tuple[dict[str, str], dict[str, str]]:
    """An operator's headers and ``tenant``'s."""
    engine = make_engine(settings.database_url)
    try:
        return bearer(make_api_key(engine, "admin")), bearer(make_api_key(engine, tenant))
    finally:
        engine.dispose()


def bench_revocation(stores: Stores, backend: str) -> list[Row]:
    settings = stores.settings(backend, "revoke")
    operator, tenant = _keys(settings, "revoked-tenant")
    with _api(settings, settings.data_dir / "api.log") as base, httpx.Client(base_url=base, timeout=30) as c:
        c.headers.update(tenant)
        dataset = f.upload_csv(c, f.frame(seed=2450)).json()["id"]
        job = c.post("/jobs", json=f.job_body(dataset)).json()["id"]  # no worker: it stays queued
        (key,) = c.get("/admin/keys", params={"tenant": "revoked-tenant"}, headers=operator).json()["items"]
        opened, ended = threading.Event(), threading.Event()
        events: list[str] = []

        def follow() -> None:
            with (
                httpx.Client(base_url=base, headers=tenant, timeout=None) as s,
                s.stream("GET", f"/jobs/{job}/events") as response,
            ):
                opened.set()
                for line in response.iter_lines():
                    events.append(line)
            ended.set()

        thread = threading.Thread(target=follow, daemon=True)
        thread.start()
        opened.wait(30)
        time.sleep(1.0)  # open and settled: the first events have arrived
        still_open = not ended.is_set()
        assert c.delete(f"/admin/keys/{key['id']}", headers=operator).status_code == 200
        revoked = time.monotonic()
        ended.wait(60)
        took = time.monotonic() - revoked
        after = c.get(f"/jobs/{job}").status_code
    verdict = "met" if still_open and ended.is_set() and took <= 5 else "NOT met"
    return [
        (f"revocation, {backend}: a revoked key's open event stream",
         f"{'closed' if ended.is_set() else 'still open'} {took:.2f} s after the revoke (target <= 5 s: {verdict}; "
         f"SAL_EVENTS_POLL_S {settings.events_poll_s:g}); the key's next request: {after}"),
    ]  # fmt: skip


def bench_origin(stores: Stores) -> list[Row]:
    settings = stores.settings("sqlite", "origin")
    csv = f.csv_bytes(f.frame(seed=2451))
    with (
        _api(settings, settings.data_dir / "api.log", auth="single-user") as base,
        httpx.Client(base_url=base, timeout=30) as c,
    ):

        def upload(**headers: str) -> int:
            files = {"file": ("d.csv", csv, "text/csv")}
            return c.post(
                "/datasets", files=files, data={"target": "y", "environment": "env"}, headers=headers
            ).status_code

        cross = upload(Origin="https://attacker.example")
        form = upload(**{"Sec-Fetch-Site": "cross-site"})
        foreign = c.get("/datasets", headers={"Host": "rebind.attacker.example"}).status_code
        stored = len(c.get("/datasets").json()["items"])
        own = upload(Origin=base)
    refused = cross == 403 and form == 403 and foreign == 400 and stored == 0
    return [
        ("origin, single-user on SQLite: cross-origin multipart upload / no-cors form / foreign Host",
         f"{cross} / {form} / {foreign}; datasets stored by them: {stored} (target: refused, none stored: "
         f"{'met' if refused else 'NOT met'}); the same upload from the API's own origin: {own}"),
    ]  # fmt: skip


def _marked_job(c: httpx.Client, marker: str) -> str:
    df = f.frame(seed=2452).rename(columns={"x3": f"x_{marker}"})
    df["env"] = df["env"] + marker
    files = {"file": (f"{marker}.csv", f.csv_bytes(df), "text/csv")}
    dataset = c.post("/datasets", files=files, data={"target": "y", "environment": "env", "name": f"data-{marker}"},
                     headers={"Idempotency-Key": f"k-{marker}"}).json()["id"]  # fmt: skip
    job = c.post("/jobs", json=f.job_body(dataset, train_environments=[f"a{marker}", f"b{marker}"])).json()[
        "id"
    ]
    _wait_for(lambda: c.get(f"/jobs/{job}").json()["status"] in ("succeeded", "failed"), 180, "the job")
    assert c.get(f"/jobs/{job}").json()["status"] == "succeeded"
    return dataset


def _summary(rows: dict[str, int]) -> str:
    return ", ".join(f"{t} {n}" for t, n in sorted(rows.items())) or "none"


def bench_erasure(stores: Stores, backend: str) -> list[Row]:
    settings = stores.settings(backend, "erase")
    marker, cascaded = f"zq{uuid.uuid4().hex[:10]}", f"zq{uuid.uuid4().hex[:10]}"
    tenant = f"erase-{marker}"
    operator, headers = _keys(settings, tenant)
    _, other = _keys(settings, "keeps-its-tenant")
    engine = make_engine(settings.database_url)
    worker = start_worker(settings, settings.data_dir / "worker.log")
    try:
        with (
            _api(settings, settings.data_dir / "api.log") as base,
            httpx.Client(base_url=base, timeout=60) as c,
        ):
            c.headers.update(headers)
            _marked_job(c, marker)
            before = marker_rows(engine, marker)
            erased = c.delete(f"/admin/tenants/{tenant}", headers=operator)
            after = marker_rows(engine, marker)
            c.headers.update(other)
            dataset = _marked_job(c, cascaded)
            before_cascade = marker_rows(engine, cascaded)
            deleted = c.delete(f"/datasets/{dataset}", params={"cascade": "true"}).status_code
            after_cascade = marker_rows(engine, cascaded)
    finally:
        worker.stop()
        engine.dispose()
    return [
        (f"erasure, {backend}: rows mentioning a tenant's marker, before / after erasing the tenant ({erased.status_code})",
         f"{_summary(before)} / {_summary(after)} (target: none after: {'met' if not after else 'NOT met'})"),
        (f"erasure, {backend}: the same for DELETE /datasets/{{id}}?cascade=true ({deleted})",
         f"{_summary(before_cascade)} / {_summary(after_cascade)} "
         f"(target: none after: {'met' if not after_cascade else 'NOT met'})"),
    ]  # fmt: skip


def run(root: Path, pg: PrivatePostgres | None, redis: PrivateRedis | None, parts: set[str],
        backends: list[str]) -> list[Row]:  # fmt: skip
    stores = Stores(root, pg, redis)
    rows: list[Row] = []
    if "revocation" in parts:
        for backend in backends:
            rows += bench_revocation(stores, backend)
    if "origin" in parts:
        rows += bench_origin(stores)
    if "erasure" in parts:
        for backend in backends:
            rows += bench_erasure(stores, backend)
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.tenants_edges", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--parts", default="revocation,origin,erasure", help="comma-separated subset")
    parser.add_argument("--backends", default="postgresql,sqlite", help="comma-separated subset")
    args = parser.parse_args(argv)
    backends = args.backends.split(",")
    root = Path(tempfile.mkdtemp(prefix="sal-bench-edges-"))
    pg = redis = None
    if "postgresql" in backends:
        if os.geteuid() == 0:
            shutil.chown(root, "postgres", "postgres")
        pg = PrivatePostgres(root)
        pg.start()
        redis = PrivateRedis(root / "redis")
        (root / "redis").mkdir()
        redis.start()
    try:
        rows = run(root, pg, redis, set(args.parts.split(",")), backends)
    finally:
        if redis is not None:
            redis.stop()
        if pg is not None:
            pg.stop()
        shutil.rmtree(root, ignore_errors=True)
    print(
        f"\n{os.cpu_count()} CPUs; each API one uvicorn process; PostgreSQL + Redis, or SQLite + the file broker\n"
    )
    print("| measure | result |\n|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")


if __name__ == "__main__":
    main()
