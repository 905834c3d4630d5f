"""Model selection over a sweep's finished trials, and the leaderboard it produces.

Per algorithm, each candidate is scored by its selection error averaged over seeds (and, for
leave-one-environment-out, over folds first): the pooled validation error (MSE or log-loss) of
``train_env_validation`` and ``leave_one_env_out``, the worst held-out environment's error for
``train_env_worst`` (SAL's own ``lambda_="auto"`` criterion), or the test Mean_Error for ``oracle``. The
candidate with the lowest score is selected (ties: the first in the sweep's order) — one set of
hyper-parameters per algorithm, shown on the leaderboard. Only candidates whose every trial
succeeded with finite numbers compete. The selected candidate's reported jobs (one per seed) give
the test Mean_Error / Std_Error / worst environment and per-environment errors as mean ± std over
seeds (sample std, 0 for one seed). Algorithms are ranked by mean test Mean_Error.
"""

from __future__ import annotations

import json
import math
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.jobs.result import JobResult
from sal_core.metrics import error_of


@dataclass(frozen=True)
class TrialOutcome:
    """A finished trial as the selection sees it (built from a job row and its result)."""

    job_id: str
    algorithm: str
    params: dict[str, Any]  # resolved, as stored on the job
    seed: int
    fold: str | None  # the held-out environment of a leave-one-environment-out job
    status: str
    result: JobResult | None

    def __post_init__(self) -> None:
        if isinstance(self.result, Mapping):  # a stored document: read it as the typed result
            object.__setattr__(self, "result", JobResult.model_validate(self.result))


def params_key(params: Mapping[str, Any]) -> str:
    return json.dumps(params, sort_keys=True)


def mean_std(values: Sequence[float]) -> dict[str, float]:
    return {
        "mean": float(statistics.fmean(values)),
        "std": float(statistics.stdev(values)) if len(values) > 1 else 0.0,
    }


def _finite(x: Any) -> bool:
    return isinstance(x, int | float) and math.isfinite(x)


def _test_errors(result: JobResult) -> dict[str, float]:
    assert result.summary is not None
    metric = result.summary.metric
    return {e.name: error_of(e.metrics(), metric) for e in result.test_environments()}


def _selection_error(trial: TrialOutcome, selection: str) -> float | None:
    if trial.status != "succeeded" or trial.result is None:
        return None
    if selection == "oracle":
        summary = trial.result.summary
        value = None if summary is None else summary.mean_error
    else:
        block = trial.result.validation
        if block is None:
            value = None
        elif selection == "train_env_worst":
            value = block.worst_error
        else:
            value = block.error
    return float(value) if value is not None and _finite(value) else None


def _score(trials: Sequence[TrialOutcome], selection: str, seeds: Sequence[int]) -> float | None:
    """The candidate's selection score, or None unless every one of its trials gives one."""
    selecting = [t for t in trials if (t.fold is not None) == (selection == "leave_one_env_out")]
    per_seed: dict[int, list[float]] = {s: [] for s in seeds}
    for t in selecting:
        error = _selection_error(t, selection)
        if error is None:
            return None
        per_seed[t.seed].append(error)
    if any(not errors for errors in per_seed.values()):
        return None
    return float(statistics.fmean(statistics.fmean(e) for e in per_seed.values()))


def _reported(trials: Sequence[TrialOutcome], seeds: Sequence[int]) -> list[TrialOutcome] | None:
    """The candidate's reported job per seed (the one without a fold), all succeeded, or None."""
    by_seed = {t.seed: t for t in trials if t.fold is None}
    out = [by_seed.get(s) for s in seeds]
    if any(t is None or t.status != "succeeded" or t.result is None or t.result.summary is None for t in out):
        return None
    return out  # type: ignore[return-value]


def _average(maps: Sequence[Mapping[str, float] | None]) -> dict[str, float] | None:
    if not maps or any(m is None for m in maps):
        return None
    keys = list(maps[0])  # type: ignore[arg-type]
    return {k: float(statistics.fmean(m[k] for m in maps)) for k in keys}  # type: ignore[index]


def _entry(
    algorithm: str, params: dict[str, Any], score: float, reported: Sequence[TrialOutcome]
) -> dict[str, Any]:
    results = [t.result for t in reported if t.result is not None]
    summaries = [r.summary for r in results if r.summary is not None]
    per_env = [_test_errors(r) for r in results]
    envs = list(per_env[0])
    worst = Counter(s.worst_environment for s in summaries).most_common(1)[0][0]
    return {
        "algorithm": algorithm,
        "selected_params": params,
        "selection_score": score,
        "seeds": [t.seed for t in reported],
        "jobs": [t.job_id for t in reported],
        "metric": summaries[0].metric,
        "mean_error": mean_std([s.mean_error for s in summaries]),
        "std_error": mean_std([s.std_error for s in summaries]),
        "worst_error": mean_std([s.worst_error for s in summaries]),
        "worst_environment": worst,
        "environments": {e: mean_std([p[e] for p in per_env]) for e in envs},
        "coefficients": _average([r.coefficients for r in results]),
        "covariate_weights": _average([r.covariate_weights for r in results]),
    }


def leaderboard(
    *,
    selection: str,
    algorithms: Mapping[str, Sequence[Mapping[str, Any]]],
    seeds: Sequence[int],
    trials: Sequence[TrialOutcome],
) -> dict[str, Any]:
    """Select one candidate per algorithm and rank the algorithms (see the module docstring).

    ``algorithms`` is {name: [resolved candidate params]} in the sweep's order.
    """
    rows: list[dict[str, Any]] = []
    unselected: dict[str, str] = {}
    for name, points in algorithms.items():
        mine = [t for t in trials if t.algorithm == name]
        scored: list[dict[str, Any]] = []
        best: tuple[float, dict[str, Any], list[TrialOutcome]] | None = None
        for params in points:
            key = params_key(params)
            group = [t for t in mine if params_key(t.params) == key]
            score = _score(group, selection, seeds)
            reported = _reported(group, seeds) if score is not None else None
            usable = score is not None and reported is not None
            scored.append({"params": dict(params), "score": score if usable else None})
            if usable and (best is None or score < best[0]):  # type: ignore[operator]
                best = (score, dict(params), reported)  # type: ignore[assignment]
        if best is None:
            failed = sum(t.status != "succeeded" for t in mine)
            unselected[name] = (
                f"no candidate finished on every seed ({failed} of {len(mine)} trials did not succeed)"
            )
            continue
        row = _entry(name, best[1], best[0], best[2])
        searched = [k for k in best[1] if len({params_key({k: p.get(k)}) for p in points}) > 1]
        row["searched_params"] = {k: best[1][k] for k in searched}
        row["candidates"] = scored
        row["failed_trials"] = sum(t.status != "succeeded" for t in mine)
        rows.append(row)
    rows.sort(key=lambda r: r["mean_error"]["mean"])
    for rank, row in enumerate(rows, start=1):
        row["rank"] = rank
    oracle = selection == "oracle"
    return {
        "selection": selection,
        "oracle": oracle,
        "selection_metric": "test mean_error (oracle)" if oracle else "validation error (mse or log_loss)",
        "note": "oracle: hyper-parameters selected on test error, an upper bound, not a fair comparison"
        if oracle
        else None,
        "algorithms": rows,
        "unselected": unselected,
    }
