"""Plain-function factories for the service tests."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

import httpx
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from sqlalchemy import text

from app.datasets.tables import ENV_COLUMN
from app.queue import JobQueue
from app.settings import Settings
from sal_core.data import Environment


def frame(
    seed: int = 0, n_per_env: int = 30, envs: tuple[str, ...] = ("a", "b", "c"), binary: bool = False
) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    parts = []
    for k, env in enumerate(envs):
        X = rng.normal(size=(n_per_env, 3))
        y = X @ np.array([1.0, -2.0, 0.5]) + 0.1 * k + rng.normal(scale=0.1, size=n_per_env)
        if binary:
            y = (y > 0).astype(float)
        part = pd.DataFrame(X, columns=["x1", "x2", "x3"])
        part.insert(0, "env", env)
        part["y"] = y
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def csv_bytes(df: pd.DataFrame) -> bytes:
    return df.to_csv(index=False).encode()


def shuffled_parquet(names: Sequence[str], envs: Sequence[Environment], row_group_size: int) -> bytes:
    """A stored dataset's bytes: the environments' rows shuffled together (seed 0), so a row group
    holds several environments, with the environment column, the covariates and ``y``."""
    X = np.concatenate([e.X for e in envs])
    y = np.concatenate([e.y for e in envs])
    env = np.concatenate([[e.name] * e.n_rows for e in envs])
    order = np.random.default_rng(0).permutation(len(y))
    columns = {ENV_COLUMN: pa.array(env[order].tolist(), pa.string())}
    columns |= {n: pa.array(X[order, j], pa.float64()) for j, n in enumerate(names)}
    columns["y"] = pa.array(y[order], pa.float64())
    sink = io.BytesIO()
    pq.write_table(pa.table(columns), sink, row_group_size=row_group_size)
    return sink.getvalue()


def parquet_bytes(df: pd.DataFrame) -> bytes:
    sink = io.BytesIO()
    df.to_parquet(sink, index=False)
    return sink.getvalue()


def upload_csv(client: httpx.Client, df: pd.DataFrame, **fields: str) -> httpx.Response:
    data = {"target": "y", "environment": "env", **fields}
    return client.post("/datasets", files={"file": ("data.csv", csv_bytes(df), "text/csv")}, data=data)


def job_body(dataset_id: str, **overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "dataset_id": dataset_id,
        "algorithm": "erm",
        "train_environments": ["a", "b"],
        "device": "cpu",
    }
    body.update(overrides)
    return body


def assert_problem(response: httpx.Response, status: int, field: str | None = None) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert {"type", "title", "status", "detail", "errors"} <= set(body)
    assert body["status"] == status
    if field is not None:
        assert field in [e["field"] for e in body["errors"]], body
    return body  # type: ignore[no-any-return]


class RecordingQueue(JobQueue):
    """A queue that records what it would send and checks the job row is committed first."""

    def __init__(self, settings: Settings, engine: Any, *, fail: bool = False) -> None:
        super().__init__(None, settings)  # type: ignore[arg-type]
        self.engine = engine
        self.fail = fail
        self.sent: list[tuple[str, str]] = []

    def enqueue(self, job_id: str, queue: str, priority: int = 0) -> None:
        with self.engine.connect() as conn:  # a different connection: sees only committed rows
            status = conn.execute(
                text("SELECT status FROM jobs WHERE id = :id"), {"id": job_id}
            ).scalar_one_or_none()
        assert status == "queued", "enqueued before the job row was committed"
        if self.fail:
            raise ConnectionError("broker down")
        self.sent.append((job_id, queue))

    def ping(self) -> None:
        if self.fail:
            raise ConnectionError("broker down")
