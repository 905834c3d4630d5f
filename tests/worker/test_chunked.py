"""Fits read chunk by chunk (issue 19): the job's result equals the in-memory fit's, and a chunk
task whose worker process is killed mid-pass is retried by Celery to a bit-identical reduce."""

from __future__ import annotations

import io
import json
import os
import signal
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import redis
from sqlalchemy import select

from app.datasets import chunks, fanout, objects, outofcore_network, streaming
from app.db import repository as repo
from app.db.models import DEFAULT_TENANT_ID, Dataset, Job, JobResultRow
from app.queue import make_celery, worker_command
from app.settings import Settings
from app.storage import open_store
from sal_core.minibatches import ChunkRows
from sal_core.synthetic import selection_bias
from tests.conftest import Proc, _wait_for, service_env
from worker.chunked import CHUNK_PART, CancelCheck
from worker.runner import Runner

pytestmark = pytest.mark.services

TRAIN, TEST = ["r=1.7", "r=-1.1"], ["test r=-3", "test r=3"]


def _csv(seed: int) -> bytes:
    s = selection_bias(r=1.7, n=6000, seed=seed, n_test=2000)
    frames = [pd.DataFrame(e.X, columns=s.feature_names).assign(y=e.y, env=e.name) for e in s.train + s.test]
    df = pd.concat(frames)
    df[s.feature_names] = df[s.feature_names] * 3.0 + 5.0  # not standardised already
    return df.to_csv(index=False).encode()


@pytest.fixture
def settings(pg_settings: Settings) -> Iterator[Settings]:
    # one store for the session: a dataset (unique by content) is stored once and reused. The
    # test's own chunk queue, emptied after it: parts the job's worker did itself stay unconsumed.
    update = {
        "dataset_store": "local",
        "storage_dir": pg_settings.data_dir / "chunked",
        "chunked_fit_min_rows": 1,
        "chunk_queue": f"chunks-{uuid.uuid4().hex[:12]}",
        "chunk_groups_per_task": 1,  # a part per row group: the faults and cancels below aim at parts
    }
    mine = pg_settings.model_copy(update=update)
    yield mine
    client = redis.Redis.from_url(mine.broker_url)
    client.delete(mine.chunk_queue)
    client.close()


def _dataset(settings: Settings, seed: int) -> tuple[str, int]:
    """A dataset in the local store in ~30 row groups (as an upload stores it); (id, row groups)."""
    data = _csv(seed)
    runner = Runner.from_settings(settings)
    try:
        with streaming.parse_file(
            io.BytesIO(data), filename="d.csv", target="y", environment="env", features=None,
            chunk_bytes=len(data) // 30,
        ) as staged, runner.sessions() as s:  # fmt: skip
            found = s.scalar(
                select(Dataset.id).where(
                    Dataset.tenant_id == DEFAULT_TENANT_ID, Dataset.sha256 == staged.sha256()
                )
            )
            if found is not None:
                return found, staged.n_chunks
            dataset_id = str(uuid.uuid4())
            placed = objects.place(staged, DEFAULT_TENANT_ID, dataset_id, settings)
            s.add(
                Dataset(
                    id=dataset_id,
                    tenant_id=DEFAULT_TENANT_ID,
                    name=f"chunked-{seed}",
                    sha256=staged.sha256(),
                    n_rows=staged.n_rows,
                    feature_names=list(staged.feature_names),
                    target="y",
                    environments=staged.summary(),
                    size_bytes=placed.size_bytes,
                    storage=placed.storage,
                    storage_key=placed.storage_key,
                )  # fmt: skip
            )
            s.commit()
            return dataset_id, staged.n_chunks
    finally:
        runner.close()


def _job(
    runner: Runner,
    dataset_id: str,
    algorithm: str,
    params: dict[str, Any],
    model: dict[str, Any] | None = None,
) -> str:
    """A queued chunkable job on the dataset (as the API would have stored it)."""
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
                params=params,
                model=model or {"kind": "linear"},
                seed=0,
                device="cpu",
                queue="sal",
                train_environments=TRAIN,
                test_environments=TEST,
                progress_step=0,
            )  # fmt: skip
        )
        s.commit()
    return job_id


def _run(
    settings: Settings,
    dataset_id: str,
    algorithm: str,
    params: dict[str, Any],
    model: dict[str, Any] | None = None,
) -> tuple[str, dict[str, Any]]:
    runner = Runner.from_settings(settings)
    try:
        job_id = _job(runner, dataset_id, algorithm, params, model)
        assert runner.run(job_id) == "succeeded"
        with runner.sessions() as s:
            result = s.scalar(select(JobResultRow.result).where(JobResultRow.job_id == job_id))
        assert result is not None
        return job_id, dict(result)
    finally:
        runner.close()


def _rel(a: dict[str, float], b: dict[str, float]) -> float:
    x, y = np.array(list(a.values())), np.array([b[k] for k in a])
    return float(np.max(np.abs(x - y)) / np.max(np.abs(y)))


@pytest.mark.parametrize(
    ("algorithm", "params", "tol"),
    [
        ("erm", {}, 1e-8),
        ("ridge", {"lambda_": 0.5}, 1e-8),
        ("lasso", {"lambda_": 0.05}, 1e-8),
        ("irm", {"penalty_weight": 100.0}, 1e-8),
        ("sal", {"lambda_": 0.1}, 1e-8),
        ("wdrl", {}, 1e-8),  # at lambda_="auto": the fold sums, the oof pass, then the θ-step
        # w ends at its cap (1e4) on 9 of 10 covariates: the θ-step's system is conditioned ~1e8, and
        # the in-memory fit itself moves by 9.5e-9 when its rows are permuted within environments
        ("sal", {"lambda_": 1.0, "anchor": "significant", "rounds": 150}, 3e-8),
    ],
)
def test_a_chunked_fit_is_the_in_memory_fit(
    settings: Settings, algorithm: str, params: dict[str, Any], tol: float
) -> None:
    dataset_id, groups = _dataset(settings, seed=1)
    assert groups >= 20
    job_id, chunked = _run(settings, dataset_id, algorithm, params)
    _, memory = _run(settings.model_copy(update={"chunked_fit_min_rows": 0}), dataset_id, algorithm, params)
    assert _rel(chunked["coefficients"], memory["coefficients"]) < tol
    assert abs(chunked["intercept"] - memory["intercept"]) < tol * max(1.0, abs(memory["intercept"]))
    if algorithm in ("sal", "wdrl"):
        assert _rel(chunked["covariate_weights"], memory["covariate_weights"]) < 1e-8
        assert len(chunked["history"]) == len(memory["history"])
        # ρ̂ = MSE·κ/(λ − κ)² at the θ-step's fixed point, which stops at its own tolerance
        assert chunked["certificate"]["rho_hat"] == pytest.approx(memory["certificate"]["rho_hat"], rel=1e-6)
    else:
        assert chunked["covariate_weights"] is None
        assert len(chunked["history"]) == len(memory["history"]) == 1
        assert chunked["history"][0]["risk"] == pytest.approx(memory["history"][0]["risk"], rel=1e-8)
        if algorithm == "irm":  # the round carries IRM's mean invariance penalty
            assert chunked["history"][0]["penalty"] == pytest.approx(
                memory["history"][0]["penalty"], rel=1e-6
            )
    by_name = {e["name"]: e for e in memory["environments"]}
    for env in chunked["environments"]:
        other = by_name[env["name"]]
        assert (env["split"], env["n_rows"]) == (other["split"], other["n_rows"])
        for metric in ("mse", "rmse", "mae"):
            assert env[metric] == pytest.approx(other[metric], rel=1e-7)
    assert chunked["summary"]["mean_error"] == pytest.approx(memory["summary"]["mean_error"], rel=1e-7)
    # against ERM on the same test rows: ERM from the same moments and the paired sums of one pass
    if algorithm == "erm":
        assert chunked["reference"] is None and memory["reference"] is None
    else:
        got, want = chunked["reference"], memory["reference"]
        assert got["algorithm"] == want["algorithm"] == "erm" and got["metric"] == want["metric"] == "rmse"
        assert got["mean_error"] == pytest.approx(want["mean_error"], rel=1e-7)
        assert got["difference"] == pytest.approx(want["difference"], rel=1e-5, abs=1e-9)
        assert got["standard_error"] == pytest.approx(want["standard_error"], rel=1e-5, abs=1e-9)
    # its scratch objects are gone, its run marked closed
    left = [o.key for o in open_store(settings, "local").list(f"scratch/{job_id}-")]
    assert left == [f"scratch/{job_id}-1/closed"]


def test_sal_at_defaults_chunked_is_the_in_memory_fit(settings: Settings) -> None:
    """lambda_='auto' runs chunk by chunk (a fourth pass scores the candidates out of fold) and
    chooses as the fit in memory does; tests/app/test_outofcore.py checks the scores closely."""
    dataset_id, _ = _dataset(settings, seed=2)
    job_id, chunked = _run(settings, dataset_id, "sal", {})
    _, memory = _run(settings.model_copy(update={"chunked_fit_min_rows": 0}), dataset_id, "sal", {})
    left = [o.key for o in open_store(settings, "local").list(f"scratch/{job_id}-")]
    assert left == [f"scratch/{job_id}-1/closed"]  # it ran the chunk passes
    got, want = chunked["selection"], memory["selection"]
    assert got is not None and want is not None
    assert (got["chosen"]["relative"], got["chosen"]["variant"]) == (
        want["chosen"]["relative"],
        want["chosen"]["variant"],
    )
    for a, b in zip(got["candidates"], want["candidates"], strict=True):
        assert a["score"] == pytest.approx(b["score"], rel=1e-7)
    assert got["covariate_weights"]["determined"] == want["covariate_weights"]["determined"]
    assert _rel(chunked["coefficients"], memory["coefficients"]) < 1e-8
    assert _rel(chunked["covariate_weights"], memory["covariate_weights"]) < 1e-8
    assert len(chunked["history"]) == len(memory["history"])


def test_an_mlp_job_streams_its_minibatches_from_the_chunks(settings: Settings) -> None:
    """An ERM MLP job on a chunked dataset: the stats and metrics passes fan out, the Adam steps
    take minibatches read from the row groups (tests/app/test_outofcore_network.py checks the
    bound, the seed, SAL and a table larger than a minibatch). Here the 6,000 training rows are
    fewer than a minibatch (8,192), so the stream reads them once and holds them, one full batch
    a step: the in-memory fit's Adam steps, the rows summed in another order (measured: equal to
    ~1e-16)."""
    dataset_id, _ = _dataset(settings, seed=1)
    mlp, params = {"kind": "mlp", "hidden": [8]}, {"steps": 10}
    job_id, chunked = _run(settings, dataset_id, "erm", params, mlp)
    _, memory = _run(settings.model_copy(update={"chunked_fit_min_rows": 0}), dataset_id, "erm", params, mlp)
    left = [o.key for o in open_store(settings, "local").list(f"scratch/{job_id}-")]
    assert left == [f"scratch/{job_id}-1/closed"]  # it ran the chunk passes
    assert chunked["coefficients"] is None and chunked["covariate_weights"] is None
    assert len(chunked["history"]) == len(memory["history"]) == 1
    by_name = {e["name"]: e for e in memory["environments"]}
    for env in chunked["environments"]:
        other = by_name[env["name"]]
        assert (env["split"], env["n_rows"]) == (other["split"], other["n_rows"])
        assert env["rmse"] == pytest.approx(other["rmse"], rel=1e-9)


# --- the fan-out under a killed chunk task --------------------------------------------------------


@pytest.fixture
def chunk_worker(settings: Settings, tmp_path: Path) -> Iterator[tuple[Proc, Settings]]:
    """A private worker consuming only this test's chunk queue, holding each part 2 s after its
    started marker (SAL_FAULT_CHUNK_PAUSE_S) so the test can kill its process there."""
    mine = settings
    assert mine.storage_dir is not None
    env = service_env(mine) | {
        "SAL_STORAGE_DIR": str(mine.storage_dir),
        "SAL_DATASET_STORE": "local",
        "SAL_FAULT_CHUNK_PAUSE_S": "2",
    }
    proc = Proc(
        worker_command([mine.chunk_queue], hostname=f"chunks-{os.getpid()}@%h"), env, tmp_path / "w.log"
    )
    proc.wait_for_log(" ready.", timeout=90)
    try:
        yield proc, mine
    finally:
        proc.stop()


def _sums_parts(settings: Settings, dataset_id: str, run: str) -> tuple[Any, list[fanout.Part]]:
    runner = Runner.from_settings(settings)
    with runner.sessions() as s:
        d = s.get(Dataset, dataset_id)
        assert d is not None and d.storage_key is not None
        key, envs, features = d.storage_key, tuple(e["name"] for e in d.environments), tuple(d.feature_names)
    runner.close()
    store = open_store(settings, "local")
    p = len(features)
    what = fanout.Pass("sums", {"mean": [5.0] * p, "scale": [3.0] * p, "y_scale": 2.0})
    parts = fanout.plan_parts(
        chunks.n_chunks(store, key), 8, run, what, storage="local", key=key, environments=envs,
        feature_names=features, target="y",
    )  # fmt: skip
    return store, parts


def test_a_chunk_task_killed_mid_pass_is_retried_to_the_same_bits(
    settings: Settings, chunk_worker: tuple[Proc, Settings]
) -> None:
    proc, mine = chunk_worker
    dataset_id, _ = _dataset(settings, seed=3)
    store, parts = _sums_parts(mine, dataset_id, f"calm-{uuid.uuid4().hex[:8]}")
    calm = fanout.reduce_parts(fanout.run_pass(store, parts, None, stall_s=60), "sums")  # all here

    store, parts = _sums_parts(mine, dataset_id, f"killed-{uuid.uuid4().hex[:8]}")
    celery = make_celery(mine)
    for part in parts:
        celery.send_task(CHUNK_PART, args=[part.to_json()], queue=mine.chunk_queue)
    victim = parts[1]  # killed while it holds its second part, after its started marker

    def started() -> bool:
        return store.exists(victim.started_key)

    _wait_for(started, 60, "the second part to start")
    pid = int(json.loads(store.get(victim.started_key))["pid"])
    os.kill(pid, signal.SIGKILL)
    # the parent only waits (sent already, help_=False): every part comes from the worker, the
    # victim's from Celery's redelivery (acks_late, reject_on_worker_lost) to a new pool process
    deadline = time.monotonic() + 120  # a part never redelivered fails the test, not hangs it
    results = fanout.run_pass(
        store, parts, lambda part: None, stall_s=600, help_=False, stop=lambda: time.monotonic() > deadline
    )
    again = fanout.reduce_parts(results, "sums")
    assert int(json.loads(store.get(victim.started_key))["pid"]) != pid
    assert f"pid:{pid} exited" in proc.log()
    for name in calm:
        assert calm[name].tobytes() == again[name].tobytes(), name


# --- a cancel between the passes and their parts ------------------------------------------------


def _request_cancel(runner: Runner, job_id: str) -> None:
    with runner.sessions() as s:
        assert repo.cancel_job(s, job_id, tenant_id=DEFAULT_TENANT_ID)[1] == "requested"
        s.commit()


def _run_to_cancelled(runner: Runner, job_id: str) -> dict[str, Any] | None:
    """Runs the job, which must end cancelled with no error; its result document, if it kept one."""
    assert runner.run(job_id) == "cancelled"
    with runner.sessions() as s:
        job = s.get(Job, job_id)
        result = s.scalar(select(JobResultRow.result).where(JobResultRow.job_id == job_id))
    assert job is not None and job.status == "cancelled" and job.error is None
    return result


@pytest.mark.parametrize(
    ("during", "kept"),
    [
        (("stats", 0), False),  # the pass's last part here: seen before the sums pass sends a part
        (("sums", None), False),  # its first part here: seen before the next one
        (("metrics", None), True),  # the model is there: scored whole and kept, as in memory
    ],
)
def test_a_cancel_stops_a_chunked_fit_between_its_parts(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, during: tuple[str, int | None], kept: bool
) -> None:
    """The cancel is requested while the job's worker computes a part (no chunk worker runs: it
    computes every part, from the last backwards). Before the solve the fit stops at its next
    step, the job ends `cancelled` with no result and no scratch object left; in the last pass
    it ends `cancelled` with its whole result, as a cancelled in-memory fit keeps its own."""
    mine = settings.model_copy(update={"progress_min_interval_s": 0.0})  # the row read at every step
    dataset_id, _ = _dataset(mine, seed=1)
    runner = Runner.from_settings(mine)
    job_id = _job(runner, dataset_id, "sal", {"lambda_": 0.1})
    computed: list[tuple[str, int]] = []
    compute = fanout.compute_part

    def cancelling(store: Any, part: fanout.Part) -> fanout.Arrays:
        first = not any(name == part.pass_name for name, _ in computed)
        computed.append((part.pass_name, part.index))
        if part.pass_name == during[0] and (part.index == during[1] if during[1] is not None else first):
            _request_cancel(runner, job_id)
        return compute(store, part)

    monkeypatch.setattr(fanout, "compute_part", cancelling)
    try:
        result = _run_to_cancelled(runner, job_id)
    finally:
        runner.close()
    passes = [name for name, _ in computed]
    n_parts = passes.count("stats")
    if during[0] == "stats":
        assert "sums" not in passes and n_parts > 1
    elif during[0] == "sums":
        assert passes.count("sums") == 1 and "metrics" not in passes
    else:
        assert passes.count("metrics") == n_parts == passes.count("sums")
    if kept:
        assert result is not None and len(result["coefficients"]) == 10
    else:
        assert result is None
    left = [o.key for o in open_store(mine, "local").list(f"scratch/{job_id}-")]
    assert left == [f"scratch/{job_id}-1/closed"]


def test_a_cancel_stops_a_streamed_mlp_fit_between_its_reads(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cancel requested while an MLP job streams its minibatches: the stream asks the job's row
    before each row group it reads, stops at the next one, and the job ends `cancelled` with no
    result and its scratch objects removed (the network's progress ticks would keep a partial
    network; the reads see the cancel first)."""
    mine = settings.model_copy(update={"progress_min_interval_s": 0.0})  # the row read at every step
    dataset_id, groups = _dataset(mine, seed=1)
    runner = Runner.from_settings(mine)
    job_id = _job(runner, dataset_id, "erm", {"steps": 500}, {"kind": "mlp", "hidden": [8]})
    reads: list[int] = []
    reader = outofcore_network.group_reader
    at = groups + 5  # the evaluation sample's pass read every group; a few minibatch reads after it

    def cancelling(*args: Any) -> Any:
        read = reader(*args)

        def counted(i: int) -> ChunkRows:
            reads.append(i)
            if len(reads) == at:
                _request_cancel(runner, job_id)
            return read(i)

        return counted

    monkeypatch.setattr(outofcore_network, "group_reader", cancelling)
    try:
        result = _run_to_cancelled(runner, job_id)
    finally:
        runner.close()
    assert result is None
    assert len(reads) == at  # no row group read after the cancel
    left = [o.key for o in open_store(mine, "local").list(f"scratch/{job_id}-")]
    assert left == [f"scratch/{job_id}-1/closed"]


def test_the_cancel_check_reads_the_row_at_most_every_interval(settings: Settings) -> None:
    dataset_id, _ = _dataset(settings, seed=1)
    runner = Runner.from_settings(settings)
    try:
        job_id = _job(runner, dataset_id, "sal", {"lambda_": 0.1})
        with runner.sessions() as s:
            attempt = repo.claim_job(s, job_id, worker="test:1")
            s.commit()
        assert attempt is not None
        now = [0.0]
        check = CancelCheck(runner.sessions, job_id, attempt, 5.0, clock=lambda: now[0])
        assert not check()
        _request_cancel(runner, job_id)
        now[0] = 4.9
        assert not check()  # not read again yet
        now[0] = 5.0
        assert check() and check.stopped
        calm = _job(runner, dataset_id, "sal", {"lambda_": 0.1})
        with runner.sessions() as s:
            mine = repo.claim_job(s, calm, worker="test:1")
            s.commit()
        assert mine is not None
        assert not CancelCheck(runner.sessions, calm, mine, 0.0)()
        assert CancelCheck(runner.sessions, calm, mine + 1, 0.0)()  # not that attempt's job
    finally:
        runner.close()
