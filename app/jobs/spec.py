"""What a job asks for, checked before anything is stored; shared by the API and the worker.

``JobSpec`` is one job request whatever its source: a POST /jobs body (``from_create``), a stored
job run again (``from_row``) or a sweep's trial. Every check raises a sal_core error that names
the field, which the API renders as a 422.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sal_core import Algorithm, InvalidDataError, get_algorithm

if TYPE_CHECKING:
    from app.db.models import Job
    from app.jobs.schemas import JobCreate


@dataclass(frozen=True)
class JobSpec:
    """A job as asked for, before it is checked against its dataset and placed.

    ``test_environments`` None means every environment not trained on (or held out);
    ``dataset_sha256``, when set, is the content the dataset must still have (a rerun's)."""

    dataset_id: str | None
    algorithm: str
    task: str
    params: Mapping[str, Any]
    model: Mapping[str, Any]
    seed: int
    device: str
    train_environments: list[str]
    test_environments: list[str] | None
    validation: Mapping[str, Any] | None = None
    name: str | None = None
    tags: Sequence[str] = ()
    description: str | None = None
    rerun_of: str | None = None
    sweep_id: str | None = None
    dataset_sha256: str | None = None

    @classmethod
    def from_create(cls, body: JobCreate, dataset_environments: Sequence[Mapping[str, Any]]) -> JobSpec:
        """The request on its dataset (``dataset_environments``, whose labels decide a task not
        given: :func:`resolve_task`)."""
        return cls(
            dataset_id=body.dataset_id,
            algorithm=body.algorithm,
            task=resolve_task(body.task, dataset_environments),
            params=body.params,
            model=body.model.to_mapping(),
            seed=body.seed,
            device=body.device,
            train_environments=list(body.train_environments),
            test_environments=body.test_environments,
            validation=body.validation.model_dump(exclude_none=True) if body.validation else None,
            name=body.name,
            tags=body.tags,
            description=body.description,
        )

    @classmethod
    def from_row(cls, job: Job) -> JobSpec:
        """The stored job again, from its reproducibility record: resolved parameters, model,
        environments, validation, seed, requested device, and the dataset content it ran on."""
        return cls(
            dataset_id=job.dataset_id,
            algorithm=job.algorithm,
            task=job.task,
            params=job.params,
            model=job.model,
            seed=job.seed,
            device=job.device,
            train_environments=list(job.train_environments),
            test_environments=list(job.test_environments),
            validation=job.validation,
            name=job.name,
            tags=job.tags or [],
            description=job.description,
            rerun_of=job.id,
            dataset_sha256=job.dataset_sha256,
        )


def build_algorithm(
    algorithm: str, *, params: Mapping[str, Any], task: str, model: Mapping[str, Any], seed: int, device: str
) -> Algorithm:  # type: ignore[type-arg]
    cls = get_algorithm(algorithm)
    return cls(params, task=task, model=model, seed=seed, device=device)  # type: ignore[arg-type]


@dataclass(frozen=True)
class CheckedJob:
    params: dict[str, Any]
    model: dict[str, Any]
    test_environments: list[str]
    validation: dict[str, Any] | None = None


def check_validation(
    validation: Mapping[str, Any] | None, train_environments: Sequence[str], known: Sequence[str]
) -> dict[str, Any] | None:
    """``{"fraction": f}`` or ``{"environments": [...]}`` (see app.jobs.validation), or None."""
    if validation is None:
        return None
    fraction, names = validation.get("fraction"), validation.get("environments")
    if (fraction is None) == (names is None):
        raise InvalidDataError("give exactly one of fraction or environments", field="validation")
    if fraction is not None:
        if not 0.0 < float(fraction) <= 0.5:
            raise InvalidDataError(
                f"fraction must lie in (0, 0.5], got {fraction}", field="validation.fraction"
            )
        return {"fraction": float(fraction)}
    names = list(names or [])
    if not names or len(set(names)) != len(names):
        raise InvalidDataError("list at least one environment, each once", field="validation.environments")
    for i, name in enumerate(names):
        if name not in known:
            raise InvalidDataError(
                f"environment {name!r} is not in the dataset; it has {sorted(known)}",
                field=f"validation.environments[{i}]",
            )
        if name in train_environments:
            raise InvalidDataError(
                f"environment {name!r} is also trained on", field=f"validation.environments[{i}]"
            )
    return {"environments": names}


def resolve_task(task: str | None, dataset_environments: Sequence[Mapping[str, Any]]) -> str:
    """The task asked for, or where none was: classification when every environment's labels are 0
    or 1 (``dataset_environments``' "binary"), else regression."""
    if task is not None:
        return task
    binary = all(e.get("binary", False) for e in dataset_environments)
    return "classification" if dataset_environments and binary else "regression"


def check_both_labels(train_environments: Sequence[str], by_name: Mapping[str, Mapping[str, Any]]) -> None:
    """A classifier trained on rows of one label learns nothing of the other: refuse such a job
    (datasets stored before "n_ones" was recorded are checked by the algorithm when it fits)."""
    counted = [by_name[name] for name in train_environments]
    if not counted or any("n_ones" not in e for e in counted):
        return
    rows = sum(int(e["n_rows"]) for e in counted)
    ones = sum(int(e["n_ones"]) for e in counted)
    if ones in (0, rows):
        raise InvalidDataError(
            f"classification needs both labels among the training rows: all {rows} rows of "
            f"train_environments are labelled {0 if ones == 0 else 1}; add an environment that holds the "
            "other label",
            field="train_environments",
        )


def check_job(
    *,
    algorithm: str,
    params: Mapping[str, Any],
    task: str,
    model: Mapping[str, Any],
    seed: int,
    train_environments: Sequence[str],
    test_environments: Sequence[str] | None,
    dataset_environments: Sequence[Mapping[str, Any]],
    validation: Mapping[str, Any] | None = None,
) -> CheckedJob:
    """Validate a job against the registry and its dataset; returns params with defaults filled in.

    ``dataset_environments`` is the dataset's [{"name", "n_rows", "binary", "n_ones"}]. The device is
    resolved once, by the worker that runs the job, so it is not checked against this machine.
    """
    cls = get_algorithm(algorithm)
    config = cls.check_params(params, task=task, model=model, seed=seed)  # type: ignore[arg-type]
    by_name = {e["name"]: e for e in dataset_environments}
    for field, names in (
        ("train_environments", train_environments),
        ("test_environments", test_environments or []),
    ):
        if len(set(names)) != len(names):
            raise InvalidDataError("an environment is listed twice", field=field)
        for i, name in enumerate(names):
            if name not in by_name:
                raise InvalidDataError(
                    f"environment {name!r} is not in the dataset; it has {sorted(by_name)}",
                    field=f"{field}[{i}]",
                )
    checked_validation = check_validation(validation, train_environments, list(by_name))
    held_out = set(checked_validation.get("environments", [])) if checked_validation else set()
    if test_environments is None:
        test = [name for name in by_name if name not in set(train_environments) and name not in held_out]
    else:
        test = list(test_environments)
        overlap = sorted(set(test) & set(train_environments))
        if overlap:
            raise InvalidDataError(
                f"environments {overlap} are in both train and test", field="test_environments"
            )
        overlap = sorted(set(test) & held_out)
        if overlap:
            raise InvalidDataError(
                f"environments {overlap} are in both validation and test", field="test_environments"
            )
    needed = cls.min_environments
    if len(train_environments) < needed:
        raise InvalidDataError(
            f"{algorithm} needs at least {needed} training environments, got {len(train_environments)}",
            field="train_environments",
        )
    for i, name in enumerate(train_environments):
        if by_name[name]["n_rows"] < 2:
            raise InvalidDataError(
                f"environment {name!r} has {by_name[name]['n_rows']} row; a training environment needs at "
                "least 2 (each algorithm estimates an environment's loss from its own rows): leave it out "
                "of train_environments, or join it to another in the environment column",
                field=f"train_environments[{i}]",
            )
    if task == "classification":
        for field, names in (("train_environments", train_environments), ("test_environments", test)):
            for name in names:
                if not by_name[name].get("binary", False):
                    raise InvalidDataError(
                        f"classification needs labels 0 or 1; environment {name!r} has others", field=field
                    )
        check_both_labels(train_environments, by_name)
    return CheckedJob(
        params=config.params.to_dict(),
        model=config.model_spec.to_dict(),
        test_environments=test,
        validation=checked_validation,
    )
