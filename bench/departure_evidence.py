"""Does SAL's own w tell when leaving ERM will carry to new environments? Offline, over records.

    python -m bench.real_scoreboard run dev.jsonl --seeds dev --jobs 2 --only <the regression tables>
    python -m bench.departure_evidence report dev.jsonl [unseen.jsonl ...] [--anti-causal 100-139]

Reads every unit where ``lambda_="auto"`` left ERM for a robust candidate and SAL's w was recorded
with its range over the fold fits (the exact path: linear regression), and bins SAL/ERM at test by
three readings of that w, one of ERM's fit and one of the slopes test's:

- **agreement**: the covariates the data determine (pooled |t| ≥ 2) split at the widest gap in the
  refit's log w; log₁₀ of the smallest fold-fit w above the gap over the largest below it. Positive
  where every fold fit puts every covariate on the same side: w says the same thing on every fold.
- **gap**: that widest gap, in decades of w.
- **partial slopes test**: Chow's F restricted to the covariates SAL lets the adversary move most
  (w < 10): each training environment its own slopes for those covariates only, shared slopes for
  the rest, an intercept per environment. Small p: the data confirm that how y depends on the
  covariates SAL treats as unstable differs between the training environments.
- **calibration slopes test**: ERM's out-of-fold predictions (pooled least squares, five folds per
  training environment), and within each environment the slope of y on them; Chow's F for one slope
  across the environments. Small p: ERM's predictions are not equally reliable in every training
  environment, the one direction of the slopes' difference that decides ERM's worst environment.
- **how much the slopes differ**: the effect size beside Chow's p that the selection's own slopes
  test reads (``SlopesTest.excess``, recorded with each unit): the share of ERM's
  residual sum of squares that environment-specific slopes remove beyond chance, (F − 1)·df1/df2.
  A large table's test rejects at differences too small to matter; this says how large they are.

The anti-causal scenarios' departures (``--anti-causal`` seeds of Scenarios 1 and 2) are fitted here
and binned the same way: the shift SAL is built for, against which any rule read off these bins
must be weighed. Prints one table per reading: units, the geometric mean of SAL/ERM, and how many
units are more than 5% above and 1% above and below ERM.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from bench.common import set_threads
from bench.path_robustness import parse_seeds
from bench.real_dev import mean_error
from sal_core import Environment, get_algorithm
from sal_core.homogeneity import f_survival, slopes_test_of

Record = dict[str, Any]
UNSTABLE_BELOW = 10.0
"""The partial slopes test reads the covariates with w below this (w ≥ 1, min w = 1)."""


@dataclass(frozen=True)
class Reading:
    """What one departure's w says: see the module docstring."""

    ratio: float  # SAL / ERM at test
    agreement: float | None
    gap: float | None
    partial_p: float | None
    lead: float  # (ERM's out-of-fold score − the chosen candidate's) / ERM's
    calibration_p: float | None = None
    slopes_excess: float | None = None


def departed(record: Record) -> bool:
    chosen = record["candidates"][record["chosen"]]
    return (
        chosen["relative"] is not None
        and record.get("w") is not None
        and "low" in (record.get("w_evidence") or {})  # the exact path's fold range, not an MLP's seeded w
    )


def split_at_widest_gap(
    w: Sequence[float], determined: Sequence[bool]
) -> tuple[list[int], list[int], float] | None:
    """(below, above, gap in decades) of the determined covariates' w; None with fewer than two."""
    idx = [j for j in range(len(w)) if determined[j]]
    if len(idx) < 2:
        return None
    ranked = sorted(idx, key=lambda j: w[j])
    logs = [math.log10(w[j]) for j in ranked]
    k = max(range(len(ranked) - 1), key=lambda i: logs[i + 1] - logs[i])
    return ranked[: k + 1], ranked[k + 1 :], logs[k + 1] - logs[k]


def agreement(evidence: Record, below: Sequence[int], above: Sequence[int]) -> float:
    """log₁₀(min over ``above`` of the fold fits' lowest w / max over ``below`` of their highest)."""
    low, high = evidence["low"], evidence["high"]
    return math.log10(min(low[j] for j in above)) - math.log10(max(high[j] for j in below))


def partial_slopes_p(envs: Sequence[Environment], unstable: Sequence[int]) -> float | None:
    """Chow's F for environment-specific slopes on ``unstable`` only (shared slopes elsewhere, an
    intercept per environment); None without degrees of freedom."""
    if not unstable or len(envs) < 2:
        return None
    x = np.vstack([e.X for e in envs])
    y = np.concatenate([e.y for e in envs])
    scale = x.std(axis=0)
    x = (x - x.mean(axis=0)) / np.where(scale > 0, scale, 1.0)
    env_of = np.repeat(np.arange(len(envs)), [len(e.y) for e in envs])
    dummies = (env_of[:, None] == np.arange(len(envs))[None, :]).astype(np.float64)
    shared = np.hstack([dummies, x])
    own = np.hstack([shared, *[dummies[:, [e]] * x[:, list(unstable)] for e in range(1, len(envs))]])
    rss0, rank0 = _least_squares(shared, y)
    rss1, rank1 = _least_squares(own, y)
    df1, df2 = rank1 - rank0, len(y) - rank1
    if df1 < 1 or df2 < 1 or rss1 <= 0.0:
        return None
    return f_survival(max(rss0 - rss1, 0.0) / df1 / (rss1 / df2), df1, df2)


CALIBRATION_FOLDS = 5


def calibration_slopes_p(envs: Sequence[Environment], folds: int = CALIBRATION_FOLDS) -> float | None:
    """Chow's F for one slope of y on ERM's out-of-fold prediction across the training environments
    (an intercept each): are ERM's predictions equally reliable in every environment? Folds are drawn
    per environment from a fixed seed; None without degrees of freedom."""
    rng = np.random.default_rng(0)
    fold = np.concatenate([rng.permutation(len(e.y)) % folds for e in envs])
    design = np.column_stack([np.ones(len(fold)), np.vstack([e.X for e in envs])])
    y = np.concatenate([e.y for e in envs])
    predicted = np.empty_like(y)
    for k in range(folds):
        held = fold == k
        coef = np.linalg.lstsq(design[~held], y[~held], rcond=None)[0]
        predicted[held] = design[held] @ coef
    starts = np.cumsum([0] + [len(e.y) for e in envs])
    rows = [slice(a, b) for a, b in zip(starts[:-1], starts[1:], strict=True)]
    test = slopes_test_of([(predicted[r, None], y[r]) for r in rows], False)
    return None if test is None else test.p_value


def _least_squares(design: NDArray[np.float64], y: NDArray[np.float64]) -> tuple[float, int]:
    coef, _, rank, _ = np.linalg.lstsq(design, y, rcond=None)
    residual = y - design @ coef
    return float(residual @ residual), int(rank)


def training_rows(record: Record) -> list[Environment]:
    if record.get("kind") == "anti_causal":
        from sal_core.synthetic import anti_causal

        return anti_causal(int(record["scenario"]), seed=int(record["seed"])).train
    from bench import real_dev

    return real_dev.training_rows(real_dev.dataset(record["name"], record["reverse"]), record["seed"])


def read(record: Record) -> Reading:
    """One departure's reading (``departed(record)`` must hold)."""
    candidates = record["candidates"]
    erm = next(c for c in candidates if c["relative"] is None)["score"]
    w, evidence = record["w"], record["w_evidence"]
    split = split_at_widest_gap(w, evidence["determined"])
    unstable = [j for j in range(len(w)) if w[j] < UNSTABLE_BELOW]
    envs = training_rows(record)
    return Reading(
        ratio=record["sal"] / record["erm"],
        agreement=None if split is None else agreement(evidence, split[0], split[1]),
        gap=None if split is None else split[2],
        partial_p=partial_slopes_p(envs, unstable),
        lead=(erm - candidates[record["chosen"]]["score"]) / erm,
        calibration_p=calibration_slopes_p(envs),
        slopes_excess=record.get("slopes_excess"),
    )


def anti_causal_record(unit: tuple[int, int]) -> Record:
    """SAL at defaults, ERM and the oracle (least squares on S) on one anti-causal seed."""
    from sal_core.synthetic import anti_causal

    scenario, seed = unit
    set_threads(1)
    setting = anti_causal(scenario, seed=seed)
    sal = get_algorithm("sal")({"score_all": True}, seed=seed).fit(setting.train)  # every candidate recorded
    erm = get_algorithm("erm")(seed=seed).fit(setting.train)
    only_s = lambda envs: [Environment(e.name, e.X[:, setting.stable], e.y) for e in envs]  # noqa: E731
    oracle = get_algorithm("erm")(seed=seed).fit(only_s(setting.train))
    selection = sal.selection
    assert selection is not None and selection.lambda_ is not None and sal.covariate_weights is not None
    return {
        "kind": "anti_causal", "name": f"anti-causal S{scenario}", "scenario": scenario, "reverse": False,
        "seed": seed, "sal": mean_error(sal.model, setting.test), "erm": mean_error(erm.model, setting.test),
        "oracle": mean_error(oracle.model, only_s(setting.test)), "chosen": selection.lambda_.chosen,
        "candidates": [{"relative": c.relative, "score": c.score} for c in selection.lambda_.candidates],
        "w": [float(v) for v in sal.covariate_weights],
        "w_evidence": selection.to_dict().get("covariate_weights"),
        "slopes_excess": None if selection.lambda_.homogeneity is None else selection.lambda_.homogeneity.excess,
    }  # fmt: skip


Bin = tuple[str, Callable[[Reading], bool]]
BINS: dict[str, list[Bin]] = {
    "agreement (decades)": [
        ("below -1", lambda r: r.agreement is not None and r.agreement < -1),
        ("-1 to 0", lambda r: r.agreement is not None and -1 <= r.agreement < 0),
        ("0 to 1", lambda r: r.agreement is not None and 0 <= r.agreement < 1),
        ("1 or more", lambda r: r.agreement is not None and r.agreement >= 1),
    ],
    "widest gap in log w (decades)": [
        ("under 0.5", lambda r: r.gap is not None and r.gap < 0.5),
        ("0.5 to 1", lambda r: r.gap is not None and 0.5 <= r.gap < 1),
        ("1 to 2", lambda r: r.gap is not None and 1 <= r.gap < 2),
        ("2 or more", lambda r: r.gap is not None and r.gap >= 2),
    ],
    f"partial slopes test on w < {UNSTABLE_BELOW:g}": [
        ("p < 0.05: the slopes of the covariates SAL moves differ", lambda r: r.partial_p is not None and r.partial_p < 0.05),
        ("p ≥ 0.05 (or no test)", lambda r: r.partial_p is None or r.partial_p >= 0.05),
    ],
    "how much the slopes differ: Chow's (F − 1)·df1/df2, the share of ERM's residual removed beyond chance": [
        ("under 0.5%", lambda r: r.slopes_excess is not None and r.slopes_excess < 0.005),
        ("0.5-2%", lambda r: r.slopes_excess is not None and 0.005 <= r.slopes_excess < 0.02),
        ("2-5%", lambda r: r.slopes_excess is not None and 0.02 <= r.slopes_excess < 0.05),
        ("5-20%", lambda r: r.slopes_excess is not None and 0.05 <= r.slopes_excess < 0.2),
        ("20% or more", lambda r: r.slopes_excess is not None and r.slopes_excess >= 0.2),
        ("no test recorded", lambda r: r.slopes_excess is None),
    ],
    "calibration slopes test of ERM's out-of-fold predictions": [
        ("p < 0.05: ERM is not equally reliable in every training environment", lambda r: r.calibration_p is not None and r.calibration_p < 0.05),
        ("p ≥ 0.05 (or no test)", lambda r: r.calibration_p is None or r.calibration_p >= 0.05),
    ],
}  # fmt: skip


def cell(readings: Sequence[Reading]) -> str:
    if not readings:
        return "0 | | | |"
    ratios = [r.ratio for r in readings]
    geo = math.exp(statistics.fmean(math.log(v) for v in ratios))
    above5, above1, below1 = (sum(v > 1.05 for v in ratios), sum(v > 1.01 for v in ratios),
                              sum(v < 0.99 for v in ratios))  # fmt: skip
    return f"{len(ratios)} | {geo:.4f} | {above5} | {above1} | {below1}"


def report(groups: dict[str, list[Reading]]) -> str:
    lines = []
    for reading, bins in BINS.items():
        lines += [f"\n{reading}\n", "| records | bin | departures | SAL/ERM (geometric mean) | > 5% above | > 1% above | > 1% below |",
                  "|---|---|---:|---:|---:|---:|---:|"]  # fmt: skip
        for group, readings in groups.items():
            for label, inside in bins:
                lines.append(f"| {group} | {label} | {cell([r for r in readings if inside(r)])} |")
    return "\n".join(lines)


def _readings(records: Sequence[Record], jobs: int) -> list[Reading]:
    with ProcessPoolExecutor(jobs) as pool:
        return list(pool.map(read, [r for r in records if departed(r)], chunksize=8))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.departure_evidence", description=(__doc__ or "").split("\n\n")[0]
    )
    sub = parser.add_subparsers(dest="command", required=True)
    show = sub.add_parser("report", help="bin the departures of recorded seed sets and the anti-causal seeds")
    show.add_argument("records", nargs="*", help="bench.real_scoreboard run files (with w)")
    show.add_argument("--anti-causal", default="100-139", help="seeds of anti-causal S1 and S2 ('' for none)")
    show.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    groups: dict[str, list[Reading]] = {}
    for path in args.records:
        with open(path) as f:
            groups[path] = _readings([json.loads(line) for line in f if line.strip()], args.jobs)
    if args.anti_causal:
        units = [(scenario, seed) for scenario in (1, 2) for seed in parse_seeds(args.anti_causal)]
        with ProcessPoolExecutor(args.jobs) as pool:
            records = list(pool.map(anti_causal_record, units))
        groups[f"anti-causal S1 and S2, seeds {args.anti_causal}"] = _readings(records, args.jobs)
    print(report(groups))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
