"""The worker's job runner on PostgreSQL: the claim, failures, progress and the dataset cache."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from sqlalchemy import func, select, update

from app.datasets import tables
from app.db.models import DEFAULT_TENANT_ID, Dataset, Job, JobResultRow
from tests.app import factories as f
from worker.runner import ProgressWriter, Runner

pytestmark = pytest.mark.services


def _dataset(runner: Runner, seed: int, binary: bool = False) -> str:
    table = tables.from_file(
        f.csv_bytes(f.frame(seed=seed, binary=binary)),
        filename="d.csv",
        target="y",
        environment="env",
        features=None,
    )
    with runner.sessions() as s:
        existing = s.scalar(select(Dataset.id).where(Dataset.sha256 == table.sha256()))
        if existing:
            return existing
        data = table.to_parquet()
        d = Dataset(
            id=str(uuid.uuid4()), tenant_id=DEFAULT_TENANT_ID, name="t", sha256=table.sha256(), n_rows=table.n_rows,
            feature_names=list(table.feature_names), target=table.target, environments=table.summary(),
            size_bytes=len(data), data=data,
        )  # fmt: skip
        s.add(d)
        s.commit()
        return d.id


def _job(runner: Runner, dataset_id: str, **overrides: Any) -> str:
    fields: dict[str, Any] = dict(
        id=str(uuid.uuid4()), tenant_id=DEFAULT_TENANT_ID, dataset_id=dataset_id, status="queued", algorithm="erm", task="regression",
        params={}, model={"kind": "linear"}, seed=0, device="cpu", queue="sal",
        train_environments=["a", "b"], test_environments=["c"], progress_step=0,
    )  # fmt: skip
    fields.update(overrides)
    with runner.sessions() as s:
        s.add(Job(**fields))
        s.commit()
    return str(fields["id"])


def _job_row(runner: Runner, job_id: str) -> Job:
    with runner.sessions() as s:
        job = s.get(Job, job_id)
        assert job is not None
        return job


def _results(runner: Runner, job_id: str) -> int:
    with runner.sessions() as s:
        return int(
            s.scalar(select(func.count()).select_from(JobResultRow).where(JobResultRow.job_id == job_id)) or 0
        )


def test_a_duplicate_delivery_does_nothing(runner: Runner) -> None:
    job_id = _job(runner, _dataset(runner, 401))
    assert runner.run(job_id) == "succeeded"
    assert runner.run(job_id) == "skipped"
    job = _job_row(runner, job_id)
    assert job.status == "succeeded" and job.progress_step == job.progress_total == 1
    assert _results(runner, job_id) == 1
    assert runner.run(str(uuid.uuid4())) == "skipped"  # unknown id


@pytest.mark.parametrize(
    ("overrides", "error_type"),
    [
        ({"algorithm": "vanished"}, "UnknownAlgorithmError"),
        ({"params": {"steps": -5}}, "InvalidParameterError"),
        ({"train_environments": ["a", "nope"]}, "KeyError"),
    ],
)
def test_any_error_ends_the_job_failed(runner: Runner, overrides: dict[str, Any], error_type: str) -> None:
    job_id = _job(runner, _dataset(runner, 402), **overrides)
    assert runner.run(job_id) == "failed"
    job = _job_row(runner, job_id)
    assert job.status == "failed" and job.finished_at is not None
    assert job.error is not None and job.error["type"] == error_type and job.error["message"]
    assert _results(runner, job_id) == 0


def test_a_corrupt_dataset_fails_the_job(runner: Runner) -> None:
    dataset_id = _dataset(runner, 403)
    with runner.sessions() as s:
        s.execute(update(Dataset).where(Dataset.id == dataset_id).values(sha256="f" * 64))
        s.commit()
    job_id = _job(runner, dataset_id)
    assert runner.run(job_id) == "failed"
    assert "corrupt" in (_job_row(runner, job_id).error or {})["message"]


def test_datasets_are_cached_by_hash(runner: Runner, monkeypatch: pytest.MonkeyPatch) -> None:
    dataset_id = _dataset(runner, 404)
    decoded: list[str] = []
    original = tables.Table.from_parquet

    def counting(data: bytes, *, expected_sha256: str) -> tables.Table:
        decoded.append(expected_sha256)
        return original(data, expected_sha256=expected_sha256)

    monkeypatch.setattr(tables.Table, "from_parquet", staticmethod(counting))
    for seed in range(3):
        assert runner.run(_job(runner, dataset_id, seed=seed)) == "succeeded"
    assert len(decoded) == 1


def test_progress_asks_the_fit_to_stop_once_the_job_is_not_running(runner: Runner) -> None:
    job_id = _job(runner, _dataset(runner, 405))
    with runner.sessions() as s:
        s.execute(update(Job).where(Job.id == job_id).values(status="running"))
        s.commit()
    progress = ProgressWriter(runner.sessions, job_id, min_interval=0.0)
    assert progress(1, 4, {}) is False
    assert _job_row(runner, job_id).progress_step == 1
    with runner.sessions() as s:
        s.execute(update(Job).where(Job.id == job_id).values(status="cancelled"))
        s.commit()
    assert progress(2, 4, {}) is True
    assert _job_row(runner, job_id).status == "cancelled"


def _stored(runner: Runner, job_id: str) -> dict[str, Any]:
    with runner.sessions() as s:
        row = s.get(JobResultRow, job_id)
        assert row is not None
        return dict(row.result)


@pytest.mark.parametrize(("task", "metric"), [("regression", "rmse"), ("classification", "error_rate")])
def test_a_linear_job_is_compared_with_erm_on_its_test_environments(
    runner: Runner, task: str, metric: str
) -> None:
    """A SAL job stores ERM's Mean_Error on the same test environments (the very figure an ERM job on
    the same data and seed reports), its own minus ERM's, and the paired standard error of that
    difference; the ERM job itself carries no reference."""
    dataset_id = _dataset(runner, 406, binary=task == "classification")
    sal_id, erm_id = (_job(runner, dataset_id, algorithm=a, task=task) for a in ("sal", "erm"))
    assert runner.run(sal_id) == "succeeded" and runner.run(erm_id) == "succeeded"
    sal, erm = _stored(runner, sal_id), _stored(runner, erm_id)
    ref = sal["reference"]
    assert ref["algorithm"] == "erm" and ref["metric"] == sal["summary"]["metric"] == metric
    assert ref["mean_error"] == pytest.approx(erm["summary"]["mean_error"], rel=1e-9)
    assert ref["difference"] == pytest.approx(sal["summary"]["mean_error"] - ref["mean_error"], abs=1e-12)
    if task == "regression":
        if sal["selection"]["chosen"]["relative"] is None:  # SAL that keeps ERM is ERM's fit: 0 ± 0
            assert abs(ref["difference"]) < 1e-12 and ref["standard_error"] < 1e-9
        robust_id = _job(runner, dataset_id, algorithm="sal", task=task, params={"lambda_": 0.01})
        assert runner.run(robust_id) == "succeeded"
        robust = _stored(runner, robust_id)["reference"]  # a strong adversary: another model than ERM
        assert robust["mean_error"] == pytest.approx(ref["mean_error"], rel=1e-9)
        assert robust["difference"] != 0 and robust["standard_error"] > 0
    else:  # 0/1 losses: here SAL and ERM label every test row alike (0 ± 0); the SE's formula for
        # error rates is checked against a bootstrap in tests/sal_core/test_metrics.py
        assert ref["standard_error"] > 0 or ref["difference"] == 0
    assert erm["reference"] is None
    homogeneity = sal["selection"]["homogeneity"]  # the slopes test, stored with the job's selection
    if task == "classification":  # the likelihood ratio: χ² on df1, no df2
        assert homogeneity["df2"] is None and "likelihood ratio" in homogeneity["test"]
    else:
        assert homogeneity["df2"] > 0 and "Chow" in homogeneity["test"]
    assert homogeneity["df1"] > 0 and 0.0 <= homogeneity["p_value"] <= 1.0


def test_no_reference_is_fitted_for_networks_or_without_test_environments() -> None:
    """A network would double its job's cost, and with no test environments there is nothing to compare."""
    from types import SimpleNamespace

    from sal_core import get_algorithm
    from sal_core.synthetic import selection_bias

    s = selection_bias(n=200, seed=0, n_test=50)
    linear = get_algorithm("sal")({"lambda_": 0.1}, seed=0).fit(s.train)
    job = SimpleNamespace(id="j", algorithm="sal", task="regression", model={"kind": "linear"}, seed=0)
    assert Runner._reference(job, linear, s.train, s.test, "cpu") is not None
    assert Runner._reference(job, linear, s.train, [], "cpu") is None
    network = SimpleNamespace(model=SimpleNamespace(model_spec=SimpleNamespace(is_linear=False)))
    assert Runner._reference(job, network, s.train, s.test, "cpu") is None  # type: ignore[arg-type]
