"""Deletion that deletes (issue 24): DELETE /sweeps/{id}, the operator's tenant erase, and
idempotency records that expire and are forgotten with what they created. Every check counts the
rows, in every table, that mention a marker written into names, columns and environments."""

from __future__ import annotations

import datetime as dt
import uuid
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, LargeBinary, text, update

from app.db import migrate
from app.db.models import Base, IdempotencyKey
from app.main import create_app
from app.settings import Settings
from tests.app import factories as f
from tests.conftest import _wait_for, bearer, make_api_key
from tests.e2e import scenario


def marker_rows(engine: Engine, marker: str) -> dict[str, int]:
    """{table: rows with ``marker`` in any column, text, JSON or binary (Parquet, safetensors)}."""
    pg = engine.dialect.name == "postgresql"
    out: dict[str, int] = {}
    with engine.connect() as conn:
        for table in Base.metadata.sorted_tables:
            tests = []
            for column in table.columns:
                name = f'"{column.name}"'
                if isinstance(column.type, LargeBinary):
                    tests.append(f"position(:b in {name}) > 0" if pg else f"instr({name}, :b) > 0")
                else:
                    tests.append(f"CAST({name} AS TEXT) LIKE :m")
            where = " OR ".join(tests)
            count = conn.execute(
                text(f'SELECT count(*) FROM "{table.name}" WHERE {where}'),
                {"m": f"%{marker}%", "b": marker.encode()},
            ).scalar_one()
            if count:
                out[table.name] = int(count)
    return out


def _marked_upload(client: httpx.Client, marker: str, **headers: str) -> httpx.Response:
    df = f.frame(seed=2440).rename(columns={"x3": f"x_{marker}"})
    df["env"] = df["env"] + marker
    files = {"file": (f"{marker}.csv", f.csv_bytes(df), "text/csv")}
    data = {"target": "y", "environment": "env", "name": f"data-{marker}"}
    return client.post("/datasets", files=files, data=data, headers=headers)


def _envs(marker: str) -> list[str]:
    return [f"a{marker}", f"b{marker}"]


@pytest.mark.services
def test_deleting_a_sweep_and_erasing_a_tenant_leave_no_row_behind(keys_app, pg_worker: object) -> None:  # type: ignore[no-untyped-def]
    engine = keys_app.state.engine
    marker, bystander = f"zq{uuid.uuid4().hex[:10]}", f"zq{uuid.uuid4().hex[:10]}"
    tenant = f"erase-{marker}"
    with (
        TestClient(keys_app, headers=bearer(make_api_key(engine, tenant))) as c,
        TestClient(keys_app, headers=bearer(make_api_key(engine, f"erase-{bystander}"))) as other,
        TestClient(keys_app, headers=bearer(make_api_key(engine, "admin"))) as operator,
    ):
        assert _marked_upload(other, bystander).status_code == 201
        kept = marker_rows(engine, bystander)
        dataset = _marked_upload(c, marker, **{"Idempotency-Key": f"k-{marker}"}).json()["id"]
        job = c.post("/jobs", json=f.job_body(dataset, train_environments=_envs(marker)))
        assert scenario.wait(c, job.json()["id"])["status"] == "succeeded"
        posted = c.post(
            "/sweeps",
            json={"dataset_id": dataset, "train_environments": _envs(marker),
                  "algorithms": {"ridge": {"grid": {"lambda_": [0.1, 1.0]}}}},
        )  # fmt: skip
        assert posted.status_code == 202, posted.text
        sweep = posted.json()["id"]
        _wait_for(lambda: c.get(f"/sweeps/{sweep}").json()["status"] != "running", 120, "the sweep")
        before = marker_rows(engine, marker)
        assert {"tenants", "datasets", "jobs", "job_results", "idempotency_keys"} <= set(before), before

        assert c.delete(f"/sweeps/{sweep}").status_code == 204
        f.assert_problem(c.get(f"/sweeps/{sweep}"), 404)
        with engine.connect() as conn:
            left = conn.execute(
                text("SELECT count(*) FROM jobs WHERE sweep_id = :s"), {"s": sweep}
            ).scalar_one()
        assert left == 0 and marker_rows(engine, marker)["jobs"] == before["jobs"] - 2

        f.assert_problem(c.delete(f"/admin/tenants/{tenant}"), 403)  # a tenant is no operator
        erased = operator.delete(f"/admin/tenants/{tenant}")
        assert erased.status_code == 200, erased.text
        assert erased.json()["datasets"] == 1 and erased.json()["tenants"] == 1
        assert marker_rows(engine, marker) == {}
        assert marker_rows(engine, bystander) == kept  # another tenant's rows are untouched
        f.assert_problem(c.get("/datasets"), 401)  # its keys went with it
        f.assert_problem(operator.delete(f"/admin/tenants/{tenant}"), 404)


def _sqlite_app(tmp_path: Path, **extra: object):  # type: ignore[no-untyped-def]
    settings = Settings(data_dir=tmp_path, broker_url="memory://", **extra)  # type: ignore[arg-type]
    migrate.upgrade(settings.database_url)
    app = create_app(settings, queue=f.RecordingQueue(settings, None))
    app.state.queue.engine = app.state.engine
    return app


def test_erasing_a_tenant_on_sqlite_leaves_no_row_behind(tmp_path: Path) -> None:
    app = _sqlite_app(tmp_path, auth="keys")
    engine = app.state.engine
    marker = f"zq{uuid.uuid4().hex[:10]}"
    with (
        TestClient(app, headers=bearer(make_api_key(engine, f"t-{marker}"))) as c,
        TestClient(app, headers=bearer(make_api_key(engine, "admin"))) as operator,
    ):
        dataset = _marked_upload(c, marker, **{"Idempotency-Key": marker}).json()["id"]
        assert c.post("/jobs", json=f.job_body(dataset, train_environments=_envs(marker))).status_code == 202
        assert {"tenants", "datasets", "jobs", "idempotency_keys"} <= set(marker_rows(engine, marker))
        assert operator.delete(f"/admin/tenants/t-{marker}").status_code == 200
        assert marker_rows(engine, marker) == {}
    engine.dispose()


def test_an_idempotency_record_is_forgotten_with_its_resource_and_expires(tmp_path: Path) -> None:
    app = _sqlite_app(tmp_path)
    engine = app.state.engine
    marker = f"zq{uuid.uuid4().hex[:10]}"
    with TestClient(app) as c:
        first = _marked_upload(c, marker, **{"Idempotency-Key": "upload-1"})
        assert first.status_code == 201
        assert _marked_upload(c, marker, **{"Idempotency-Key": "upload-1"}).json()["id"] == first.json()["id"]
        assert c.delete(f"/datasets/{first.json()['id']}").status_code == 204
        again = _marked_upload(c, marker, **{"Idempotency-Key": "upload-1"})
        assert again.status_code == 201 and again.json()["id"] != first.json()["id"]
        assert c.get(f"/datasets/{again.json()['id']}").status_code == 200
        # a day later the key is free again, even for another body
        past = dt.datetime.now(dt.UTC) - dt.timedelta(hours=25)
        with engine.begin() as conn:
            conn.execute(update(IdempotencyKey).values(created_at=past))
        other = c.post("/datasets", json={"name": "n", "feature_names": ["x"], "target": "y",
                                          "environments": [{"name": "e", "X": [[1.0], [2.0]], "y": [1.0, 2.0]}]},
                       headers={"Idempotency-Key": "upload-1"})  # fmt: skip
        assert other.status_code == 201, other.text
    engine.dispose()


def test_the_admin_command_erases_a_tenant(tmp_path: Path) -> None:
    """``python -m app.admin tenants erase NAME --yes`` from a shell on the server, on SQLite."""
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT

    app = _sqlite_app(tmp_path, auth="keys")
    engine = app.state.engine
    marker = f"zq{uuid.uuid4().hex[:10]}"
    with TestClient(app, headers=bearer(make_api_key(engine, f"t-{marker}"))) as c:
        dataset = _marked_upload(c, marker, **{"Idempotency-Key": marker}).json()["id"]
        assert c.post("/jobs", json=f.job_body(dataset, train_environments=_envs(marker))).status_code == 202
    before = marker_rows(engine, marker)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SAL_")} | {"SAL_DATA_DIR": str(tmp_path)}

    def admin(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "app.admin", "tenants", "erase", *args], env=env, cwd=ROOT,
                              capture_output=True, text=True)  # fmt: skip

    unasked = admin(f"t-{marker}")
    assert unasked.returncode == 2 and "--yes" in unasked.stderr
    assert marker_rows(engine, marker) == before  # nothing erased without --yes
    done = admin(f"t-{marker}", "--yes")
    assert done.returncode == 0, done.stderr
    assert (
        f"erased tenant t-{marker}: " in done.stdout
        and "1 datasets" in done.stdout
        and "1 jobs" in done.stdout
    )
    assert marker_rows(engine, marker) == {}
    again = admin(f"t-{marker}", "--yes")
    assert again.returncode == 1 and "no tenant" in again.stderr
    assert admin("default", "--yes").returncode == 1  # single-user mode's tenant is never erased
    engine.dispose()


def test_deleting_a_job_or_a_dataset_with_cascade_forgets_what_created_them(tmp_path: Path) -> None:
    """The idempotency records of an upload and of the jobs on it hold their names and environments:
    they go with what they created, at once, not only when the key is retried."""
    app = _sqlite_app(tmp_path)
    engine = app.state.engine
    marker = f"zq{uuid.uuid4().hex[:10]}"
    with TestClient(app) as c:
        dataset = _marked_upload(c, marker, **{"Idempotency-Key": f"u-{marker}"}).json()["id"]
        body = f.job_body(dataset, train_environments=_envs(marker))
        jobs = [c.post("/jobs", json={**body, "seed": i}, headers={"Idempotency-Key": f"j{i}-{marker}"}).json()["id"]
                for i in range(2)]  # fmt: skip
        with engine.begin() as conn:  # finished (no worker here): deletable
            conn.execute(text("UPDATE jobs SET status = 'failed'"))
        assert marker_rows(engine, marker)["idempotency_keys"] == 3
        assert c.delete(f"/jobs/{jobs[0]}").status_code == 204
        assert marker_rows(engine, marker)["idempotency_keys"] == 2
        assert c.delete(f"/datasets/{dataset}", params={"cascade": "true"}).status_code == 204
        assert marker_rows(engine, marker) == {}
    engine.dispose()
