"""Run one job: claim the row, fit with sal_core, evaluate, store the result — or record why not.

The claim is a conditional UPDATE (queued -> running), so a duplicate delivery does nothing. It
numbers the attempt, and every later write of this run is fenced by that number, so a worker that
lost its lease (see worker.leases) cannot touch a job another worker took over. While the fit runs a
heartbeat renews the lease. Any exception ends the job ``failed`` with ``error = {type, message}``;
a job is never left running by an error this process survives, and one it does not survive (a
kill, a lost database) is found by the reaper when its lease expires.
"""

from __future__ import annotations

import hashlib
import logging
import os
import socket
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from celery.exceptions import SoftTimeLimitExceeded
from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from app import logs, metrics
from app.cache import LRUCache
from app.datasets import fanout, objects, outofcore
from app.datasets.tables import CorruptDatasetError, Table
from app.db import leases, tenancy
from app.db import repository as repo
from app.db.models import JobStatus, utcnow
from app.db.session import engine_for, make_sessionmaker
from app.jobs import artifacts, reproducibility, validation
from app.jobs.result import (
    CertificatePublic,
    EnvironmentResult,
    JobResult,
    ReferenceComparison,
    RoundResult,
    Selection,
    Summary,
    ValidationResult,
    thin_history,
)
from app.jobs.spec import build_algorithm
from app.settings import Settings, get_settings
from sal_core import Environment, FitResult, SalError
from sal_core.algorithms.base import RoundMetrics, resolve_device
from sal_core.data import in_canonical_order, split_environments
from sal_core.fitted import FittedModel
from sal_core.metrics import evaluate, paired_difference
from worker import chunked
from worker.leases import Heartbeat, holder_gone, recover

log = logging.getLogger(__name__)


class NonFiniteResult(ValueError):
    """The fit's scores or learned numbers are not finite (see JobResult.non_finite_field)."""


# Errors whose message is about the job's own input, shown to its tenant as they are; any other
# error is reported as "internal" without its text.
SHOWN_TO_TENANTS: tuple[type[Exception], ...] = (LookupError, ValueError, TypeError, CorruptDatasetError)
# A progress write carries w only up to this many features: the row holds one round, kept small.
PROGRESS_W_FEATURES = 50


def round_metrics(metrics: RoundMetrics, feature_names: Sequence[str]) -> dict[str, Any] | None:
    """What a progress write stores of a round's ``metrics``: ``{"risk": r}`` and, for at most
    ``PROGRESS_W_FEATURES`` features, ``{"w": {feature: w_i}}``; None when there is neither. A
    non-finite risk is stored as null (JSON has no NaN)."""
    stored: dict[str, Any] = {}
    risk = metrics.get("risk")
    if isinstance(risk, int | float):
        stored["risk"] = float(risk) if np.isfinite(risk) else None
    w = metrics.get("w")
    if isinstance(w, Sequence) and len(w) == len(feature_names) <= PROGRESS_W_FEATURES:
        stored["w"] = {n: float(v) if np.isfinite(v) else None for n, v in zip(feature_names, w, strict=True)}
    return stored or None


class ProgressWriter:
    """sal_core's progress callback: writes (step, total) into the row, at most every
    ``min_interval`` seconds (and always the last step), with the round's metrics
    (``round_metrics``); asks the fit to stop once the job is no
    longer ``running`` (cancelled, or taken over) or a cancel was requested. A write that fails
    because the database is briefly away is skipped: the fit goes on."""

    def __init__(
        self,
        sessions: sessionmaker[Session],
        job_id: str,
        min_interval: float,
        attempt: int | None = None,
        feature_names: Sequence[str] = (),
    ) -> None:
        self._sessions = sessions
        self._job_id = job_id
        self._feature_names = feature_names
        self._min_interval = min_interval
        self._attempt = attempt
        self._last = 0.0
        self.stopped = False

    def __call__(self, step: int, total: int, metrics: RoundMetrics) -> bool:
        now = time.monotonic()
        if step < total and now - self._last < self._min_interval:
            return False
        self._last = now
        try:
            with self._sessions() as session:
                still_running = repo.report_progress(
                    session,
                    self._job_id,
                    step,
                    total,
                    attempt=self._attempt,
                    metrics=round_metrics(metrics, self._feature_names),
                )
                session.commit()
        except (OperationalError, InterfaceError) as exc:
            log.warning("progress of job %s not recorded: %s", self._job_id, exc)
            return False
        self.stopped = not still_running
        return self.stopped


def reference_comparison(
    model: FittedModel, reference: FittedModel | None, test: Sequence[Environment]
) -> ReferenceComparison | None:
    """``model`` against ``reference`` on the test environments (None without either)."""
    if reference is None or not test:
        return None
    return ReferenceComparison.of(paired_difference(model, reference, test))


def build_result(
    fit: FitResult,
    feature_names: Sequence[str],
    train: Sequence[Environment],
    test: Sequence[Environment],
    valid: Sequence[Environment] = (),
    reference: FittedModel | None = None,
) -> JobResult:
    """The job's result document; ``valid`` are the held-out validation rows, ``reference`` ERM fitted
    on the same training rows (:func:`reference_comparison`)."""
    environments: list[dict[str, Any]] = []
    summary = None
    for split, envs in (("train", train), ("test", test)):
        if not envs:
            continue
        per_env, summ = evaluate(fit.model, envs)
        environments += [
            {"name": e.name, "split": split, "n_rows": e.n_rows, **per_env[e.name]} for e in envs
        ]
        if split == "test":
            summary = Summary(
                metric=summ.metric,
                mean_error=summ.mean_error,
                std_error=summ.std_error,
                worst_error=summ.worst_error,
                worst_environment=summ.worst_environment,
            )

    def by_feature(values: np.ndarray | None) -> dict[str, float] | None:
        return None if values is None else {n: float(v) for n, v in zip(feature_names, values, strict=True)}

    cert = fit.certificate
    selection = fit.selection
    return JobResult(
        environments=[EnvironmentResult.model_validate(e) for e in environments],
        summary=summary,
        coefficients=by_feature(fit.coefficients_original),
        intercept=None if fit.intercept_original is None else float(fit.intercept_original),
        covariate_weights=by_feature(fit.covariate_weights),
        history=[RoundResult.of(r) for r in thin_history(fit.history)],
        certificate=None
        if cert is None
        else CertificatePublic(rho_hat=float(cert.rho_hat), worst_case_risk=float(cert.worst_case_risk)),
        duration_s=float(fit.duration_s),
        validation=ValidationResult.model_validate(validation.validation_result(fit.model, valid))
        if valid
        else None,
        selection=None if selection is None else Selection.model_validate(_jsonable(selection.to_dict())),
        reference=reference_comparison(fit.model, reference, test),
    )


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return _jsonable(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, float) and not np.isfinite(value):
        return None  # JSON has no NaN/inf
    return value


def hold_threads(threads: int) -> None:
    """torch's intra-op threads and numpy's BLAS threads both held to ``threads`` in this process.

    torch's setting alone left numpy's BLAS (OpenBLAS in numpy's wheel) one thread per core, and its
    idle threads spin after every call: with ``SAL_TORCH_THREADS=1`` a default SAL fit at p = 100
    took 0.75 s of CPU for 0.60 s of wall time, and N such workers on N cores oversubscribe them
    (measured: docs/benchmarks.md, "Workers' BLAS threads").
    """
    import torch
    from threadpoolctl import threadpool_limits

    torch.set_num_threads(threads)
    threadpool_limits(limits=threads)


class Runner:
    def __init__(self, sessions: sessionmaker[Session], settings: Settings) -> None:
        self.sessions = sessions
        self.settings = settings
        self.cache = LRUCache[str, Table](settings.dataset_cache_size)  # decoded datasets by sha256
        self._busy = False
        self._idle_since = time.monotonic()

    @classmethod
    def from_settings(cls, settings: Settings | None = None) -> Runner:
        settings = settings or get_settings()
        if settings.torch_threads is not None:
            hold_threads(settings.torch_threads)
        return cls(make_sessionmaker(engine_for(settings)), settings)

    def close(self) -> None:
        bind = self.sessions.kw.get("bind")
        if bind is not None:
            bind.dispose()

    def idle_for(self) -> float:
        """Seconds since this process last finished a job (or started); 0 while one runs."""
        return 0.0 if self._busy else time.monotonic() - self._idle_since

    def claim(self, job_id: str, worker: str) -> int | None:
        """Claim the queued job, or take it over at once when the worker holding it is provably
        gone (worker.leases.holder_gone: same host, dead pid), fenced by attempt like the
        reaper's recovery. A database error propagates: the task re-queues its message."""
        with self.sessions() as session:
            attempt = repo.claim_job(session, job_id, worker=worker, lease_s=self.settings.lease_s)
            session.commit()
        if attempt is not None:
            return attempt
        with self.sessions() as session:
            held = leases.holder(session, job_id)
            if held is None or not holder_gone(held[1]):
                return None
            outcome = recover(session, held[0], utcnow(), self.settings)
            session.commit()
        log.warning("job %s: its worker %s is gone; %s", job_id, held[1], outcome)
        if outcome != "requeued":
            return None
        with self.sessions() as session:
            attempt = repo.claim_job(session, job_id, worker=worker, lease_s=self.settings.lease_s)
            session.commit()
        return attempt

    def run(self, job_id: str) -> str:
        worker = f"{socket.gethostname()}:{os.getpid()}"
        self._busy = True
        outcome = "skipped"
        start = time.perf_counter()
        with logs.bind(job_id=job_id):
            try:
                outcome = self._run(job_id, worker)
                return outcome
            finally:
                self._busy = False
                self._idle_since = time.monotonic()
                if outcome != "skipped":
                    self._observe(job_id)
                    ms = round((time.perf_counter() - start) * 1000, 1)
                    log.info("job %s", outcome, extra={"outcome": outcome, "duration_ms": ms})

    def _observe(self, job_id: str) -> None:
        """Prometheus: the run's outcome, duration and queue wait (app.metrics)."""
        try:
            with self.sessions() as session:
                job = repo.get_job(session, job_id, tenant_id=None)
                if job is not None:
                    metrics.observe_started(job)
                    metrics.observe_finished(job, self.settings.lease_s)
        except Exception:  # metrics never fail a job
            log.warning("metrics for job %s not recorded", job_id, exc_info=True)

    def _run(self, job_id: str, worker: str) -> str:
        attempt = self.claim(job_id, worker)
        if attempt is None:
            log.info("job %s is not queued (duplicate delivery or unknown id); skipping", job_id)
            return "skipped"
        logs.add(attempt=attempt)
        try:
            with Heartbeat(self.sessions, job_id, attempt, self.settings):
                return self._run_claimed(job_id, attempt)
        except Exception as exc:
            self._fail(job_id, attempt, *self._error_of(exc, job_id, worker))
            return "failed"

    def _error_of(self, exc: Exception, job_id: str, worker: str) -> tuple[str, str]:
        """(type, message) of a failed job, called while ``exc`` is being handled."""
        if _timed_out(exc):
            return "timeout", f"the job exceeded the time limit of {self.settings.task_soft_time_limit} s"
        if isinstance(exc, SalError):
            return type(exc).__name__, exc.message if exc.field is None else f"{exc.field}: {exc.message}"
        if isinstance(exc, NonFiniteResult):
            return "non_finite_result", str(exc)
        if isinstance(exc, SHOWN_TO_TENANTS):
            log.exception("job %s failed", job_id)
            return type(exc).__name__, str(exc) or repr(exc)
        # A database error's text carries its SQL and parameters, and other internals are no
        # business of a tenant: the job names only a reference into this worker's log.
        reference = f"{worker}/{job_id}"
        log.exception("job %s failed with an internal error (reference %s)", job_id, reference)
        return (
            "internal",
            f"an internal error stopped the job; the operator's worker log has it under {reference}",
        )

    def _fail(self, job_id: str, attempt: int, type_: str, message: str) -> None:
        error = {"type": type_, "message": message[:2000]}
        with self.sessions() as session:
            repo.fail_job(session, job_id, error, from_status=[JobStatus.RUNNING], attempt=attempt)
            session.commit()

    def _record_runtime(self, job_id: str, device: str) -> None:
        with self.sessions() as session:
            repo.record_runtime(session, job_id, reproducibility.runtime(device))
            session.commit()

    def _table(self, session: Session, dataset_id: str | None) -> Table:
        sha = repo.dataset_sha256(session, dataset_id) if dataset_id is not None else None
        if sha is None:
            raise LookupError(f"dataset {dataset_id} no longer exists")
        table = self.cache.get(sha)
        if table is None:
            where = repo.dataset_location(session, dataset_id)  # type: ignore[arg-type]
            assert where is not None
            data = objects.read_bytes(self.settings, *where)
            table = Table.from_parquet(data, expected_sha256=sha)
            self.cache.put(sha, table)
        return table

    def _run_claimed(self, job_id: str, attempt: int) -> str:
        with self.sessions() as session:
            job = repo.get_job(session, job_id, tenant_id=None)
            assert job is not None
            dataset = repo.get_dataset(session, job.dataset_id, tenant_id=None) if job.dataset_id else None
            by_chunks = chunked.plan(job, dataset, self.settings) if dataset is not None else None
            table = None if by_chunks is not None else self._table(session, job.dataset_id)
            tenant = tenancy.tenant_name(session, job.tenant_id)
            session.commit()
        # The request id of the submit ties these lines to the API's (app.logs).
        logs.add(tenant=tenant, algorithm=job.algorithm, request_id=job.request_id)
        log.info(
            "job started", extra={"queue": job.queue, "worker": (job.attempts or [{}])[-1].get("worker")}
        )
        # The API chose the device when the job was submitted (app.jobs.placement); a job queued
        # before placements existed has none, and its requested device is resolved here.
        device = _resolve(job.device_chosen or job.device)
        self._record_runtime(job_id, device)
        if by_chunks is not None:
            assert dataset is not None
            return self._run_chunked(job, attempt, by_chunks, dataset.target)
        assert table is not None
        algorithm = build_algorithm(
            job.algorithm, params=job.params, task=job.task, model=job.model, seed=job.seed, device=device
        )
        train = [table.environment(n) for n in job.train_environments]
        test = [table.environment(n) for n in job.test_environments]
        valid: list[Environment] = []
        if job.validation is not None and "fraction" in job.validation:
            # drawn from the rows in content order, so the listed order never moves the draw
            ordered = in_canonical_order(train, table.feature_names)
            train, valid = split_environments(ordered, job.validation["fraction"], job.seed)
        elif job.validation is not None:
            valid = [table.environment(n) for n in job.validation["environments"]]
        progress = ProgressWriter(
            self.sessions, job_id, self.settings.progress_min_interval_s, attempt, table.feature_names
        )
        fit = algorithm.fit(train, feature_names=table.feature_names, progress=progress)
        reference = None if fit.stopped else self._reference(job, fit, train, test, device)
        # A fit stopped for a requested cancel keeps its partial result (finish_job ends the job
        # `cancelled`); one stopped because the job was taken over stores nothing.
        result = build_result(fit, table.feature_names, train, test, valid, reference)
        bad = result.non_finite_field()
        if bad is not None:
            raise NonFiniteResult(
                f"the fit's {bad} is not finite (it overflowed or diverged); rescale the target and "
                "features, or lower the step size"
            )
        weights = artifacts.pack(fit.model, {"job_id": job_id, "algorithm": job.algorithm})
        sha = hashlib.sha256(weights).hexdigest()
        status = _with_db_retries(
            lambda: self._finish(job_id, attempt, result.to_json(), weights, sha), self.settings.lease_s
        )
        if status is None:
            log.info("job %s left `running` during the fit; dropping its result", job_id)
        return status or "stopped"

    @staticmethod
    def _reference(
        job: Any, fit: FitResult, train: Sequence[Environment], test: Sequence[Environment], device: str
    ) -> FittedModel | None:
        """ERM on the job's training rows, the yardstick of :func:`reference_comparison`: fitted for
        linear models with test environments (3 ms beside SAL's 44 ms for regression, 0.25 s beside 2 s
        for classification; docs/api.md), not for ERM itself
        nor for networks (a second network fit would double the job). A reference that fails to fit
        is left out, with a log line: it never fails the job."""
        if job.algorithm == "erm" or not test or not fit.model.model_spec.is_linear:
            return None
        try:
            erm = build_algorithm(
                "erm", params={}, task=job.task, model=job.model, seed=job.seed, device=device
            )
            return erm.fit(train).model
        except SalError as exc:
            log.warning("job %s: its ERM reference was not fitted: %s", job.id, exc)
            return None

    def _run_chunked(self, job: Any, attempt: int, plan: chunked.ChunkedJob, target: str) -> str:
        """The job's fit chunk by chunk (worker.chunked), its parts sent to the chunk queue."""
        from worker.celery_app import celery_app

        def send(part: Any) -> None:
            celery_app.send_task(chunked.CHUNK_PART, args=[part.to_json()], queue=self.settings.chunk_queue)

        writer = ProgressWriter(
            self.sessions, job.id, self.settings.progress_min_interval_s, attempt, plan.data.feature_names
        )
        total = outofcore.total_steps(job.algorithm, dict(job.params or {}), job.model)
        check = chunked.CancelCheck(self.sessions, job.id, attempt, self.settings.progress_min_interval_s)
        try:
            result, weights, sha, _ = chunked.run(
                job, attempt, target, plan, self.settings, send, lambda step, m: writer(step, total, m), check
            )
        except fanout.PassStopped:
            # cancelled (or taken over) before the solve: nothing to keep, nothing was written
            return _with_db_retries(lambda: self._end_cancelled(job.id, attempt), self.settings.lease_s)
        status = _with_db_retries(
            lambda: self._finish(job.id, attempt, result.to_json(), weights, sha), self.settings.lease_s
        )
        return status or "stopped"

    def _end_cancelled(self, job_id: str, attempt: int) -> str:
        with self.sessions() as session:
            ended = repo.end_cancelled(session, job_id, attempt=attempt)
            session.commit()
        if not ended:
            log.info("job %s left `running` during its passes; storing nothing", job_id)
        return "cancelled" if ended else "stopped"

    def _finish(
        self, job_id: str, attempt: int, result: dict[str, Any], weights: bytes, sha: str
    ) -> str | None:
        with self.sessions() as session:
            status = repo.finish_job(session, job_id, result, weights, sha, attempt=attempt)
            session.commit()
        return status


def _resolve(requested: str) -> str:
    """The device this worker fits a job on ("auto" picks CUDA when there is one). A request it
    cannot honour stays as asked: building the algorithm then fails the job and says why."""
    try:
        return str(resolve_device(requested))
    except SalError:
        return requested


def _with_db_retries(store: Any, within_s: float) -> Any:
    """Retry ``store`` while the database is unreachable, for up to ``within_s`` (the lease):
    a finished fit is worth waiting for. After that the job stays running until the reaper
    re-queues it."""
    deadline = time.monotonic() + within_s
    delay = 0.2
    while True:
        try:
            return store()
        except (OperationalError, InterfaceError):
            if time.monotonic() + delay > deadline:
                raise
            log.warning("database unreachable while storing a result; retrying in %.1f s", delay)
            time.sleep(delay)
            delay = min(delay * 2, 5.0)


def _timed_out(exc: BaseException | None) -> bool:
    """Did Celery's soft time limit stop the job? Also where it fired inside code that wrapped it in
    another exception (an import under way: Python's ``__set_name__`` re-raises it as a RuntimeError)."""
    seen = 0
    while exc is not None and seen < 20:
        if isinstance(exc, SoftTimeLimitExceeded):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False
