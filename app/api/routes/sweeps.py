"""POST/GET /sweeps: hyper-parameter sweeps whose trials are ordinary jobs, with model selection.

The leaderboard is computed lazily: the first GET (of the sweep or the list) that finds every trial
terminal selects, stores the leaderboard and marks the sweep finished, with a conditional update so
concurrent readers store it once. Workers need not know about sweeps.
"""

from __future__ import annotations

import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Query, Response
from sqlalchemy.orm import Session

from app import jobspec, sweeps
from app.api.deps import PrincipalDep, QueueDep, SessionDep, SettingsDep
from app.api.enqueue import commit_and_enqueue
from app.api.errors import Conflict, NotFound, UnprocessableEntity, responses
from app.api.sweep_schemas import SweepCreate, SweepPublic, SweepsPublic
from app.db import repository as repo
from app.db import sweep_repository as sweep_repo
from app.db.models import Job, JobStatus, Sweep, SweepStatus, utcnow
from sal_core import SalError, get_algorithm

router = APIRouter(prefix="/sweeps", tags=["sweeps"])


def _field(algorithm: str, field: str | None) -> str:
    if field is None:
        return f"algorithms.{algorithm}"
    return f"algorithms.{algorithm}.{field}" if field.startswith("params") else field


def _resolve(
    body: SweepCreate, environments: list[dict[str, Any]], max_points: int
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
            out: list[dict[str, Any]] = []
            for params in points:
                checked = jobspec.check_job(
                    algorithm=name,
                    params=params,
                    task=body.task,
                    model=body.model.to_mapping(),
                    seed=body.seeds[0],
                    train_environments=body.train_environments,
                    test_environments=body.test_environments,
                    dataset_environments=environments,
                )
                test, model = checked.test_environments, checked.model
                if checked.params not in out:
                    out.append(checked.params)
        except SalError as exc:
            raise UnprocessableEntity.on(_field(name, exc.field), exc.message) from None
        resolved[name] = out
    if not test:
        raise UnprocessableEntity.on("test_environments", "the sweep needs at least one test environment")
    return resolved, test, model


@router.post(
    "",
    operation_id="create_sweep",
    status_code=202,
    response_model=SweepPublic,
    responses=responses(401, 422, 503),
)
def create_sweep(
    body: SweepCreate,
    response: Response,
    session: SessionDep,
    queue: QueueDep,
    settings: SettingsDep,
    principal: PrincipalDep,
) -> SweepPublic:
    """Expand the search into trials (ordinary jobs, queued for every worker) and return the sweep;
    poll GET /sweeps/{id} for progress and, once every trial is finished, the leaderboard.

    A sweep is bounded by ``max_sweep_jobs``, not by the per-tenant cap on active jobs (a grid
    over five seeds would rarely fit it); its queued trials do count toward that cap for POST /jobs."""
    tenant = principal.tenant_id
    dataset = repo.get_dataset(session, body.dataset_id, tenant_id=tenant)
    if dataset is None:
        raise UnprocessableEntity.on("dataset_id", f"no dataset {body.dataset_id}")
    algorithms, test, model = _resolve(body, dataset.environments, settings.max_sweep_jobs)
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
        tenant_id=tenant,
        dataset_id=dataset.id,
        status=SweepStatus.RUNNING,
        selection=body.selection,
        n_jobs=len(trials),
        spec={
            "task": body.task,
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
    now = utcnow()
    jobs = [
        Job(
            id=str(uuid.uuid4()),
            tenant_id=tenant,
            dataset_id=dataset.id,
            status=JobStatus.QUEUED,
            algorithm=t.algorithm,
            task=body.task,
            params=t.params,
            model=model,
            seed=t.seed,
            device=body.device,
            queue=queue.queue_for(body.device),
            train_environments=t.train_environments,
            test_environments=test,
            progress_step=0,
            validation=t.validation,
            dataset_sha256=dataset.sha256,
            sweep_id=sweep.id,
            enqueued_at=now,
            attempts=[],
        )
        for t in trials
    ]
    sweep_repo.add_sweep(session, sweep, jobs)
    commit_and_enqueue(session, queue, jobs)
    response.headers["Location"] = f"/sweeps/{sweep.id}"
    return to_public(sweep, {**dict.fromkeys(sweep_repo.STATUSES, 0), "queued": len(jobs)})


def _outcomes(session: Session, sweep: Sweep) -> list[sweeps.TrialOutcome]:
    jobs = sweep_repo.trials(session, sweep.id)
    results = repo.get_results(session, [j.id for j in jobs if j.status == JobStatus.SUCCEEDED])
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


def to_public(sweep: Sweep, counts: dict[str, int]) -> SweepPublic:
    spec = sweep.spec
    done = counts["succeeded"] + counts["failed"] + counts["cancelled"]
    return SweepPublic.model_validate(
        {
            "id": sweep.id,
            "status": sweep.status,
            "selection": sweep.selection,
            "oracle": sweep.selection == "oracle",
            "dataset_id": sweep.dataset_id,
            "task": spec["task"],
            "train_environments": spec["train_environments"],
            "test_environments": spec["test_environments"],
            "seeds": spec["seeds"],
            "algorithms": spec["algorithms"],
            "progress": {**counts, "total": sweep.n_jobs, "done": done},
            "leaderboard": sweep.leaderboard,
            "created_at": sweep.created_at,
            "finished_at": sweep.finished_at,
        }
    )


def load(session: Session, sweep_id: str, tenant_id: str) -> SweepPublic:
    sweep = sweep_repo.get_sweep(session, sweep_id, tenant_id=tenant_id)
    if sweep is None:
        raise NotFound(f"no sweep {sweep_id}")
    counts = sweep_repo.progress(session, [sweep.id])[sweep.id]
    refresh(session, sweep, counts)
    return to_public(sweep, counts)


@router.get("", operation_id="list_sweeps", response_model=SweepsPublic, responses=responses(422))
def list_sweeps(
    session: SessionDep,
    principal: PrincipalDep,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    cursor: Annotated[str | None, Query(description="next_cursor of the previous page")] = None,
) -> SweepsPublic:
    """Newest first."""
    try:
        page = sweep_repo.list_sweeps(session, tenant_id=principal.tenant_id, limit=limit, cursor=cursor)
    except repo.InvalidCursor as exc:
        raise UnprocessableEntity.on("cursor", str(exc)) from None
    counts = sweep_repo.progress(session, [s.id for s in page.items])
    for sweep in page.items:
        refresh(session, sweep, counts[sweep.id])
    return SweepsPublic(items=[to_public(s, counts[s.id]) for s in page.items], next_cursor=page.next_cursor)


@router.get("/{sweep_id}", operation_id="get_sweep", response_model=SweepPublic, responses=responses(404))
def get_sweep(sweep_id: str, session: SessionDep, principal: PrincipalDep) -> SweepPublic:
    """Progress; once every trial is finished, the leaderboard (``oracle`` marks test-set selection)."""
    return load(session, sweep_id, principal.tenant_id)


@router.post(
    "/{sweep_id}/cancel",
    operation_id="cancel_sweep",
    response_model=SweepPublic,
    responses=responses(404, 409),
)
def cancel_sweep(sweep_id: str, session: SessionDep, principal: PrincipalDep) -> SweepPublic:
    """Cancel the sweep and every trial not yet finished (a running trial stops at its next
    checkpoint). A finished sweep cannot be cancelled (409)."""
    sweep = sweep_repo.get_sweep(session, sweep_id, tenant_id=principal.tenant_id)
    if sweep is None:
        raise NotFound(f"no sweep {sweep_id}")
    if not sweep_repo.cancel(session, sweep_id):
        session.rollback()
        if sweep.status != SweepStatus.CANCELLED:
            raise Conflict(f"sweep {sweep_id} is {sweep.status}; only a running sweep can be cancelled")
    session.commit()
    session.expire_all()
    return load(session, sweep_id, principal.tenant_id)
