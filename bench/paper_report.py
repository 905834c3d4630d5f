"""Markdown for a finished :func:`bench.paper.run`: our numbers beside the paper's, then the targets.
The run is read through the ``PaperRun`` protocol below, so bench.paper imports this module and not
the other way round."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any, Protocol

from bench.cells import ConfidenceCell, RegressionCell
from bench.paper_numbers import (
    ANTI_CAUSAL,
    CONFIDENCE,
    anti_causal_test_mean,
    selection_bias_numbers,
)
from bench.protocol import ORACLE, UNTUNED
from bench.targets import CELL_TARGETS, Target, check, section_of
from sal_core.synthetic import TEST_RS


class RunConfig(Protocol):
    """What the report reads of a run's configuration (``bench.paper.PaperConfig``)."""

    @property
    def seeds(self) -> int: ...
    @property
    def confidence_seeds(self) -> int: ...
    @property
    def confidence_r(self) -> float: ...
    @property
    def n_test_selection(self) -> int: ...
    @property
    def n_test_anti_causal(self) -> int: ...


class PaperRun(Protocol):
    """A finished run as the report reads it (``bench.paper.PaperRun`` is one): this module
    imports nothing of bench.paper, which imports it."""

    @property
    def config(self) -> RunConfig: ...
    @property
    def selection(self) -> Sequence[RegressionCell]: ...
    @property
    def confidence(self) -> Sequence[ConfidenceCell]: ...
    @property
    def anti(self) -> Sequence[RegressionCell]: ...
    @property
    def seconds(self) -> float: ...
    @property
    def jobs(self) -> int: ...


LABELS = {
    "erm": "ERM",
    "lasso": "LASSO",
    "ridge": "Ridge",
    "wdrl": "WDRL",
    "irm": "IRM",
    "sal": "SAL",
    ORACLE: "oracle (ERM on S)",
}

PAPER_SEEDS = 10  # the paper averages 10 runs for selection bias (15 for anti-causal)
UNBOUNDED_W = 1e6

SELECTION_HEADINGS = {
    1: "Scenario 1: varying selection bias r (n = 2000, p = 10, κ = 0.95, n_b = 1)",
    2: "Scenario 2: varying ratio κ and sample size n (p = 10, r = 1.7, n_b = 1)",
    3: "Scenario 3: varying ratio κ and sample size n (p = 10, r = 2.0, n_b = 3)",
}
ANTI_CAUSAL_HEADINGS = {1: "Scenario 1: n_s = 5, n_v = 5", 2: "Scenario 2: n_s = 9, n_v = 1"}


def ours(mean_std: tuple[float, float], paper: float | None = None) -> str:
    text = f"{mean_std[0]:.3f} ± {mean_std[1]:.3f}"
    return text if paper is None else f"{text} ({paper:.3f})"


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _head(cells: list[str], align: str = "---:") -> list[str]:
    return [_row(cells), _row(["---"] + [align] * (len(cells) - 1))]


def selection_table(cells: list[RegressionCell]) -> list[str]:
    head = ["Method"] + [
        f"{c.label.split(': ', 1)[-1]}: {s}" for c in cells for s in ("Mean_Error", "Std_Error")
    ]
    lines = _head(head)
    for method in cells[0].methods:
        row = [LABELS.get(method, method)]
        for cell in cells:
            paper = selection_bias_numbers(cell.scenario, cell.key).get(method, (None, None))
            row += [ours(cell.summary(method), paper[0]), ours(cell.summary(method, "std_error"), paper[1])]
        lines.append(_row(row))
    return lines


def anti_causal_table(cell: RegressionCell) -> list[str]:
    envs = list(cell.seeds[0].rmse[cell.methods[0]])
    head = ["Method", *(e.removeprefix("test ") for e in envs), "Mean_Error (e4-e10)", "Std_Error"]
    lines = _head(head)
    published = ANTI_CAUSAL.get(cell.scenario, {})
    for method in cell.methods:
        paper = published.get(method)
        row = [LABELS.get(method, method)]
        row += [ours(cell.env_rmse(method, e), paper[i] if paper else None) for i, e in enumerate(envs)]
        row.append(
            ours(cell.summary(method), anti_causal_test_mean(method, cell.scenario) if paper else None)
        )
        row.append(ours(cell.summary(method, "std_error")))
        lines.append(_row(row))
    return lines


def confidence_table(run: PaperRun) -> list[str]:
    head = ["radius ρ", "λ = 1/ρ"]
    for m in ("WDRL", "SAL"):
        head += [f"{m} Acc", f"{m} Conf", f"{m} ρ̂"]
    lines = _head(head)
    for cell in run.confidence:
        row = [f"{cell.radius:g}", f"{cell.lambda_:g}"]
        for method in ("wdrl", "sal"):
            if method not in cell.runs:
                row += ["not registered"] * 3
                continue
            acc, conf = CONFIDENCE.get(cell.radius, {}).get(method, (None, None))
            rho = cell.summary(method, "rho_hat")
            row += [
                ours(cell.summary(method, "accuracy"), acc),
                ours(cell.summary(method, "confidence"), conf),
                f"{rho[0]:.2g}",
            ]
        lines.append(_row(row))
    return lines


def summary_table(cells: list[RegressionCell], targets: list[Target]) -> list[str]:
    """Per cell: every method's Mean_Error, the oracle, SAL's gap to it and each target's verdict."""
    methods = [m for m in cells[0].methods if m != ORACLE]
    head = ["cell", *(LABELS.get(m, m) for m in methods), "oracle", "SAL − oracle", *CELL_TARGETS]
    lines = _head(head)
    verdicts = {(t.cell, t.kind): t.verdict for t in targets if t.cell is not None}
    for cell in cells:
        sal, oracle = cell.summary("sal")[0], cell.summary(ORACLE)[0]
        row = [cell.label]
        row += [
            f"**{cell.summary(m)[0]:.3f}**" if m == "sal" else f"{cell.summary(m)[0]:.3f}" for m in methods
        ]
        row += [f"{oracle:.3f}", f"{100 * (sal / oracle - 1):+.1f}%"]
        row += [verdicts.get((cell.label, kind), "—") for kind in CELL_TARGETS]
        lines.append(_row(row))
    return lines


def weights_tables(cells: list[RegressionCell]) -> list[str]:
    """One table per covariate layout (p = 10 selection bias and anti-causal S1; anti-causal S2)."""
    groups: dict[tuple[str, ...], list[RegressionCell]] = {}
    for cell in cells:
        groups.setdefault(tuple(cell.feature_names), []).append(cell)
    lines: list[str] = []
    for names, group in groups.items():
        lines += _head(["setting", *names, "min w_S > max w_biased"])
        for cell in group:
            ws = [s.sal_w for s in cell.seeds if s.sal_w is not None]
            if not ws:
                continue
            means = [sum(float(w[i]) for w in ws) / len(ws) for i in range(len(names))]
            marks = [f"{m:.3g}" + ("*" if i in cell.biased else "") for i, m in enumerate(means)]
            ok = cell.w_protects_stable()
            lines.append(_row([cell.label, *marks, f"{sum(ok)}/{len(ok)} seeds"]))
        lines.append("")
    if any(
        float(w.max()) > UNBOUNDED_W for cell in cells for w in (s.sal_w for s in cell.seeds) if w is not None
    ):
        lines += [
            f"Some w exceed {UNBOUNDED_W:.0e}: W = {{w ≥ 1, min w = 1}} has no upper bound and SAL's w update "
            "keeps growing the weights it protects. Only their order and ratios to 1 carry meaning.",
            "",
        ]
    return lines


def chosen_params(cells: list[RegressionCell]) -> list[str]:
    lines = _head(["Method", *(c.label for c in cells)], "---")
    for method in cells[0].methods:
        if not any(s.params[method] for cell in cells for s in cell.seeds):
            continue  # always at defaults with nothing chosen (ERM, the oracle)
        row = [LABELS.get(method, method)]
        for cell in cells:
            counts = Counter(_params_text(s.params[method]) for s in cell.seeds)
            row.append("; ".join(f"{text} ({k}/{len(cell.seeds)})" for text, k in counts.most_common(2)))
        lines.append(_row(row))
    return lines


def _params_text(params: dict[str, Any]) -> str:
    return (
        ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in params.items())
        or "defaults"
    )


def missed(targets: list[Target], section: str) -> list[str]:
    """A line under a table naming the targets it misses, so a miss is visible where the numbers are."""
    names = [f"{t.name} ({t.detail})" for t in targets if t.section == section and t.ok is False]
    return [f"**Targets missed here:** {'; '.join(names)}.", ""] if names else []


def render(run: PaperRun, *, command: str, date: str, machine: str) -> str:
    c = run.config
    regression = [*run.selection, *run.anti]
    targets = check(run.selection, run.anti, run.confidence)
    met = sum(t.ok is True for t in targets)
    seeds_note = (
        f"Regression cells: {c.seeds} seeds"
        if c.seeds >= PAPER_SEEDS
        else f"**Regression cells: {c.seeds} seeds, fewer than the default {PAPER_SEEDS}**"
    )
    out = [
        "# Paper results: our reproduction beside the paper",
        "",
        f"Command: `{command}` · {date} · {machine} · {run.jobs} process(es) · wall time {run.seconds / 60:.1f} min.",
        "",
        f"Every number is ours as mean ± sample std over seeds, with the paper's in parentheses. {seeds_note}; "
        f"confidence table: {c.confidence_seeds} seed(s) per radius. Errors are RMSE (`sal_core.metrics`); "
        "Mean_Error and Std_Error are the mean and sample std over the test environments. SAL and WDRL run at "
        'their library defaults (`lambda_="auto"`: λ chosen inside the fit from the training environments '
        "alone); the other baselines search their grids on a validation split (below).",
        "",
        "The paper's real-data experiments (house prices by build period, Adult by race × sex) are in "
        "[real-data-results.md](real-data-results.md) (`python -m bench.real_data`).",
        "",
    ]
    if regression:
        out += [
            "## Summary: Mean_Error per cell and the targets",
            "",
            f"{met}/{len(targets)} targets met. Seed-averaged test Mean_Error of each method; SAL − oracle is "
            "SAL's gap to the oracle in percent.",
            "",
            *summary_table(regression, targets),
            "",
        ]
    for scenario in sorted({cell.scenario for cell in run.selection}):
        cells = [cell for cell in run.selection if cell.scenario == scenario]
        out += [
            f"## Selection bias, {SELECTION_HEADINGS.get(scenario, f'Scenario {scenario}')}",
            "",
            f"{c.n_test_selection} rows per test environment (r = {', '.join(f'{r:g}' for r in TEST_RS)}).",
            "",
            *selection_table(cells),
            "",
            *missed(targets, section_of(cells[0])),
        ]
    if run.confidence:
        out += [
            f"## Confidence: classification under selection bias (n = 2000, p = 10, κ = 0.95, n_b = 1, r = {c.confidence_r:g})",
            "",
            "Acc and Conf are averaged over the ten test environments; ρ̂ is the transport cost of the worst case "
            "the fit found (`fit.certificate.rho_hat`, standardised covariates), the radius our λ actually certifies.",
            "",
            *confidence_table(run),
            "",
            *missed(targets, "confidence"),
        ]
    for cell in run.anti:
        out += [
            f"## Anti-causal, {ANTI_CAUSAL_HEADINGS.get(cell.scenario, f'Scenario {cell.scenario}')}",
            "",
            f"Training sizes 1800/150/50, {c.n_test_anti_causal} rows per test environment. e1-e3 are the "
            "training environments (all their rows); e4-e10 the test environments.",
            "",
            *anti_causal_table(cell),
            "",
            *missed(targets, section_of(cell)),
        ]
    if regression:
        out += [
            "## SAL's covariate weights w (mean over seeds; * marks the biased covariates)",
            "",
            *weights_tables(regression),
            "## Hyper-parameters (most frequent over seeds)",
            "",
            'Baselines: the grid point chosen on the validation split. SAL and WDRL: the λ their `lambda_="auto"` '
            "chose inside the fit, as a multiple of the pooled OLS training MSE, or `off: ERM` where the "
            "selection fell back to the adversary switched off.",
            "",
            *chosen_params(regression),
            "",
        ]
    out += ["## Targets", ""]
    out += [f"- **{t.verdict}** {t.name}: {t.detail}" for t in targets]
    timings = [f"{cell.label} {cell.seconds:.0f} s" for cell in regression]
    timings += [f"confidence ρ = {cell.radius:g} {cell.seconds:.0f} s" for cell in run.confidence]
    out += [
        "",
        "## How these numbers were made",
        "",
        *NOTES,
        f"- Fit time per cell, summed over its seeds (one process at one torch thread each): {'; '.join(timings)}.",
    ]
    return "\n".join(out) + "\n"


NOTES = [
    "- Data: `sal_core.synthetic.selection_bias(r, n, kappa, n_b)` and `anti_causal(scenario)`, one data seed "
    "per run (seed k draws the data and seeds the fits). Training: round(κ n) rows at r and the rest at "
    "r = -1.1; V_b is the first n_b columns of V. Selection-bias test r are `sal_core.synthetic.TEST_RS`.",
    "- Validation: each training environment's rows are split 80/20 at random (seeded); the 20% parts, pooled, "
    "are the validation set drawn i.i.d. from the training environments. Each tuned baseline (LASSO, Ridge, IRM) "
    "is fitted on the 80% parts once per point of its declared grid "
    "(`get_algorithm(name).params_type.search_space()`), and the point with the lowest pooled validation MSE is "
    "kept *as fitted* (no refit on all rows, as in DomainBed's training-domain validation). ERM has no grid. "
    f"{' and '.join(sorted(LABELS[m] for m in UNTUNED))} run at their library defaults, never tuned by the bench, "
    'the same in every setting: their default `lambda_="auto"` picks λ inside the fit by the worst training '
    "environment's held-out RMSE (`sal_core.lambda_selection`), which sees only the 80% parts. Every method, "
    "SAL and the oracle included, trains on the same 80% rows.",
    "- Oracle: ERM (OLS) on the stable covariates only (`setting.stable`), the best a linear model can do "
    "when only P(Y | S) is invariant. It is not one of the six methods in the targets.",
    "- Confidence table: no selection (the radius is the variable); SAL and WDRL at λ = 1/ρ on all training "
    "rows, everything else at defaults. Our algorithms use the Lagrangian penalty λ instead of a radius; λ = 1/ρ "
    "is a nominal mapping, so the radius each fit certifies, ρ̂, is printed beside it. The paper does not give r "
    "for this table; we use 1.7.",
    "- Targets compare seed-averaged numbers. `python -m bench.paper --quick` runs 2 seeds on one column per "
    "scenario as a smoke test; its numbers are not a reproduction. `--jobs N` runs N (cell, seed) units at once "
    "in separate processes; the numbers do not depend on N.",
]
