"""How lambda_='auto' would fare under other selection rules, on the development set, offline.

    python -m bench.selection_rules run OUT.jsonl [--real ...] [--anti-causal 1 2] [--selection-bias ...]
        [--homogeneous ...]
    python -m bench.selection_rules report OUT.jsonl [more.jsonl ...]

``run``: for every (dataset or scenario, seed), SAL at library defaults records its selection (every
candidate's out-of-fold score and its score per training environment, the paired standard error of
its difference to the best, in the order the rule reads them, most robust first); then every
candidate is refitted on all training rows at its λ and anchor (ERM for the adversary switched off)
and scored on the test environments; the chosen one is scored as the library returns it (since
2026-11-28 afternoon the mean of its fold fits, docs/sal.md "Bagged fold fits"), the others as SAL
at that λ returns them (one path on all rows), so a replayed rule that picks another robust candidate
is scored on that candidate's refit, not on the mean the library would return. One line of JSON per unit. ``report``: replays rules on those lines, so a rule costs nothing to try, and
prints per dataset SAL/ERM (mean and worst seed) on the real tables, Mean_Error and seeds within 10%
of the oracle on the anti-causal scenarios, the excess over the oracle under selection bias, and
SAL/ERM where nothing shifts (``--homogeneous``: `sal_core.synthetic.homogeneous`, few rows).

Rules are tuned on development seeds and training environments only: the real tables' seeds 0-4
(``bench.real_dev``), anti-causal dev seeds 100-139, selection-bias seeds 0-4, homogeneous seeds
0-9 (``bench.variants`` holds no-shift variants on seeds 300-304 for checking).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from bench.common import set_threads
from sal_core import Environment, get_algorithm
from sal_core import lambda_selection as ls
from sal_core.exact_selection import VARIANT_NAMES
from sal_core.losses import Task
from sal_core.metrics import evaluate
from sal_core.synthetic import Setting

Record = dict[str, Any]
RECORD_ALL = {"score_all": True}
"""SAL's parameters here: its defaults, every candidate fitted and scored where ERM is kept outright
too, so that the record can replay other rules (the fit returned is the default's)."""
Rule = Callable[[Record], int]
"""A rule reads one unit's record (its candidates, most robust first, and ``slopes_p``) and picks one."""
ANCHOR_OF = {name: key for key, name in VARIANT_NAMES.items()}
SELECTION_BIAS: dict[str, dict[str, Any]] = {
    "s1_r1.5": {"r": 1.5, "n": 2000, "kappa": 0.95},
    "s1_r1.7": {"r": 1.7, "n": 2000, "kappa": 0.95},
    "s1_r2": {"r": 2.0, "n": 2000, "kappa": 0.95},
    "s2_n500": {"r": 1.7, "n": 500, "kappa": 0.9},
    "s2_n1000": {"r": 1.7, "n": 1000, "kappa": 0.9},
    "s2_n4000": {"r": 1.7, "n": 4000, "kappa": 0.975},
    "s3_n1000": {"r": 2.0, "n": 1000, "kappa": 0.9, "n_b": 3},
    "s3_n2000": {"r": 2.0, "n": 2000, "kappa": 0.95, "n_b": 3},
    "s3_n4000": {"r": 2.0, "n": 4000, "kappa": 0.975, "n_b": 3},
}
HOMOGENEOUS: dict[str, dict[str, Any]] = {
    "e3_n30_p5": {"n_envs": 3, "n": 30, "p": 5},
    "e3_n100_p5": {"n_envs": 3, "n": 100, "p": 5},
    "e3_n300_p5": {"n_envs": 3, "n": 300, "p": 5},
    "e10_n30_p5": {"n_envs": 10, "n": 30, "p": 5},
    "e3_n50_p15": {"n_envs": 3, "n": 50, "p": 15},
    "e3_n200_p15": {"n_envs": 3, "n": 200, "p": 15},
    "e20_n50_p10": {"n_envs": 20, "n": 50, "p": 10},
    "e3_n100_p5_logistic": {"n_envs": 3, "n": 100, "p": 5, "task": "classification"},
}
"""`sal_core.synthetic.homogeneous` settings: nothing shifts, so SAL can only lose to ERM; few rows
per environment, where the out-of-fold scores cannot tell the candidates apart."""


def mean_test_error(model: object, envs: Sequence[Environment]) -> float:
    return float(evaluate(model, envs)[1].mean_error)  # type: ignore[arg-type]


def candidates_of(
    train: list[Environment], test: list[Environment], task: Task, seed: int
) -> tuple[list[Record], int, float, float | None]:
    """(every candidate with its score, se and test error; the index SAL chose; ERM's test error;
    the p-value of the slopes test, None where the path has none)."""
    set_threads(1)
    # score_all: the record holds every candidate also where ERM is kept outright (the same fit)
    sal = get_algorithm("sal")(RECORD_ALL, task=task, seed=seed).fit(train)
    assert sal.selection is not None and sal.selection.lambda_ is not None
    selection = sal.selection.lambda_
    erm = mean_test_error(get_algorithm("erm")(task=task, seed=seed).fit(train).model, test)
    out = []
    for i, c in enumerate(selection.candidates):
        if c.relative is None:
            error = erm
        elif i == selection.chosen:
            error = mean_test_error(sal.model, test)
        else:
            params: dict[str, Any] = {"lambda_": c.lambda_}
            if c.variant:
                params["anchor"] = ANCHOR_OF[c.variant]
            error = mean_test_error(get_algorithm("sal")(params, task=task, seed=seed).fit(train).model, test)
        out.append({"relative": c.relative, "anchor": ANCHOR_OF.get(c.variant, ""), "score": c.score,
                    "se": c.se, "env_scores": c.env_scores, "test": error})  # fmt: skip
    slopes = None if selection.homogeneity is None else selection.homogeneity.p_value
    return out, selection.chosen, erm, slopes


def oracle_error(
    train: list[Environment], test: list[Environment], stable: Sequence[int], seed: int
) -> float:
    only = lambda envs: [Environment(e.name, e.X[:, stable], e.y) for e in envs]  # noqa: E731
    return mean_test_error(get_algorithm("erm")(seed=seed).fit(only(train)).model, only(test))


def synthetic_setting(kind: str, name: str, seed: int) -> Setting:
    """The generator's setting for a synthetic unit: kind "anti_causal" (``name`` the scenario),
    "homogeneous" (:data:`HOMOGENEOUS`) or "selection_bias" (:data:`SELECTION_BIAS`)."""
    from sal_core.synthetic import anti_causal, homogeneous, selection_bias

    if kind == "anti_causal":
        return anti_causal(int(name), seed=seed)
    if kind == "homogeneous":
        return homogeneous(seed=seed, **HOMOGENEOUS[name])
    return selection_bias(seed=seed, **SELECTION_BIAS[name])


def run_unit(unit: tuple[str, str, int]) -> Record:
    """One (kind, name, seed): its candidates, SAL's choice, ERM's and (synthetic) the oracle's error."""
    kind, name, seed = unit
    oracle = None
    if kind == "real":
        from bench import real_dev

        data = real_dev.dataset(name)
        train, test, task = real_dev.training_rows(data, seed), data.test, data.task
    else:
        s = synthetic_setting(kind, name, seed)
        train, test = s.train, s.test
        task = "classification" if s.task == "classification" else "regression"
        oracle = oracle_error(train, test, s.stable, seed) if kind != "homogeneous" else None
    cands, chosen, erm, slopes = candidates_of(train, test, task, seed)
    return {"kind": kind, "name": name, "seed": seed, "chosen": chosen, "erm": erm, "oracle": oracle,
            "slopes_p": slopes, "candidates": cands}  # fmt: skip


def _scored(record: Record) -> ls.Candidate:
    """A recorded candidate as the library's, for its per-environment comparisons."""
    return ls.Candidate(record.get("relative"), 0.0, record["score"], record.get("env_scores") or {})


def beaten_by_erm(cands: Sequence[Record], i: int, where_erm_best: bool = True) -> bool:
    """Whether ERM (the last candidate) scores better than candidate i on every training environment
    (`lambda_selection.dominated_by`), and (``where_erm_best``, as the library) ERM scores best; False
    where the record has no per-environment scores."""
    if i == len(cands) - 1 or (where_erm_best and cands[-1]["score"] > min(c["score"] for c in cands)):
        return False
    return ls.dominated_by(_scored(cands[i]), _scored(cands[-1]))


def within_z(z: float, erm_veto: bool = True, where_erm_best: bool = True) -> Rule:
    """The robust-first rule (the library's where the slopes differ, and everywhere with
    ``erm_first="never"``): the most robust candidate within z standard errors of the best; where ERM
    scores best, one that ERM does not beat on every training environment. ``erm_veto=False``: the rule
    before 2026-11-28, which admitted such a candidate too; ``where_erm_best=False``: the veto wherever
    ERM dominates (measured and dropped: it lost the paper's anti-causal S1 seed 0)."""

    def rule(unit: Record) -> int:
        cands = unit["candidates"]
        best = min(c["score"] for c in cands)
        return next(
            i
            for i, c in enumerate(cands)
            if c["score"] <= best + z * c["se"] and not (erm_veto and beaten_by_erm(cands, i, where_erm_best))
        )

    return rule


def within_z_and_erm(z: float) -> Rule:
    """Within z standard errors of the best and no worse out of fold than ERM (the last candidate)."""

    def rule(unit: Record) -> int:
        cands = unit["candidates"]
        best, erm = min(c["score"] for c in cands), cands[-1]["score"]
        return next(i for i, c in enumerate(cands) if c["score"] <= best + z * c["se"] and c["score"] <= erm)

    return rule


def erm_unless_separated(z: float) -> Rule:
    """ERM (the last candidate) while it is within z standard errors of the best, the issue's "ERM wins
    whenever the data give no evidence for robustness"; otherwise the robust-first rule
    (``erm_first="always"``)."""
    library = within_z(z)

    def rule(unit: Record) -> int:
        cands = unit["candidates"]
        best, erm = min(c["score"] for c in cands), cands[-1]
        return len(cands) - 1 if erm["score"] <= best + z * erm["se"] else library(unit)

    return rule


def erm_first_where_alike(z: float, alpha: float = 0.05) -> Rule:
    """The library's rule from 2026-11-28 evening to 2026-12-02 (``erm_first="where_alike"``): where the slopes test
    finds no evidence of different slopes (p ≥ ``alpha``, or no test), ERM unless a candidate beats it
    by more than z standard errors; past that, and where the slopes differ, the robust-first rule."""
    robust_first, evidence = within_z(z), erm_unless_separated(z)

    def rule(unit: Record) -> int:
        p = unit.get("slopes_p")
        return evidence(unit) if p is None or p >= alpha else robust_first(unit)

    return rule


def within_z_capped(z: float, cap: float, alpha: float | None = None) -> Rule:
    """The most robust candidate within z standard errors of the best *and* at most ``cap`` (relative)
    above it: where the rows are few, the noise band is wide, and "within the noise" would accept
    any estimated cost. With ``alpha``, the cap applies only where the slopes test's p ≥ alpha (or
    there is no test), as the library's opt-in ``cost_cap`` does."""

    def rule(unit: Record) -> int:
        cands, p = unit["candidates"], unit.get("slopes_p")
        applies = alpha is None or p is None or p >= alpha
        best = min(c["score"] for c in cands)
        band = (lambda c: min(z * c["se"], cap * best)) if applies else (lambda c: z * c["se"])
        return next(
            i for i, c in enumerate(cands) if c["score"] <= best + band(c) and not beaten_by_erm(cands, i)
        )

    return rule


def erm_where_alike(z: float, alpha: float = 0.05) -> Rule:
    """The library's rule since 2026-12-02 evening (``erm_first="keep_where_alike"``): ERM wherever
    the slopes test ran and found no evidence of different slopes (p ≥ ``alpha``); where no test ran,
    :func:`erm_first_where_alike`'s evidence rule; where they differ, the robust-first rule. (On the
    gradient path the library keeps the evidence rule where ERM overfits, the ball's gate; the records
    here do not say where it opened, and the replayed scenarios are linear regression.)"""
    before = erm_first_where_alike(z, alpha)

    def rule(unit: Record) -> int:
        p = unit.get("slopes_p")
        return len(unit["candidates"]) - 1 if p is not None and p >= alpha else before(unit)

    return rule


RULES: dict[str, Rule] = {
    "default: ERM where slopes alike, z = 1": erm_where_alike(1.0),
    "ERM first where slopes alike, z = 1 (erm_first='where_alike')": erm_first_where_alike(1.0),
    "best (z = 0)": within_z(0.0),
    "z = 0.5": within_z(0.5),
    "z = 1, robust first (erm_first='never')": within_z(1.0),
    "z = 1, no ERM veto (before 2026-11-28)": within_z(1.0, erm_veto=False),
    "z = 1, ERM veto wherever ERM dominates": within_z(1.0, where_erm_best=False),
    "z = 1, 3% cap where slopes alike (cost_cap=0.03)": within_z_capped(1.0, 0.03, alpha=0.05),
    "z = 1.5": within_z(1.5),
    "z = 1, not worse than ERM": within_z_and_erm(1.0),
    "ERM unless it trails by > 1 SE (erm_first='always')": erm_unless_separated(1.0),
    "ERM unless it trails by > 2 SE where slopes alike": erm_first_where_alike(2.0),
    "z = 1, 1% cap where slopes alike": within_z_capped(1.0, 0.01, alpha=0.05),
    "z = 1, 3% cap everywhere": within_z_capped(1.0, 0.03),
    "z = 1, 5% cap everywhere": within_z_capped(1.0, 0.05),
}


def summary(records: Sequence[Record], rule: Rule) -> str:
    """One cell: SAL/ERM mean and worst seed (real), Mean_Error and seeds at the oracle (anti-causal),
    or the excess over the oracle (selection bias)."""
    errors = [r["candidates"][rule(r)]["test"] for r in records]
    kind = records[0]["kind"]
    if kind in ("real", "homogeneous"):
        ratios = [e / r["erm"] for e, r in zip(errors, records, strict=True)]
        return f"{statistics.fmean(ratios):.3f} / {max(ratios):.3f}"
    if kind == "anti_causal":
        at = sum(e <= 1.1 * r["oracle"] for e, r in zip(errors, records, strict=True))
        return f"{statistics.fmean(errors):.3f}, {at}/{len(records)}"
    excess = statistics.fmean(errors) / statistics.fmean(r["oracle"] for r in records) - 1
    return f"{100 * excess:+.2f}%"


def report(records: Sequence[Record], command: str) -> str:
    groups: dict[tuple[str, str], list[Record]] = {}
    for r in records:
        groups.setdefault((r["kind"], r["name"]), []).append(r)
    lines = [
        f"`{command}`: per dataset, real tables SAL/ERM test Mean_Error (mean / worst seed); anti-causal "
        "Mean_Error, seeds within 10% of the oracle; selection bias excess over the oracle.\n",
        "| data | seeds | " + " | ".join(RULES) + " |",
        "|---|---:|" + "---:|" * len(RULES),
    ]
    for (kind, name), rs in groups.items():
        cells = " | ".join(summary(rs, rule) for rule in RULES.values())
        lines.append(f"| {kind.replace('_', '-')} {name} | {len(rs)} | {cells} |")
    return "\n".join(lines)


def _seeds(text: str) -> list[int]:
    low, _, high = text.partition("-")
    return list(range(int(low), int(high or low) + 1))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.selection_rules", description=__doc__.split("\n\n")[0]
    )
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="fit and record every candidate (appends to OUT)")
    run.add_argument("out")
    run.add_argument("--real", nargs="*", default=[], help="bench.real_dev datasets")
    run.add_argument("--real-seeds", default="0-4")
    run.add_argument("--anti-causal", nargs="*", default=[], choices=["1", "2"])
    run.add_argument("--anti-causal-seeds", default="100-139")
    run.add_argument("--selection-bias", nargs="*", default=[], choices=sorted(SELECTION_BIAS))
    run.add_argument("--selection-bias-seeds", default="0-4")
    run.add_argument("--homogeneous", nargs="*", default=[], choices=sorted(HOMOGENEOUS))
    run.add_argument("--homogeneous-seeds", default="0-9")
    run.add_argument("--jobs", type=int, default=1)
    rep = sub.add_parser("report", help="replay the rules on recorded units")
    rep.add_argument("files", nargs="+")
    args = parser.parse_args(argv)
    if args.command == "report":
        records = []
        for name in args.files:
            with open(name) as f:
                records += [json.loads(line) for line in f if line.strip()]
        print(report(records, "python -m bench.selection_rules report " + " ".join(args.files)))
        return 0
    units = [("real", n, s) for n in args.real for s in _seeds(args.real_seeds)]
    units += [("anti_causal", n, s) for n in args.anti_causal for s in _seeds(args.anti_causal_seeds)]
    units += [
        ("selection_bias", n, s) for n in args.selection_bias for s in _seeds(args.selection_bias_seeds)
    ]
    units += [("homogeneous", n, s) for n in args.homogeneous for s in _seeds(args.homogeneous_seeds)]
    with ProcessPoolExecutor(args.jobs) as pool, open(args.out, "a") as out:
        for record in pool.map(run_unit, units):
            out.write(json.dumps(record) + "\n")
            out.flush()
            print(record["kind"], record["name"], record["seed"], file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
