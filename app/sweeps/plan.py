"""Expand a sweep request into trials: candidates per algorithm × seeds (× folds).

Selection policies and the jobs they need, per (algorithm, candidate, seed):

* ``train_env_validation``: one job holding out a seeded ``validation_fraction`` of every training
  environment's rows; selected on that validation error, reported on the same model (no refit).
* ``train_env_worst``: the same jobs, selected on the worst held-out environment's error (the
  criterion SAL's ``lambda_="auto"`` uses inside a job: robust to a shift the pooled error averages away).
* ``leave_one_env_out``: one job per training environment, trained on the others and validated on
  it (selection: the mean over folds), plus one job on all training environments (reported).
* ``oracle``: one job on all training environments, selected on its *test* Mean_Error. This peeks
  at the test environments; it is an upper bound, labelled ``oracle`` wherever it shows.
"""

from __future__ import annotations

import itertools
import json
import math
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sal_core import InvalidParameterError, SalError, get_algorithm

SELECTIONS = ("train_env_validation", "train_env_worst", "leave_one_env_out", "oracle")


@dataclass(frozen=True)
class Candidate:
    """One point of an algorithm's search: the parameters a trial asks for (before defaults)."""

    algorithm: str
    params: dict[str, Any]


@dataclass(frozen=True)
class TrialSpec:
    """One job of a sweep. ``validation`` is the job's validation block (see app.jobs.validation);
    ``fold`` the held-out environment of a leave-one-environment-out job."""

    algorithm: str
    params: dict[str, Any]
    seed: int
    train_environments: list[str]
    validation: dict[str, Any] | None = None
    fold: str | None = None


def _sample(spec: Any, rng: np.random.Generator, where: str) -> Any:
    """One draw: a list is a choice; {"low", "high", "log", "integer"} a (log-)uniform range."""
    if isinstance(spec, list | tuple):
        if not spec:
            raise InvalidParameterError("list at least one value", field=where)
        return spec[int(rng.integers(len(spec)))]
    low, high = float(spec["low"]), float(spec["high"])
    if not low <= high:
        raise InvalidParameterError(f"low ({low}) must not exceed high ({high})", field=where)
    if spec.get("log"):
        if low <= 0:
            raise InvalidParameterError("a log range needs low > 0", field=where)
        value = math.exp(rng.uniform(math.log(low), math.log(high)))
    else:
        value = rng.uniform(low, high)
    return round(value) if spec.get("integer") else float(value)


def _product(space: Mapping[str, Sequence[Any]]) -> list[dict[str, Any]]:
    keys = sorted(space)
    return [dict(zip(keys, values, strict=True)) for values in itertools.product(*(space[k] for k in keys))]


def candidates(
    algorithm: str, search: Mapping[str, Any], search_seed: int = 0, max_points: int = 100_000
) -> list[dict[str, Any]]:
    """The parameter points an algorithm's trials ask for, in a stable order, without repeats.

    ``search`` is ``{"grid": {name: [values]}}``, ``{"random": {name: [values] | range},
    "n_trials": n}`` (``"random": {}`` samples the default grid), or ``{}`` for the default grid
    from sal_core (``params_type.search_space()``); ``"params"`` are fixed in every point. A grid
    of more than ``max_points`` points is refused before it is built.
    """
    where = f"algorithms.{algorithm}"
    default_space = get_algorithm(algorithm).params_type.search_space()
    fixed = dict(search.get("params") or {})
    grid, random, n_trials = search.get("grid"), search.get("random"), search.get("n_trials")
    if grid is not None and random is not None:
        raise InvalidParameterError("give grid or random, not both", field=where)
    if random is None and n_trials is not None:
        raise InvalidParameterError("n_trials goes with random search", field=f"{where}.n_trials")
    if random is not None:
        if n_trials is None:
            raise InvalidParameterError("random search needs n_trials", field=f"{where}.n_trials")
        rng = np.random.default_rng([search_seed, zlib.crc32(algorithm.encode())])
        if random:
            points = [
                {k: _sample(random[k], rng, f"{where}.random.{k}") for k in sorted(random)}
                for _ in range(n_trials)
            ]
        else:
            pool = _product({k: v for k, v in default_space.items() if k not in fixed})
            points = [
                pool[i] for i in sorted(rng.choice(len(pool), size=min(n_trials, len(pool)), replace=False))
            ]
    else:
        space = default_space if grid is None else grid
        for k, values in space.items():
            if not values:
                raise InvalidParameterError("list at least one value", field=f"{where}.grid.{k}")
        size = math.prod(len(v) for k, v in space.items() if k not in fixed)
        if size > max_points:
            raise InvalidParameterError(
                f"the grid has {size} points; at most {max_points}", field=f"{where}.grid"
            )
        points = _product({k: list(v) for k, v in space.items() if k not in fixed})
    return distinct({**fixed, **point} for point in points or [{}])


def _key(value: Any) -> str:
    """One string per JSON value, equal for equal values (key order aside)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def distinct(points: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """``points`` without repeats, first occurrence kept, in one pass (not a list scan per point)."""
    seen: set[str] = set()
    out: list[dict[str, Any]] = []
    for point in points:
        key = _key(point)
        if key not in seen:
            seen.add(key)
            out.append(point)
    return out


def point_count(algorithm: str, search: Mapping[str, Any]) -> int:
    """How many candidates :func:`candidates` returns at most, from the request alone (no point
    built): a grid's distinct values multiplied, or ``n_trials``."""
    fixed = search.get("params") or {}
    random, n_trials = search.get("random"), search.get("n_trials")
    if random is not None and isinstance(n_trials, int):
        return max(n_trials, 1)
    space = search.get("grid")
    if space is None:
        space = get_algorithm(algorithm).params_type.search_space()
    sizes = [len({_key(v) for v in values}) for k, values in space.items() if k not in fixed]
    return max(math.prod(sizes), 1)


def trials_per_point(selection: str, n_train: int) -> int:
    """Jobs one (candidate, seed) needs under ``selection`` (see the module docstring)."""
    return n_train + 1 if selection == "leave_one_env_out" else 1


def check_total(
    searches: Mapping[str, Mapping[str, Any]], *, seeds: int, n_train: int, selection: str, limit: int
) -> int:
    """The most jobs the sweep would create, computed before any point is built; a
    :class:`InvalidParameterError` on ``algorithms`` above ``limit``."""
    per_point = trials_per_point(selection, n_train) * seeds
    total = 0
    for name, search in searches.items():
        try:
            get_algorithm(name)
        except SalError:
            continue  # an unknown algorithm is named by the checks that follow
        total += point_count(name, search) * per_point
        if total > limit:
            raise InvalidParameterError(
                f"the sweep would create {total} or more jobs; the limit is {limit} (max_sweep_jobs)",
                field="algorithms",
            )
    return total


def plan_trials(
    *,
    algorithms: Mapping[str, Sequence[Mapping[str, Any]]],
    seeds: Sequence[int],
    train_environments: Sequence[str],
    selection: str,
    validation_fraction: float,
) -> list[TrialSpec]:
    """Every job of the sweep, for ``algorithms`` {name: [candidate params]}."""
    if selection not in SELECTIONS:
        raise InvalidParameterError(f"selection must be one of {list(SELECTIONS)}", field="selection")
    train = list(train_environments)
    trials: list[TrialSpec] = []
    for name, points in algorithms.items():
        for params, seed in itertools.product(points, seeds):
            if selection in ("train_env_validation", "train_env_worst"):
                trials.append(TrialSpec(name, dict(params), seed, train, {"fraction": validation_fraction}))
                continue
            if selection == "leave_one_env_out":
                for held in train:
                    rest = [e for e in train if e != held]
                    trials.append(
                        TrialSpec(name, dict(params), seed, rest, {"environments": [held]}, fold=held)
                    )
            trials.append(TrialSpec(name, dict(params), seed, train))
    return trials
