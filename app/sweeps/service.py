"""Sweeps below the routes: resolve a request into candidates and trial jobs, commit then enqueue
them, and select the leaderboard once every trial is terminal.

The leaderboard is computed lazily: the first read (of the sweep or the list) that finds every
trial terminal selects, stores the leaderboard and marks the sweep finished, with a conditional
update so concurrent readers store it once. Workers need not know about sweeps.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from sqlalchemy.orm import Session

from app import sweeps
from app.db import erase
from app.db import repository as repo
from app.db import sweep_repository as sweep_repo
from app.db.models import Job, JobStatus, Sweep, SweepStatus
from app.errors import Conflict, NotFound, UnprocessableEntity
from app.jobs import budget
from app.jobs import service as jobs_service
from app.jobs.placement import place
from app.jobs.spec import JobSpec, check_job, resolve_task
from app.queue import JobQueue
from app.settings import Settings
from app.sweeps import plan as sweeps_plan
from app.sweeps.schemas import SweepCreate
from sal_core import SalError, get_algorithm


def _field(algorithm: str, field: str | None) -> str:
    if field is None:
        return f"algorithms.{algorithm}"
    return f"algorithms.{algorithm}.{field}" if field.startswith("params") else field


def _where(algorithm: str, search: dict[str, Any]) -> Callable[[str], str]:
    """The field of the request a trial's parameter came from, for its 422."""

    def field(param: str) -> str:
        for section, given in search.items():
            if isinstance(given, dict) and param in given:
                return f"algorithms.{algorithm}.{section}.{param}"
        return f"algorithms.{algorithm}.params.{param}"

    return field


def _resolve(
    body: SweepCreate, task: str, environments: list[dict[str, Any]], max_points: int, max_job_work: int
) -> tuple[dict[str, list[dict[str, Any]]], list[str], dict[str, Any]]:
    """Each algorithm's candidates with defaults filled in (checked like a job), the test
    environments and the model config."""
    resolved: dict[str, list[dict[str, Any]]] = {}
    test: list[str] = []
    model: dict[str, Any] = {}
    for name, search in body.algorithms.items():
        try:
            cls = get_algorithm(name)
        except SalError as exc:
            raise UnprocessableEntity.on(f"algorithms.{name}", exc.message) from None
        if body.selection == "leave_one_env_out" and len(body.train_environments) - 1 < cls.min_environments:
            raise UnprocessableEntity.on(
                "selection",
                f"leave_one_env_out trains {name} on {len(body.train_environments) - 1} environment(s); "
                f"it needs {cls.min_environments}: give more training environments or another selection",
            )
        try:
            points = sweeps.candidates(
                name,
                search.model_dump(exclude_none=True, mode="json"),
                body.search_seed,
                max_points=max_points,
            )
            checked_points: list[dict[str, Any]] = []
            for params in points:
                checked = check_job(
                    algorithm=name,
                    params=params,
                    task=task,
                    model=body.model.to_mapping(),
                    seed=body.seeds[0],
                    train_environments=body.train_environments,
                    test_environments=body.test_environments,
                    dataset_environments=environments,
                )
                test, model = checked.test_environments, checked.model
                budget.check_job(checked.params, max_job_work, _where(name, search.model_dump()))
                checked_points.append(checked.params)
        except SalError as exc:
            raise UnprocessableEntity.on(_field(name, exc.field), exc.message) from None
        resolved[name] = sweeps_plan.distinct(checked_points)
    if not test:
        raise UnprocessableEntity.on("test_environments", "the sweep needs at least one test environment")
    return resolved, test, model


def create_sweep(
    session: Session, queue: JobQueue, settings: Settings, tenant_id: str, body: SweepCreate
) -> tuple[Sweep, dict[str, int]]:
    """Expand the search into trials (ordinary jobs), commit, enqueue; the sweep and its trials
    counted by status (every one queued)."""
    dataset = repo.get_dataset(session, body.dataset_id, tenant_id=tenant_id)
    if dataset is None:
        raise UnprocessableEntity.on("dataset_id", f"no dataset {body.dataset_id}")
    task = resolve_task(body.task, dataset.environments)
    sweeps_plan.check_total(
        {name: search.model_dump(exclude_none=True, mode="json") for name, search in body.algorithms.items()},
        seeds=len(body.seeds),
        n_train=len(body.train_environments),
        selection=body.selection,
        limit=settings.max_sweep_jobs,
    )
    algorithms, test, model = _resolve(
        body, task, dataset.environments, settings.max_sweep_jobs, settings.max_job_work
    )
    trials = sweeps.plan_trials(
        algorithms=algorithms,
        seeds=body.seeds,
        train_environments=body.train_environments,
        selection=body.selection,
        validation_fraction=body.validation_fraction,
    )
    if len(trials) > settings.max_sweep_jobs:
        raise UnprocessableEntity.on(
            "algorithms", f"the sweep would create {len(trials)} jobs; the limit is {settings.max_sweep_jobs}"
        )
    sweep = Sweep(
        id=str(uuid.uuid4()),
        tenant_id=tenant_id,
        dataset_id=dataset.id,
        status=SweepStatus.RUNNING,
        selection=body.selection,
        n_jobs=len(trials),
        spec={
            "task": task,
            "train_environments": body.train_environments,
            "test_environments": test,
            "seeds": body.seeds,
            "validation_fraction": body.validation_fraction,
            "search_seed": body.search_seed,
            "model": model,
            "device": body.device,
            "algorithms": algorithms,
        },
    )
    # One placement per algorithm: the trials of one algorithm share the data and the model.
    placements = {
        name: place(
            settings,
            dataset,
            requested=body.device,
            algorithm=name,
            model=model,
            train_environments=body.train_environments,
        )
        for name in {t.algorithm for t in trials}
    }
    jobs = [
        jobs_service.new_job(
            tenant_id=tenant_id,
            dataset=dataset,
            placement=placements[t.algorithm],
            spec=JobSpec(
                dataset_id=dataset.id,
                algorithm=t.algorithm,
                task=task,
                params=t.params,
                model=model,
                seed=t.seed,
                device=body.device,
                train_environments=t.train_environments,
                test_environments=test,
                validation=t.validation,
                sweep_id=sweep.id,
            ),
        )
        for t in trials
    ]
    jobs_service.check_quota(session, settings, tenant_id, sweep_trials=len(jobs))
    sweep_repo.add_sweep(session, sweep, jobs)
    jobs_service.commit_and_enqueue(session, queue, jobs)
    return sweep, {**dict.fromkeys(sweep_repo.STATUSES, 0), "queued": len(jobs)}


def get_sweep(session: Session, sweep_id: str, tenant_id: str) -> tuple[Sweep, dict[str, int]]:
    """The tenant's sweep, refreshed, with its trials counted by status; 404 when missing."""
    sweep = sweep_repo.get_sweep(session, sweep_id, tenant_id=tenant_id)
    if sweep is None:
        raise NotFound(f"no sweep {sweep_id}")
    counts = sweep_repo.progress(session, [sweep.id])[sweep.id]
    refresh(session, sweep, counts)
    return sweep, counts


def list_sweeps(
    session: Session, tenant_id: str, limit: int, cursor: str | None
) -> tuple[list[tuple[Sweep, dict[str, int]]], str | None]:
    """A page of the tenant's sweeps, newest first, with their trials counted by status (one
    query). Read only: a sweep is refreshed, and its leaderboard selected, when it is read by id,
    so a list never commits. 422 for a bad cursor."""
    try:
        page = sweep_repo.list_sweeps(session, tenant_id=tenant_id, limit=limit, cursor=cursor)
    except repo.InvalidCursor as exc:
        raise UnprocessableEntity.on("cursor", str(exc)) from None
    counts = sweep_repo.progress(session, [s.id for s in page.items])
    return [(s, counts[s.id]) for s in page.items], page.next_cursor


def cancel_sweep(session: Session, sweep_id: str, tenant_id: str) -> tuple[Sweep, dict[str, int]]:
    """Cancel the sweep and every trial not yet finished; 409 unless it is running (or already
    cancelled)."""
    sweep = sweep_repo.get_sweep(session, sweep_id, tenant_id=tenant_id)
    if sweep is None:
        raise NotFound(f"no sweep {sweep_id}")
    if not sweep_repo.cancel(session, sweep_id):
        session.rollback()
        if sweep.status != SweepStatus.CANCELLED:
            raise Conflict(f"sweep {sweep_id} is {sweep.status}; only a running sweep can be cancelled")
    session.commit()
    session.expire_all()
    return get_sweep(session, sweep_id, tenant_id)


def delete_sweep(session: Session, sweep_id: str, tenant_id: str) -> dict[str, int]:
    """Delete the sweep, its trials with their results, and the idempotency records pointing at
    them; commit. 409 while trials are queued or running (cancel the sweep first)."""
    sweep = sweep_repo.get_sweep(session, sweep_id, tenant_id=tenant_id)
    if sweep is None:
        raise NotFound(f"no sweep {sweep_id}")
    active = erase.active_jobs(session, Job.sweep_id == sweep_id)
    if active:
        raise Conflict(
            f"{active} trial(s) are queued or running; cancel the sweep first (POST /sweeps/{sweep_id}/cancel)"
        )
    counts = erase.delete_sweep(session, sweep)
    session.commit()
    return counts


def _outcomes(session: Session, sweep: Sweep) -> list[sweeps.TrialOutcome]:
    jobs = sweep_repo.trials(session, sweep.id)
    results = jobs_service.stored_results(session, [j.id for j in jobs if j.status == JobStatus.SUCCEEDED])
    loeo = sweep.selection == "leave_one_env_out"
    return [
        sweeps.TrialOutcome(
            job_id=j.id,
            algorithm=j.algorithm,
            params=j.params,
            seed=j.seed,
            fold=(j.validation or {}).get("environments", [None])[0] if loeo else None,
            status=j.status,
            result=results.get(j.id),
        )
        for j in jobs
    ]


def refresh(session: Session, sweep: Sweep, counts: dict[str, int]) -> None:
    """Select and store the leaderboard once every trial is terminal (see the module docstring)."""
    if sweep.status != SweepStatus.RUNNING or counts["queued"] + counts["running"] > 0:
        return
    board = sweeps.leaderboard(
        selection=sweep.selection,
        algorithms=sweep.spec["algorithms"],
        seeds=sweep.spec["seeds"],
        trials=_outcomes(session, sweep),
    )
    status = SweepStatus.SUCCEEDED if board["algorithms"] else SweepStatus.FAILED
    sweep_repo.finish(session, sweep.id, status, board)
    session.commit()
    session.refresh(sweep)
