"""lambda_='auto' through the worker: chosen from training environments only, reported in the result."""

from __future__ import annotations

import uuid
from typing import Any

import numpy as np
import pytest
from sqlalchemy import select

from app.datasets import tables
from app.db.models import DEFAULT_TENANT_ID, Dataset, Job, JobResultRow
from tests.app import factories as f
from worker.runner import Runner

pytestmark = pytest.mark.services


def _store(runner: Runner, frame: Any) -> str:
    table = tables.from_file(
        f.csv_bytes(frame), filename="d.csv", target="y", environment="env", features=None
    )
    data = table.to_parquet()
    dataset_id = str(uuid.uuid4())
    with runner.sessions() as s:
        existing = s.scalar(select(Dataset.id).where(Dataset.sha256 == table.sha256()))
        if existing:
            return str(existing)
        s.add(
            Dataset(
                id=dataset_id,
                tenant_id=DEFAULT_TENANT_ID,
                name="auto",
                sha256=table.sha256(),
                n_rows=table.n_rows,
                feature_names=list(table.feature_names),
                target=table.target,
                environments=table.summary(),
                size_bytes=len(data),
                data=data,
            )  # fmt: skip
        )
        s.commit()
    return dataset_id


def _run_sal(runner: Runner, dataset_id: str, algorithm: str = "sal") -> dict[str, Any]:
    job_id = str(uuid.uuid4())
    with runner.sessions() as s:
        s.add(
            Job(
                id=job_id,
                tenant_id=DEFAULT_TENANT_ID,
                dataset_id=dataset_id,
                status="queued",
                algorithm=algorithm,
                task="regression",
                params={},
                model={"kind": "linear"},
                seed=3,
                device="cpu",
                queue="sal",
                train_environments=["a", "b"],
                test_environments=["c"],
                progress_step=0,
            )  # fmt: skip
        )
        s.commit()
    assert runner.run(job_id) == "succeeded"
    with runner.sessions() as s:
        row = s.get(JobResultRow, job_id)
        assert row is not None
        return dict(row.result)


@pytest.mark.parametrize("algorithm", ["sal", "wdrl"])
def test_auto_lambda_is_unchanged_when_test_rows_are_altered(runner: Runner, algorithm: str) -> None:
    frame = f.frame(seed=811, n_per_env=60)
    altered = frame.copy()
    test_rows = altered["env"] == "c"
    rng = np.random.default_rng(0)
    altered.loc[test_rows, "y"] = 50.0 + 10.0 * rng.normal(size=int(test_rows.sum()))
    altered.loc[test_rows, "x1"] = -altered.loc[test_rows, "x1"] * 7.0

    first = _run_sal(runner, _store(runner, frame), algorithm)
    second = _run_sal(runner, _store(runner, altered), algorithm)

    assert first["selection"] is not None and first["selection"]["parameter"] == "lambda_"
    assert first["selection"] == second["selection"]
    assert first["coefficients"] == second["coefficients"]
    # the test environment itself did change, so the test metrics must differ
    assert first["summary"] != second["summary"]
