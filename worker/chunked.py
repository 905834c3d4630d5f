"""A job fitted chunk by chunk (issue 19): its dataset's row groups read in parts by chunk tasks
on any worker that consumes ``chunk_queue``, their sums reduced here, the solve run once
(:mod:`app.datasets.outofcore`; an MLP's from minibatches, :mod:`app.datasets.outofcore_network`).
The job's result and weights have the in-memory fit's form.

A job takes this path when its dataset is in an object store with at least
``chunked_fit_min_rows`` rows (0: never) and its fit is one that runs from moments or, for an MLP,
from minibatches streamed from the row groups (:func:`outofcore.supports`,
:func:`outofcore_network.fit_network`); otherwise the runner loads the table as before.

A cancel is seen as the in-memory fit sees it, in the rounds (the progress writer), and also
between the passes and before each part the job's worker computes (:class:`CancelCheck`, the
job's row read at most every ``progress_min_interval_s``): a pass before the solve then stops
with :class:`fanout.PassStopped`, the run's scratch objects are removed, and the runner ends the
job ``cancelled`` with no result. Once a model is there (its rounds ended, or were stopped) the
last pass scores it whole and the job keeps it, as a cancelled in-memory fit keeps its own.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from app.datasets import chunks, fanout, outofcore, outofcore_network
from app.db import repository as repo
from app.db.models import Dataset, Job, JobStatus
from app.jobs import artifacts
from app.jobs.result import (
    CertificatePublic,
    EnvironmentResult,
    JobResult,
    ReferenceComparison,
    RoundResult,
    Selection,
    Summary,
    thin_history,
)
from app.settings import Settings
from app.storage import ObjectStore, open_store
from sal_core.fitted import FittedModel
from sal_core.history import Round
from sal_core.metrics import error_of, summarize, summary_metric
from sal_core.models import ModelSpec
from sal_core.optim import set_linear

__all__ = ["CHUNK_PART", "CancelCheck", "ChunkedJob", "plan", "run"]

log = logging.getLogger(__name__)

CHUNK_PART = "sal.chunk_part"


@dataclass(frozen=True)
class ChunkedJob:
    store: ObjectStore
    storage: str
    key: str
    n_groups: int
    data: outofcore.ChunkedData
    rows: dict[str, int]  # per environment


class CancelCheck:
    """``stop`` for the passes: True once the job is no longer this attempt's ``running`` job or
    a cancel was requested (what :func:`repo.report_progress` refuses on), read from the job's row
    at most every ``min_interval_s`` (``run_pass`` asks at every step of its polling). A read
    that fails because the database is briefly away answers False: the fit goes on."""

    def __init__(
        self,
        sessions: sessionmaker[Session],
        job_id: str,
        attempt: int,
        min_interval_s: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._sessions = sessions
        self._job_id = job_id
        self._attempt = attempt
        self._min_interval_s = min_interval_s
        self._clock = clock
        self._last: float | None = None
        self.stopped = False

    def __call__(self) -> bool:
        now = self._clock()
        if self.stopped or (self._last is not None and now - self._last < self._min_interval_s):
            return self.stopped
        self._last = now
        try:
            with self._sessions() as session:
                state = repo.job_states(session, [self._job_id]).get(self._job_id)
        except (OperationalError, InterfaceError) as exc:
            log.warning("cancel check of job %s skipped: %s", self._job_id, exc)
            return False
        self.stopped = state is None or (state[0], state[3], state[4]) != (
            JobStatus.RUNNING,
            self._attempt,
            False,
        )
        return self.stopped


def plan(job: Job, dataset: Dataset, settings: Settings) -> ChunkedJob | None:
    """The job's chunked plan, or None when it runs in memory."""
    if settings.chunked_fit_min_rows <= 0 or dataset.n_rows < settings.chunked_fit_min_rows:
        return None
    if dataset.storage is None or dataset.storage_key is None or job.validation is not None:
        return None
    why = outofcore.supports(job.algorithm, job.task, job.model, dict(job.params or {}))
    if why is not None:
        log.info("job %s runs in memory: %s", job.id, why)
        return None
    store = open_store(settings, dataset.storage)
    data = outofcore.ChunkedData(
        environments=tuple(e["name"] for e in dataset.environments),
        feature_names=tuple(dataset.feature_names),
        train=tuple(job.train_environments),
        test=tuple(job.test_environments),
    )
    rows = {e["name"]: int(e["n_rows"]) for e in dataset.environments}
    n_groups = chunks.n_chunks(store, dataset.storage_key)
    return ChunkedJob(store, dataset.storage, dataset.storage_key, n_groups, data, rows)


def run(
    job: Job,
    attempt: int,
    target: str,
    plan_: ChunkedJob,
    settings: Settings,
    send: Callable[[fanout.Part], None] | None,
    progress: Callable[[int, dict[str, Any]], bool] | None = None,
    stop: Callable[[], bool] = lambda: False,
) -> tuple[JobResult, bytes, str, bool]:
    """Fit the job chunk by chunk: (result, weights, their sha256, stopped). ``stop`` is asked
    between the passes and their parts (a :class:`CancelCheck`); True before the model is solved
    raises :class:`fanout.PassStopped`, with the run's scratch objects removed."""
    started = time.perf_counter()
    d = plan_.data
    run_id = f"{job.id}-{attempt}"  # a later attempt starts afresh (this one's run may be closed)

    def run_pass(what: fanout.Pass) -> fanout.Arrays:
        parts = fanout.plan_parts(
            plan_.n_groups, settings.chunk_groups_per_task, run_id, what, storage=plan_.storage,
            key=plan_.key, environments=d.environments, feature_names=d.feature_names, target=target,
        )  # fmt: skip
        results = fanout.run_pass(
            plan_.store, parts, send, stall_s=settings.chunk_stall_s, stop=stop if what.stoppable else _never
        )
        return fanout.reduce_parts(results, what.name)

    params, network = dict(job.params or {}), bool(job.model and job.model.get("kind", "linear") != "linear")
    try:
        if network:
            read_group = outofcore_network.group_reader(plan_.store, plan_.key, d, target)
            fit: outofcore.LinearFit | outofcore_network.NetworkFit = outofcore_network.fit_network(
                d, job.algorithm, params, dict(job.model or {}), run_pass,
                outofcore_network.train_reader(read_group, d, stop), plan_.n_groups,
                seed=int(job.seed), progress=progress,
            )  # fmt: skip
        else:
            fit = outofcore.fit_linear(
                d, job.algorithm, params, run_pass, seed=int(job.seed), progress=progress
            )
    finally:
        fanout.clean(plan_.store, run_id)
    log.info("chunked fit of job %s: %d row groups, passes %s", job.id, plan_.n_groups, fit.passes)
    names = d.feature_names
    if isinstance(fit, outofcore_network.NetworkFit):
        fitted, coefficients, intercept = fit.model, None, None
    else:
        model = ModelSpec().build(len(names)).double()
        set_linear(model, torch.as_tensor(fit.theta), torch.as_tensor(fit.bias, dtype=torch.float64))
        state = {k: v.detach().to("cpu", torch.float64).clone() for k, v in model.state_dict().items()}
        fitted = FittedModel("regression", ModelSpec(), names, fit.standardizer, state, fit.w)
        coefficients = {n: float(v) for n, v in zip(names, fit.coef, strict=True)}
        intercept = float(fit.intercept)
    weights = artifacts.pack(fitted, {"job_id": job.id, "algorithm": job.algorithm})
    n_rows = plan_.rows
    environments = [
        EnvironmentResult.model_validate({"name": n, "split": split, "n_rows": n_rows[n], **fit.metrics[n]})
        for split, group in (("train", d.train), ("test", d.test))
        for n in group
    ]
    summary = None
    if d.test:
        metric = summary_metric("regression")
        s = summarize({n: error_of(fit.metrics[n], metric) for n in d.test}, metric)
        summary = Summary(
            metric=s.metric, mean_error=s.mean_error, std_error=s.std_error,
            worst_error=s.worst_error, worst_environment=s.worst_environment,
        )  # fmt: skip
    rounds = [Round(**r) for r in fit.rounds]
    result = JobResult(
        environments=environments,
        summary=summary,
        coefficients=coefficients,
        intercept=intercept,
        covariate_weights=None if fit.w is None else {n: float(v) for n, v in zip(names, fit.w, strict=True)},
        history=[RoundResult.of(r) for r in thin_history(rounds)],
        certificate=None
        if fit.certificate is None
        else CertificatePublic(rho_hat=fit.certificate[0], worst_case_risk=fit.certificate[1]),
        duration_s=time.perf_counter() - started,
        validation=None,
        selection=None if fit.selection is None else Selection.model_validate(fit.selection.to_dict()),
        reference=_reference(fit),
    )
    return result, weights, hashlib.sha256(weights).hexdigest(), fit.stopped


def _reference(fit: outofcore.LinearFit | outofcore_network.NetworkFit) -> ReferenceComparison | None:
    """The in-memory result's ``reference`` (worker.runner.reference_comparison) from the metrics
    pass: ERM from the same moments, scored on the same test rows; None for networks."""
    ref = getattr(fit, "reference", None)
    return None if ref is None else ReferenceComparison.of(ref)


def _never() -> bool:
    return False


def coefficients_close(a: np.ndarray, b: np.ndarray) -> float:
    """Largest relative difference (tests and bench.scale compare fits with it)."""
    return float(np.max(np.abs(a - b)) / max(float(np.max(np.abs(b))), 1e-300))
